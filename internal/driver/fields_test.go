package driver_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
)

// TestResultsNameTheirField: every result of the golden cases and the
// vendor corpus about a workload names the field it is about (fn.Result.Field) with a path. The
// results about no workload are the closing ones, which carry no field:
// the summary, the owners a workload was left to, a shared warning said of
// several workloads, the termination budget's notes across items, and
// those about a Service or an Ingress (its load balancer). An error about a
// whole item (report.KindInput without a field: aliases past the bounds, a
// List that cannot be edited) names none either; no golden case has one.
func TestResultsNameTheirField(t *testing.T) {
	files, err := filepath.Glob("testdata/*/results.yaml")
	vendor, vendorErr := filepath.Glob("testdata/vendor/*/results-*.yaml")
	if err != nil || vendorErr != nil || len(files) == 0 || len(vendor) == 0 {
		t.Fatalf("no golden results: %v, %v", err, vendorErr)
	}
	files = append(files, vendor...)
	checked := 0
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var results fn.Results
		if err := yaml.Unmarshal(b, &results); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, r := range results {
			if r.ResourceRef == nil || !workload.IsKind(r.ResourceRef.APIVersion, r.ResourceRef.Kind, nil) {
				continue
			}
			checked++
			if r.Field == nil || r.Field.Path == "" {
				t.Errorf("%s: a result about %s %s names no field: %s", path, r.ResourceRef.Kind, r.ResourceRef.Name, r.Message)
			}
		}
	}
	if checked < 100 {
		t.Errorf("checked %d workload results, want the golden cases' (over 100)", checked)
	}
}
