package report_test

import (
	"strings"

	"errors"
	"testing"

	"github.com/kptdev/krm-functions-sdk/go/fn"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// TestResultsFields: every result of a log names its field from the
// item's root; the changes name the field they all lie in, a single change
// its own with its values; validate makes the changes and breaks errors.
func TestResultsFields(t *testing.T) {
	ref := &fn.ResourceRef{Kind: "Deployment", Name: "web"}
	log := report.Log{PodSpec: "spec.template.spec", PodMeta: "spec.template.metadata"}
	log.Change(report.Container("containers", "linkerd-proxy", "lifecycle", "preStop").Values(nil, 5), "added preStop")
	got := log.Results(ref, nil, false)
	if len(got) != 1 || got[0].Field == nil || got[0].Field.Path != "spec.template.spec.containers[name=linkerd-proxy].lifecycle.preStop" || got[0].Field.ProposedValue != 5 {
		t.Fatalf("one change: %+v", got[0].Field)
	}
	log.Change(report.Container("containers", "app", "lifecycle", "preStop"), "added preStop to app")
	log.Change(report.Annotation("proxy.istio.io/config"), "set annotation")
	log.Warn(report.KindHook, report.Container("containers", "app"), "warned")
	log.Breaks = append(log.Breaks, report.Finding{Kind: report.KindBudget, Severity: fn.Warning, Field: report.Pod("terminationGracePeriodSeconds"), Detail: "breaks"})
	want := []struct {
		path string
		sev  fn.Severity
	}{
		{"spec.template", fn.Error},
		{"spec.template.spec.containers[name=app]", fn.Warning},
		{"spec.template.spec.terminationGracePeriodSeconds", fn.Error},
	}
	got = log.Results(ref, nil, true)
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Field == nil || got[i].Field.Path != w.path || got[i].Severity != w.sev || got[i].ResourceRef != ref {
			t.Errorf("result %d: %+v at %+v, want %s at %s", i, got[i], got[i].Field, w.sev, w.path)
		}
		if got[i].Field.CurrentValue != nil || got[i].Field.ProposedValue != nil {
			t.Errorf("result %d: values %v, %v; want none", i, got[i].Field.CurrentValue, got[i].Field.ProposedValue)
		}
	}
	if line := report.Line(got[0]); !strings.HasPrefix(line, "Deployment web spec.template: not as configured") {
		t.Errorf("Line = %q, want it to name the resource, then the field", line)
	}
	// A message that starts with its field, or a field it lies in, is not
	// given the field again.
	for _, msg := range []string{"spec.template.spec.containers[name=app]: found a list", "spec.template: found a list"} {
		r := report.Result(report.NewFinding(report.KindFieldValue, fn.Error, report.At("spec.template.spec.containers[name=app]"), "%s", msg), ref, nil)
		if line := report.Line(r); line != "Deployment web: "+msg {
			t.Errorf("Line = %q, want the field once", line)
		}
	}
}

// typedError is an error that knows its finding.
type typedError struct{}

func (typedError) Error() string { return "spec.x: found a list" }

func (typedError) Finding() report.Finding {
	return report.Finding{Kind: report.KindFieldValue, Field: report.At("spec.x")}
}

// TestFailWith: an error that is a report.Finder keeps its kind and field;
// any other is an input error with no field.
func TestFailWith(t *testing.T) {
	var log report.Log
	log.FailWith(typedError{})
	log.FailWith(errors.New("plain"))
	if f := log.Errors[0]; f.Kind != report.KindFieldValue || f.Field.Path != "spec.x" || f.Severity != fn.Error || f.Detail != "spec.x: found a list" {
		t.Errorf("typed error: %+v", f)
	}
	if f := log.Errors[1]; f.Kind != report.KindInput || f.Field.Path != "" || f.Detail != "plain" {
		t.Errorf("plain error: %+v", f)
	}
}
