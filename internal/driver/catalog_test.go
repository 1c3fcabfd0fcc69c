package driver_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
)

// catalogConfigs are the functionConfigs every vendor corpus runs through:
// none (recognition with zero config), ordered, native and validate.
var catalogConfigs = map[string]string{
	"no config": "",
	"ordered":   "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: c}\nspec: {mode: ordered, kubernetesVersion: \"1.29\"}\n",
	"native":    "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: c}\nspec: {mode: native}\n",
	"validate":  "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: c}\nspec: {action: validate}\n",
}

// TestCatalogCorpusInvariants runs every file of the vendors' own corpora
// (testdata/catalog/<entry>, byte for byte from their repositories) through
// each of catalogConfigs and checks the invariants of every run: strict
// output, nothing lost, an error leaves the items as they came, the second
// run changes nothing and reports no change, the edited workloads decode
// into their k8s.io/api types. What recognition finds in each workload is
// TestCatalogCorpora's (package transformer).
func TestCatalogCorpusInvariants(t *testing.T) {
	files, err := filepath.Glob("testdata/catalog/*/*.y*ml")
	if err != nil {
		t.Fatal(err)
	}
	runs := 0
	for _, path := range files {
		if filepath.Base(path) == "expect.yaml" {
			continue
		}
		items, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for name, cfg := range catalogConfigs {
			t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path)+"/"+name, func(t *testing.T) {
				rl, err := krmtest.ResourceList(items, []byte(cfg))
				if err != nil {
					t.Fatal(err)
				}
				if problem := checkRun(rl); problem != "" {
					t.Error(problem)
				}
				out, _ := run(t, rl)
				for _, e := range krmtest.Check(rl, out) {
					t.Error(e)
				}
			})
			runs++
		}
	}
	if runs < 80 {
		t.Errorf("%d runs", runs)
	}
}
