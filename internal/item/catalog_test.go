package item

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
	// NamespaceLabels are the labels of the Namespace the vendor's test
	// admits the workload in; without them the Namespace is not known.
	NamespaceLabels map[string]string `yaml:"namespaceLabels"`
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
			pod := tr.readPod(w, readPodMeta(w), preset.Meta{Labels: e.NamespaceLabels})
			pod.nsKnown = e.NamespaceLabels != nil
			p, errs := tr.newPlan(pod)
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
