package driver_test

import (
	"os"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// TestRunPlainBudget: a plain stream gets the termination budget's closing
// checks too: the Ingress's delay is a warning, an error with validate.
func TestRunPlainBudget(t *testing.T) {
	items, err := os.ReadFile("testdata/budget-issue-case/items.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := os.ReadFile("testdata/budget-issue-case/config.yaml")
	for _, action := range []string{"mutate", "validate"} {
		config := strings.Replace(string(cfg), "spec:\n", "spec:\n  action: "+action+"\n", 1)
		_, diags, err := runPlain(t, config, string(items))
		var found bool
		for _, d := range diags {
			if strings.Contains(report.Line(d), "Ingress shop/myapp → Service shop/myapp keeps sending to Deployment shop/myapp for 300s") {
				found = true
				if want := map[string]string{"mutate": "warning", "validate": "error"}[action]; string(d.Severity) != want {
					t.Errorf("%s: severity %s, want %s", action, d.Severity, want)
				}
			}
		}
		if !found {
			t.Errorf("%s: no load balancer diagnostic in %+v", action, diags)
		}
		if (err != nil) != (action == "validate") {
			t.Errorf("%s: error %v", action, err)
		}
	}
}

// TestAutoPastMaxDelay: auto from an application preStop near the int64
// limit is an error naming the maximum, not an overflow.
func TestAutoPastMaxDelay(t *testing.T) {
	cfg := "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec:\n  sidecars: [{name: proxy, waitBeforeExit: auto}]\n"
	doc := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: proxy, image: p}\n  - {name: app, image: a, lifecycle: {preStop: {exec: {command: [sleep, \"9223372036854775800\"]}}}}\n"
	_, diags, err := runPlain(t, cfg, doc)
	if err == nil || len(diags) == 0 || !strings.Contains(report.Line(diags[0]), "waitBeforeExit auto: 9223372036854775805s") || !strings.Contains(report.Line(diags[0]), "longer than the maximum 24h; shorten the application's preStop, or give waitBeforeExit a duration") {
		t.Errorf("error %v, diagnostics %+v", err, diags)
	}
}
