package ordered_test

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// filterCase is one run of a filter over one pod spec.
type filterCase struct {
	name string
	// spec is the pod spec, parsed with yaml.Parse.
	spec string
	// filter builds the filter under test around the log.
	filter func(log *report.Log) kio.Filter
	// want is the exact output; empty to skip the check.
	want string
	// unchanged asks for the output to equal kyaml's round trip of spec.
	unchanged bool
	// inOrder are substrings the output must contain, in this order.
	inOrder []string
	// absent are substrings the output must not contain.
	absent []string
	// changes, warnings and errors are substrings of the log entries, one
	// per entry: the log must have exactly that many.
	changes, warnings, errors []string
}

func (tc filterCase) run(t *testing.T) {
	t.Helper()
	spec := krmtest.Parse(t, tc.spec)
	before := spec.MustString()
	log := &report.Log{}
	out, err := tc.filter(log).Filter([]*yaml.RNode{spec})
	if err != nil {
		t.Fatalf("Filter: %v", err)
	}
	if len(out) != 1 || out[0] != spec {
		t.Fatalf("Filter returned %d nodes, want the input spec", len(out))
	}
	got := spec.MustString()
	if tc.want != "" && got != tc.want {
		t.Errorf("output:\n%s\nwant:\n%s", got, tc.want)
	}
	if tc.unchanged && got != before {
		t.Errorf("output changed:\n%s\nwant:\n%s", got, before)
	}
	rest := got
	for _, s := range tc.inOrder {
		i := strings.Index(rest, s)
		if i < 0 {
			t.Errorf("output lacks %q (in this order: %q):\n%s", s, tc.inOrder, got)
			break
		}
		rest = rest[i+len(s):]
	}
	for _, s := range tc.absent {
		if strings.Contains(got, s) {
			t.Errorf("output contains %q:\n%s", s, got)
		}
	}
	krmtest.CheckLog(t, "changes", log.Changes, tc.changes)
	krmtest.CheckLog(t, "warnings", log.Warnings, tc.warnings)
	krmtest.CheckLog(t, "errors", log.Errors, tc.errors)
}
