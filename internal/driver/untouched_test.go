package driver

import (
	"bytes"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
)

const configMap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\ndata:\n  mode: fast\n"

func TestUntouched(t *testing.T) {
	custom, err := yaml.Parse("apiVersion: sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: c}\nspec:\n  podSpecPaths:\n  - {group: example.com, kind: Widget, path: spec/pod}\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, body string
		cfg        *yaml.RNode
		want       bool
	}{
		{"ConfigMap", configMap, nil, true},
		{"CRD with block scalars and lists", "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: w.example.com\nspec:\n  versions:\n  - name: v1\n    schema:\n      description: |-\n        A long\n\n        text: with a colon\n    served: true\n  - name: v2\n    served: 'no' # a comment\n", nil, true},
		{"CRLF", strings.ReplaceAll(configMap, "\n", "\r\n"), nil, true},
		{"a Deployment", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n", nil, false},
		{"a custom workload kind", "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n", custom, false},
		{"not a custom workload without the config", "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n", nil, true},
		{"a Service, read for load balancers", "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n", nil, false},
		{"an Ingress", "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n", nil, false},
		{"a Namespace", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n", nil, false},
		{"a List", "apiVersion: v1\nkind: ConfigMapList\nitems: []\n", nil, false},
		{"kpt's package path", strings.Replace(configMap, "  namespace: shop\n", "  annotations:\n    internal.config.kubernetes.io/package-path: a\n", 1), nil, false},
		{"a duplicate key", configMap + "  mode: slow\n", nil, false},
		{"a duplicate key under a list entry", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\nx:\n- a: 1\n  a: 2\n", nil, false},
		{"the same key in two list entries", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\nx:\n- a: 1\n- a: 2\n", nil, true},
		{"metadata a list", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n- a\n", nil, false},
		{"metadata a scalar", "apiVersion: v1\nkind: ConfigMap\nmetadata: a\n", nil, false},
		{"a kind that goes on", "apiVersion: v1\nkind: Config\n  Map\n", nil, false},
		{"a quoted kind", "apiVersion: v1\nkind: \"ConfigMap\"\n", nil, false},
		{"a flow mapping with a duplicate key", "apiVersion: v1\nkind: ConfigMap\ndata: {a: 1, a: 2}\n", nil, false},
		{"flow collections", "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: things.example.com\nspec:\n  names: {kind: Thing, plural: things}\n  versions: [{name: v1, served: true}, {name: v2, served: false}]\n", nil, true},
		{"a flow mapping on two lines", "apiVersion: v1\nkind: ConfigMap\ndata: {a: 1,\n  b: 2}\n", nil, false},
		{"a flow mapping with a comment after it", "apiVersion: v1\nkind: ConfigMap\ndata: {a: 1} # c\n", nil, false},
		{"quoted keys below the top level", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    \"helm.sh/hook\": pre-install\n    'b': c\ndata:\n  x:\n  - \"y\": z\n", nil, true},
		{"a quoted key at the top level", "apiVersion: v1\nkind: ConfigMap\n\"data\": {}\n", nil, false},
		{"a quoted and a plain key, the same", "apiVersion: v1\nkind: ConfigMap\ndata:\n  \"a\": 1\n  a: 2\n", nil, false},
		{"a quoted key with an escape", "apiVersion: v1\nkind: ConfigMap\ndata:\n  \"a\\x41\": 1\n", nil, false},
		{"a quoted annotations key", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  \"annotations\": {}\n", nil, false},
		{"an alias", "apiVersion: v1\nkind: ConfigMap\nx: &a 1\ny: *a\n", nil, false},
		{"a merge key", "apiVersion: v1\nkind: ConfigMap\n<<: {kind: Pod}\n", nil, false},
		{"JSON", `{"apiVersion": "v1", "kind": "ConfigMap"}` + "\n", nil, false},
		{"a bad indentation", "apiVersion: v1\nkind: ConfigMap\ndata:\n    a: 1\n  b: 2\n", nil, false},
		{"a quote that goes on", "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: \"x\nkind: Pod\"\n", nil, false},
		{"quoted scalars over several lines", "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: w.example.com\nspec:\n  a: 'Configuration affecting\n    load balancing, it''s\n\n    long'\n  b:\n  - description: \"x \\\"y\\\"\n      z\" # c\n", nil, true},
		{"a quote that goes on to the end", "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: 'x\n    y\n", nil, false},
		{"a quote that goes on past a marker", "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: 'x\n---\n    y'\n", nil, false},
		{"text after a quote that went on", "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: 'x\n    y' z\n", nil, false},
		{"an escaped line break", "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: \"x\\\n    y\"\n", nil, false},
		{"a flow mapping under its key", "apiVersion: v1\nkind: ConfigMap\ndata:\n  {}\nx:\n- a:\n    [b, c]\n", nil, true},
		{"metadata under its key in flow style", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  {}\n", nil, false},
		{"a flow mapping under its key, then more", "apiVersion: v1\nkind: ConfigMap\ndata:\n  {}\n  b: 1\n", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := engine.Start(c.cfg)
			if got := untouched(e, []byte(c.body)); got != c.want {
				t.Errorf("untouched = %v, want %v for\n%s", got, c.want, c.body)
			}
		})
	}
}

// TestMayBeNamespace: the Namespace pre-pass parses each marked item but
// those whose scan reads a kind that is neither Namespace nor a List.
func TestMayBeNamespace(t *testing.T) {
	items := []struct {
		text  string
		parse bool
	}{
		{"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  pattern: a\\d+\n", false},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Namespace\n", false},
		{"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n", true},
		{"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: shop\n", true},
		{"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web # not in a Namespace\n", true},
	}
	var docs []string
	for _, it := range items {
		docs = append(docs, it.text)
	}
	var rl bytes.Buffer
	rl.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	for _, doc := range docs {
		for i, line := range strings.SplitAfter(strings.TrimSuffix(doc, "\n"), "\n") {
			if i == 0 {
				rl.WriteString("- " + line)
			} else {
				rl.WriteString("  " + line)
			}
		}
		rl.WriteString("\n")
	}
	in, err := yamlio.Read(&rl, yamlio.Options{Mark: mayNameNoted})
	if err != nil || in.Layout == nil {
		t.Fatalf("the list does not split: %v", err)
	}
	defer in.Close()
	if len(in.Layout.Marked) != len(items) {
		t.Fatalf("marked %v, want every item", in.Layout.Marked)
	}
	parse := mayBeNoted(in)
	for i, it := range items {
		item, err := parse(i)
		if err != nil || (item != nil) != it.parse {
			t.Errorf("item %d: parsed %v, %v; want parsed %v:\n%s", i, item != nil, err, it.parse, it.text)
		}
	}
}
