package engine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
)

// expectation is one workload of a vendor corpus and what recognition must
// find in it (driver/testdata/catalog/<entry>/expect.yaml).
type expectation struct {
	File     string `yaml:"file"`
	Kind     string `yaml:"kind"`
	Name     string `yaml:"name"`
	Sidecars []struct {
		Name   string `yaml:"name"`
		Preset string `yaml:"preset"`
		By     string `yaml:"by"`
	} `yaml:"sidecars"`
	Native bool `yaml:"native"`
	// Applications are the containers a preset recognises that are the
	// pod's application, not a sidecar of it.
	Applications []string `yaml:"applications"`
}

// byWords are what a recognition says, by the expectation's word for it.
var byWords = map[string]string{"container": "its container name", "image": "its image ", "annotation": "(added at admission)"}

// TestCatalogCorpora: with an empty config, every workload of the vendors'
// own manifests (copied byte for byte, sources in each SOURCES.md) has
// exactly the sidecars its expect.yaml names recognised, by what it names,
// and the containers it names as the pod's applications found to be so.
func TestCatalogCorpora(t *testing.T) {
	dirs, err := filepath.Glob("../driver/testdata/catalog/*/expect.yaml")
	if err != nil || len(dirs) < 10 {
		t.Fatalf("found %d corpora: %v", len(dirs), err)
	}
	tr := New(krmtest.Config(t, ""))
	checked := 0
	for _, expectPath := range dirs {
		dir := filepath.Dir(expectPath)
		var expect []expectation
		data, err := os.ReadFile(expectPath)
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(data, &expect); err != nil {
			t.Fatalf("%s: %v", expectPath, err)
		}
		for _, e := range expect {
			w := corpusWorkload(t, filepath.Join(dir, e.File), e.Kind, e.Name)
			if w == nil {
				continue
			}
			p, errs := tr.newPlan(w, preset.Meta{})
			if len(errs) > 0 {
				t.Errorf("%s %s/%s: %v", e.File, e.Kind, e.Name, errs)
				continue
			}
			var got []string
			for _, sc := range p.sidecars {
				if sc.recognisedBy != "" {
					got = append(got, sc.Name+" ("+sc.preset.Name+") by "+sc.recognisedBy)
				}
			}
			if !slices.Equal(p.applications, e.Applications) {
				t.Errorf("%s: %s %s: applications %q, want %q", dir, e.Kind, e.Name, p.applications, e.Applications)
			}
			if len(got) != len(e.Sidecars) {
				t.Errorf("%s: %s %s: recognised %q, want %d sidecars", dir, e.Kind, e.Name, got, len(e.Sidecars))
				continue
			}
			for i, want := range e.Sidecars {
				prefix := want.Name + " (" + want.Preset + ") by "
				if !strings.HasPrefix(got[i], prefix) || !strings.Contains(got[i], byWords[want.By]) {
					t.Errorf("%s: %s %s: recognised %q, want %s by %s", dir, e.Kind, e.Name, got[i], prefix, want.By)
				}
			}
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("checked %d workloads", checked)
	}
}

// corpusWorkload returns the workload of the kind and name in a corpus file.
func corpusWorkload(t *testing.T, path, kind, name string) *workload.Workload {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	items, err := (&kio.ByteReader{Reader: f, OmitReaderAnnotations: true}).Read()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, item := range items {
		if item.GetKind() != kind || item.GetName() != name {
			continue
		}
		if w, ok := workload.Find(item, nil); ok {
			return w
		}
	}
	t.Errorf("%s: no workload %s %q", path, kind, name)
	return nil
}

// TestAdmittedUnordered: with no sidecars listed, a sidecar its injector
// adds that the function cannot ask to order in the mode is a warning naming
// what recognised it (Dapr writes no hold annotation); in native mode a
// native sidecar its injector writes without a startupProbe is a warning
// (Dapr's); one the function can ask for is annotated for (Kuma's
// wait-for-dataplane-ready), and the info result says so.
func TestAdmittedUnordered(t *testing.T) {
	for _, tc := range []struct{ file, want, also, severity, mode string }{
		{"../driver/testdata/catalog/dapr/hellodapr-service.yaml", `daprd (dapr), recognised by annotation dapr.io/enabled: "true" on the pod template (added at admission): the function cannot ask its injector to order it`, "", "warning", ""},
		{"../driver/testdata/catalog/dapr/hellodapr-service.yaml", `daprd (dapr): its injector writes the native sidecar without a startupProbe`, "", "warning", "native"},
		{"../driver/testdata/catalog/kuma/inject.10.input.yaml", `recognised kuma-sidecar (kuma) by label kuma.io/sidecar-injection: "enabled" on the pod template (added at admission); `,
			`set annotation kuma.io/wait-for-dataplane-ready: "true"`, "info", ""},
	} {
		f, err := os.Open(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		items, err := (&kio.ByteReader{Reader: f, OmitReaderAnnotations: true}).Read()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		cfg := ""
		if tc.mode != "" {
			cfg = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: c}\nspec: {mode: " + tc.mode + "}\n"
		}
		_, results := New(krmtest.Config(t, cfg)).Start().Transform(items)
		found := false
		for _, r := range results {
			found = found || (string(r.Severity) == tc.severity && strings.HasPrefix(r.Message, tc.want) && strings.Contains(r.Message, tc.also))
		}
		if !found {
			t.Errorf("%s: no %s starting %q in %v", tc.file, tc.severity, tc.want, results)
		}
	}
}
