package preset_test

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
)

// repository is owner/name on GitHub.
var repository = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$`)

// TestCatalogSources: every block of a built-in entry that states a fact
// names its source, "<key> <where>", with a key of the entry's sources (more
// than one separated by "; "), and every source is a repository at a
// version that some fact cites.
func TestCatalogSources(t *testing.T) {
	entries := preset.Builtin()
	if len(entries) < 3 {
		t.Fatalf("the catalog has %d entries", len(entries))
	}
	checkSources(t, entries)
}

// checkSources checks that every fact of each entry cites a source of
// the entry, and every source is a repository at a version that a fact cites.
func checkSources(t *testing.T, entries []preset.Entry) {
	t.Helper()
	for _, e := range entries {
		used := map[string]bool{}
		for _, f := range facts(reflect.ValueOf(e), e.Name) {
			if f.source == "" {
				t.Errorf("%s: no source", f.path)
			}
			// A fact may cite several sources, "; " between them.
			for i, cite := range strings.Split(f.source, "; ") {
				key, where, _ := strings.Cut(cite, " ")
				_, ok := e.Sources[key]
				switch {
				case ok && strings.TrimSpace(where) == "":
					t.Errorf("%s: source %q says not where in %s", f.path, f.source, key)
				case ok:
					used[key] = true
				case i == 0 && f.source != "":
					t.Errorf("%s: source %q names no entry of sources", f.path, f.source)
				}
			}
		}
		for key, s := range e.Sources {
			if !repository.MatchString(s.Repository) || s.Version == "" {
				t.Errorf("%s: sources.%s = %+v, want an owner/name repository and a version", e.Name, key, s)
			}
			if !used[key] {
				t.Errorf("%s: sources.%s is cited by no fact", e.Name, key)
			}
		}
	}
}

// fact is a block of an entry that has a source field.
type fact struct {
	path, source string
}

// facts lists the blocks of v that have a Source field, with their paths.
func facts(v reflect.Value, path string) []fact {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return facts(v.Elem(), path)
	case reflect.Slice:
		var out []fact
		for i := range v.Len() {
			out = append(out, facts(v.Index(i), fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	case reflect.Struct:
		if v.Type().PkgPath() != reflect.TypeFor[preset.Entry]().PkgPath() {
			return nil // a Kubernetes type, such as the probe
		}
		var out []fact
		if s := v.FieldByName("Source"); s.IsValid() && s.Kind() == reflect.String && (s.String() != "" || hasFact(v)) {
			out = append(out, fact{path, s.String()})
		}
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() && f.Name != "Source" {
				out = append(out, facts(v.Field(i), path+"."+f.Name)...)
			}
		}
		return out
	}
	return nil
}

// hasFact reports whether a block with a Source field states anything
// besides blocks of its own: a struct of only nested blocks needs no source.
func hasFact(v reflect.Value) bool {
	for i := range v.NumField() {
		f := v.Field(i)
		if v.Type().Field(i).Name == "Source" || f.IsZero() {
			continue
		}
		switch f.Kind() {
		case reflect.Pointer, reflect.Slice:
			if hasSourcedElem(f) {
				continue
			}
		}
		return true
	}
	return false
}

// hasSourcedElem reports whether a pointer or slice holds blocks with
// sources of their own.
func hasSourcedElem(v reflect.Value) bool {
	t := v.Type().Elem()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	_, ok := t.FieldByName("Source")
	return ok
}

// TestCatalogEntries: each entry passes its own checks and gives a preset
// that Lookup finds under its name.
func TestCatalogEntries(t *testing.T) {
	for _, e := range preset.Builtin() {
		if errs := e.Check(); len(errs) > 0 {
			t.Errorf("%s: %v", e.Name, errs)
		}
		if p, ok := preset.Lookup(e.Name); !ok || p.Name != e.Name {
			t.Errorf("Lookup(%q) = %q, %v", e.Name, p.Name, ok)
		}
	}
}

func TestReadEntryErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"name: x\ncontainers: [{name: a}]\nimage: {shel: true}\n", `unknown field "image.shel"`},
		{"name: x\ncontainers: {name: a}\n", "cannot unmarshal"},
		{"name: [\n", "yaml"},
	} {
		if _, err := preset.ReadEntry([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadEntry(%q) = %v, want an error with %q", tc.in, err, tc.want)
		}
	}
}

func TestEntryCheck(t *testing.T) {
	for _, tc := range []struct {
		name  string
		entry preset.Entry
		want  string
	}{
		{"bad name", preset.Entry{Name: "Acme_Proxy", Containers: []preset.Named{{Name: "a"}}}, "name: "},
		{"none", preset.Entry{Name: "none", Containers: []preset.Named{{Name: "a"}}}, "name: "},
		{"nothing recognises it", preset.Entry{Name: "acme"}, "containers: "},
		{"tag in pattern", preset.Entry{Name: "acme", Images: []preset.ImagePattern{{Pattern: "acme/proxy:1.0"}}}, "images[0].pattern: "},
		{"bad delay", preset.Entry{Name: "acme", Containers: []preset.Named{{Name: "a"}}, Exit: &preset.Exit{Delays: []preset.Delay{{Annotation: "x", Default: "soon"}}}}, "exit.delays[0].default: "},
		{"bad minimum", preset.Entry{Name: "acme", Containers: []preset.Named{{Name: "a"}}, Exit: &preset.Exit{Delays: []preset.Delay{{Annotation: "x", Format: "boolean", Minimum: "soon"}}}}, "exit.delays[0].minimum: "},
		{"switch without key", preset.Entry{Name: "acme", Containers: []preset.Named{{Name: "a"}}, Injector: &preset.InjectorFacts{Enabled: []preset.SwitchFact{{Value: "true"}}}}, "injector.enabled[0]: "},
		{"generic dialect without annotations", preset.Entry{Name: "acme", Containers: []preset.Named{{Name: "a"}}, Injector: &preset.InjectorFacts{Annotate: "generic"}}, "injector.annotations: the generic dialect writes"},
		{"generic dialect with a field", preset.Entry{Name: "acme", Containers: []preset.Named{{Name: "a"}}, Injector: &preset.InjectorFacts{Annotate: "generic", Annotations: &preset.Annotations{Ordered: []preset.FieldValue{{Key: "acme.io/config", Field: "hold", Value: "true"}}}}}, "injector.annotations.ordered[0].field: the generic dialect writes plain annotations"},
		{"linkerd dialect without an exit delay", preset.Entry{Name: "acme", Containers: []preset.Named{{Name: "a"}}, Injector: &preset.InjectorFacts{Annotate: "linkerd", Annotations: &preset.Annotations{Ordered: []preset.FieldValue{{Key: "acme.io/await", Value: "enabled"}}, Native: &preset.KeyValue{Key: "acme.io/native", Value: "true"}}}}, "injector.annotations: the linkerd dialect writes ordered annotations"},
		{"istio dialect without a field", preset.Entry{Name: "acme", Containers: []preset.Named{{Name: "a"}}, Injector: &preset.InjectorFacts{Annotate: "istio", Record: &preset.RecordFact{Annotation: "acme.io/status"}, Annotations: &preset.Annotations{Ordered: []preset.FieldValue{{Key: "acme.io/config", Value: "true"}}, ExitDelay: &preset.KeyFormat{Key: "acme.io/config", Field: "drain"}, Native: &preset.KeyValue{Key: "acme.io/native", Value: "true"}}}}, "injector.annotations.ordered[0].field: the istio dialect writes it as a key"},
		{"istio dialect without record", preset.Entry{Name: "acme", Containers: []preset.Named{{Name: "a"}}, Injector: &preset.InjectorFacts{Annotate: "istio", Annotations: &preset.Annotations{Ordered: []preset.FieldValue{{Key: "acme.io/config", Field: "hold", Value: "true"}}, ExitDelay: &preset.KeyFormat{Key: "acme.io/config", Field: "drain"}, Native: &preset.KeyValue{Key: "acme.io/native", Value: "true"}}}}, "injector.record: "},
		{"refusal of nothing", preset.Entry{Name: "acme", Containers: []preset.Named{{Name: "a"}}, Injector: &preset.InjectorFacts{Refuses: []preset.RefusalFact{{Says: "why"}}}}, "injector.refuses[0]: give the pods"},
		{"refusal without why", preset.Entry{Name: "acme", Containers: []preset.Named{{Name: "a"}}, Injector: &preset.InjectorFacts{Refuses: []preset.RefusalFact{{HostNetwork: true}}}}, "injector.refuses[0].says: "},
		{"invalid without values", preset.Entry{Name: "acme", Containers: []preset.Named{{Name: "a"}}, Injector: &preset.InjectorFacts{Refuses: []preset.RefusalFact{{Invalid: &preset.InvalidFact{Annotation: "acme.dev/inject"}, Says: "why"}}}}, "injector.refuses[0].invalid: "},
		{"unknown dialect", preset.Entry{Name: "acme", Containers: []preset.Named{{Name: "a"}}, Injector: &preset.InjectorFacts{Annotate: "acme"}}, "injector.annotate: "},
	} {
		errs := preset.Entry.Check(tc.entry)
		if len(errs) == 0 || !strings.HasPrefix(errs[0].Error(), tc.want) {
			t.Errorf("%s: Check() = %v, want an error starting %q", tc.name, errs, tc.want)
		}
	}
}

func TestMatchImage(t *testing.T) {
	for _, tc := range []struct {
		pattern, image string
		want           bool
	}{
		{"**/linkerd/proxy", "cr.l5d.io/linkerd/proxy:edge-26.8.3", true},
		{"**/linkerd/proxy", "cr.l5d.io/linkerd/proxy@sha256:0123", true},
		{"**/linkerd/proxy", "registry.local:5000/mirror/linkerd/proxy:v2", true},
		{"**/linkerd/proxy", "linkerd/proxy", true},
		{"**/linkerd/proxy", "cr.l5d.io/linkerd/proxy-init:v2", false},
		{"**/proxyv2", "docker.io/istio/proxyv2:1.30.3-distroless", true},
		{"**/proxyv2", "proxyv2", true},
		{"gcr.io/cloud-sql-connectors/cloud-sql-proxy", "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.27.0", true},
		{"gcr.io/cloud-sql-connectors/cloud-sql-proxy", "eu.gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.27.0", false},
		{"*.gcr.io/cloud-sql-connectors/cloud-sql-proxy", "eu.gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.27.0", true},
		{"**/kumahq/kuma-dp", "docker.io/kumahq/kuma-dp:2.14.0", true},
		{"**/kumahq/kuma-dp", "kumahq/kuma-dp", true},
	} {
		if got := preset.MatchImage(tc.pattern, tc.image); got != tc.want {
			t.Errorf("MatchImage(%q, %q) = %v, want %v", tc.pattern, tc.image, got, tc.want)
		}
	}
}

// TestEndpointSwitchVariables: every variable a built-in entry's switch
// names is the one its sidecar reads for the flag, as viper does with
// SetEnvPrefix and a "-" to "_" replacer: the prefix, "_", the flag in
// upper case with "_" for "-".
func TestEndpointSwitchVariables(t *testing.T) {
	checked := 0
	for _, e := range preset.Builtin() {
		if e.Ready == nil {
			continue
		}
		endpoints := []*preset.Endpoint{e.Ready.Endpoint}
		for _, v := range e.Ready.Variants {
			endpoints = append(endpoints, v.Endpoint)
		}
		for _, ep := range endpoints {
			if ep == nil || ep.Switch == nil {
				continue
			}
			sw := ep.Switch
			for _, s := range []*preset.Setting{&sw.On, sw.Address, sw.Port} {
				if s == nil || s.Env == "" {
					continue
				}
				checked++
				if sw.Env == nil {
					t.Errorf("%s: %s names a variable, but the switch says of no environment", e.Name, s.Flag)
					continue
				}
				if want := sw.Env.Prefix + "_" + strings.ToUpper(strings.ReplaceAll(s.Flag, "-", "_")); s.Env != want {
					t.Errorf("%s: --%s is read from %s, not %s", e.Name, s.Flag, want, s.Env)
				}
			}
		}
	}
	if checked < 6 {
		t.Errorf("checked %d variables, want those of the Cloud SQL and AlloyDB proxies", checked)
	}
}
