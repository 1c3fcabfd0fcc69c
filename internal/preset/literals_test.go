package preset_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
)

// notVendorFacts are string literals, by file, that hold a catalog fact
// and must: the benchmark corpus writes the vendors' own manifests, and
// the e2e suite's stand-in injectors write what Vault's and Dapr's do.
var notVendorFacts = map[string][]string{
	"bench/corpus/corpus.go":                 {"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s-%d\n  annotations:\n    linkerd.io/inject: enabled\n"},
	"e2e/cmd/stand-in-dapr-injector/main.go": {"dapr.io/enabled", "daprd", "dapr.io/enable-native-sidecar"},
	"e2e/cmd/stand-in-vault-injector/main.go": {"vault.hashicorp.com/agent-inject", "vault.hashicorp.com/agent-inject-status",
		"vault.hashicorp.com/agent-pre-populate-only", "vault-agent-init", "vault-agent"},
}

// TestNoVendorLiterals keeps every vendor fact in the catalogs: no Go file
// of the module outside package preset (the catalog's loader) and outside
// tests holds, as a string literal, a container name, an image repository,
// an annotation, label or environment variable key of a catalog entry, or
// a key or value of the load balancer catalog; no literal holds such an
// annotation or label key within its text either. Code reads the fact from
// the catalog instead.
func TestNoVendorLiterals(t *testing.T) {
	root := moduleRoot(t)
	exact, within := vendorFacts()
	excepted := map[string]bool{}
	eachCodeFile(t, root, func(rel, path string) {
		for _, lit := range stringLiterals(t, path) {
			fact := lit.text
			if !exact[fact] {
				i := slices.IndexFunc(within, func(key string) bool { return strings.Contains(lit.text, key) })
				if i < 0 {
					continue
				}
				fact = within[i]
			}
			if slices.Contains(notVendorFacts[rel], lit.text) {
				excepted[rel+": "+lit.text] = true
				continue
			}
			t.Errorf("%s:%d: %q holds the catalog fact %q: read it from the catalog instead", rel, lit.line, lit.text, fact)
		}
	})
	for file, texts := range notVendorFacts {
		for _, text := range texts {
			if !excepted[file+": "+text] {
				t.Errorf("notVendorFacts: %s has no %q any more; remove the entry", file, text)
			}
		}
	}
}

// TestVendorFactsSeen: the facts the test above looks for include the
// kinds it names, so that it cannot pass by finding none.
func TestVendorFactsSeen(t *testing.T) {
	exact, within := vendorFacts()
	for _, fact := range []string{"istio-proxy", "istio-init", "linkerd/proxy", "sidecar.istio.io/status", "config.linkerd.io/proxy-await",
		"LINKERD_DISABLED", "service.k8s.aws/nlb", "deregistration_delay.timeout_seconds", "cloud.google.com/backend-config"} {
		if !exact[fact] {
			t.Errorf("the catalogs' facts lack %q", fact)
		}
	}
	if !slices.Contains(within, "proxy.istio.io/config") {
		t.Errorf("annotation keys are not looked for within literals: %v", within)
	}
}

// vendorFacts returns every fact of the catalogs that a literal must not
// be, and the annotation and label keys that no literal may hold.
func vendorFacts() (exact map[string]bool, within []string) {
	exact = map[string]bool{}
	key := func(k string) {
		if k != "" {
			exact[k] = true
			if strings.Contains(k, "/") {
				within = append(within, k)
			}
		}
	}
	for _, e := range preset.Builtin() {
		for _, c := range append(slices.Clone(e.Containers), e.InitContainers...) {
			exact[c.Name] = true
		}
		for _, im := range e.Images {
			exact[strings.TrimPrefix(im.Pattern, "**/")] = true
		}
		for _, k := range entryKeys(e) {
			key(k)
		}
	}
	for _, c := range budget.LoadBalancers().Controllers {
		for _, s := range []*budget.Serves{c.Ingress, c.Service} {
			if s == nil {
				continue
			}
			key(s.Class.Value)
			if s.AnnotationPrefix != nil {
				key(s.AnnotationPrefix.Value)
			}
			if s.TypeAnnotation != nil {
				key(s.TypeAnnotation.Annotation)
			}
		}
		if a := c.Attributes; a != nil {
			key(a.Ingress.Annotation)
			key(a.Service.Annotation)
			key(a.Delay.Attribute)
		}
		if r := c.Reference; r != nil {
			key(r.Object.Group)
			key(r.Object.Field)
			for _, k := range r.ServiceAnnotations.Keys {
				key(k)
			}
		}
	}
	slices.Sort(within)
	return exact, slices.Compact(within)
}

// entryKeys are the annotation, label and environment variable keys an
// entry names.
func entryKeys(e preset.Entry) []string {
	var keys []string
	if x := e.Exit; x != nil {
		for _, d := range x.Delays {
			keys = append(keys, d.Annotation, d.Env)
		}
		if p := x.NativePreStop; p != nil && p.ArgAnnotation != nil {
			keys = append(keys, p.ArgAnnotation.Annotation)
		}
	}
	for _, w := range e.LeaveAlone {
		keys = append(keys, w.Annotation, w.Label, w.Env)
	}
	inj := e.Injector
	if inj == nil {
		return keys
	}
	for _, s := range slices.Concat(inj.Enabled, inj.Disabled, inj.OptOuts) {
		keys = append(keys, s.Annotation, s.Label)
	}
	if inj.Native != nil {
		keys = append(keys, inj.Native.Keys...)
	}
	if inj.Record != nil {
		keys = append(keys, inj.Record.Annotation)
	}
	if a := inj.Annotations; a != nil {
		for _, kv := range a.Ordered {
			keys = append(keys, kv.Key)
		}
		if a.ExitDelay != nil {
			keys = append(keys, a.ExitDelay.Key)
		}
		if a.Native != nil {
			keys = append(keys, a.Native.Key)
		}
	}
	return keys
}

// literal is a string literal of a Go file.
type literal struct {
	line int
	text string
}

// stringLiterals returns the string literals of a Go file, imports aside.
func stringLiterals(t *testing.T, path string) []literal {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	imports := map[*ast.BasicLit]bool{}
	for _, imp := range f.Imports {
		imports[imp.Path] = true
	}
	var out []literal
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING || imports[lit] {
			return true
		}
		if s, err := strconv.Unquote(lit.Value); err == nil {
			out = append(out, literal{line: fset.Position(lit.Pos()).Line, text: s})
		}
		return true
	})
	return out
}
