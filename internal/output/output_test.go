package output

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kptdev/krm-functions-sdk/go/fn"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// TestParse: the five formats parse, another name is an error naming
// them; the report formats are sarif, junit and json.
func TestParse(t *testing.T) {
	for _, f := range Formats() {
		got, err := Parse(string(f))
		if err != nil || got != f || got.Report() != (f == SARIF || f == JUnit || f == JSON) {
			t.Errorf("Parse(%q) = %q, %v; Report %v", f, got, err, got.Report())
		}
	}
	if _, err := Parse("xml"); err == nil || err.Error() != `unknown output format "xml"; use one of text, github, sarif, junit, json` {
		t.Errorf("Parse(xml): %v", err)
	}
}

// TestLogicalName: a result's logical location is namespace/Kind/name and
// the container its field lies in, without the parts it has not; a config
// field's is its path.
func TestLogicalName(t *testing.T) {
	ref := &fn.ResourceRef{Kind: "Deployment", Namespace: "shop", Name: "web"}
	for _, tc := range []struct {
		r    *fn.Result
		want string
	}{
		{&fn.Result{ResourceRef: ref}, "shop/Deployment/web"},
		{&fn.Result{ResourceRef: ref, Field: &fn.Field{Path: "spec.template.spec.containers[name=linkerd-proxy].lifecycle"}}, "shop/Deployment/web/linkerd-proxy"},
		{&fn.Result{ResourceRef: ref, Field: &fn.Field{Path: "spec.template.spec.initContainers[name=istio-proxy]"}}, "shop/Deployment/web/istio-proxy"},
		{&fn.Result{ResourceRef: &fn.ResourceRef{Kind: "Pod", Name: "p"}, Field: &fn.Field{Path: "spec.containers[name=app].ports"}}, "Pod/p/app"},
		{&fn.Result{Field: &fn.Field{Path: "spec.sidecars[1].startupProbe"}}, "spec.sidecars[1].startupProbe"},
		{&fn.Result{}, ""},
	} {
		if got := logicalName(tc.r); got != tc.want {
			t.Errorf("logicalName(%+v) = %q, want %q", tc.r, got, tc.want)
		}
	}
}

// TestFingerprint: a fingerprint is the same for the same kind, logical
// location and field, and differs when any of them does.
func TestFingerprint(t *testing.T) {
	base := fingerprint(report.KindHook, "shop/Deployment/web/app", "spec.x")
	if base != fingerprint(report.KindHook, "shop/Deployment/web/app", "spec.x") || len(base) != 32 {
		t.Errorf("fingerprint %q is not stable, or not 32 hex digits", base)
	}
	for _, other := range []string{
		fingerprint(report.KindEdit, "shop/Deployment/web/app", "spec.x"),
		fingerprint(report.KindHook, "shop/Deployment/api/app", "spec.x"),
		fingerprint(report.KindHook, "shop/Deployment/web/app", "spec.y"),
		fingerprint(report.KindHook, "shop/Deployment/web/ap", "pspec.x"),
	} {
		if other == base {
			t.Errorf("fingerprint %q for another finding", other)
		}
	}
}

// TestRuleNames: every rule's name differs from its id, as SARIF asks.
func TestRuleNames(t *testing.T) {
	for _, k := range report.Kinds() {
		if name := ruleName(k); strings.EqualFold(name, string(k)) || !strings.HasPrefix(name, "Sidecar") || strings.Contains(name, "-") {
			t.Errorf("rule name of %s: %q", k, name)
		}
	}
	if got := ruleName(report.KindGracePeriod); got != "SidecarGracePeriod" {
		t.Errorf("ruleName(grace-period) = %q", got)
	}
}

// TestArtifactURI: a relative file is an escaped relative reference, an
// absolute one a file: URI.
func TestArtifactURI(t *testing.T) {
	for file, want := range map[string]string{
		"k8s/app.yaml":       "k8s/app.yaml",
		"k8s/my app#1.yaml":  "k8s/my%20app%231.yaml",
		"/tmp/k8s/app.yaml":  "file:///tmp/k8s/app.yaml",
		"base/../x/app.yaml": "base/../x/app.yaml",
	} {
		if got := artifactURI(file); got != want {
			t.Errorf("artifactURI(%q) = %q, want %q", file, got, want)
		}
	}
}

// TestKindOfResults: a result's kind is its tag; the closing results
// carry theirs too; a result without one is about the input.
func TestKindOfResults(t *testing.T) {
	tagged := report.Result(report.NewFinding(report.KindHook, fn.Warning, report.At("spec"), "x"), nil, nil)
	closing := report.Result(report.NewFinding(report.KindBudget, fn.Warning, report.Field{}, "x"), &fn.ResourceRef{Kind: "Service", Name: "web"}, nil)
	for _, tc := range []struct {
		r    *fn.Result
		want report.Kind
	}{
		{tagged, report.KindHook},
		{closing, report.KindBudget},
		{&fn.Result{}, report.KindInput},
	} {
		if got := (Finding{Result: tc.r}).Kind(); got != tc.want {
			t.Errorf("kind of %+v: %s, want %s", tc.r, got, tc.want)
		}
	}
}

// TestJSONKeepsResults: the JSON report is {"results": [...]}, each result
// a copy with its kind and line in its tags and its input file; the
// results given are not changed. No finding is an empty list, not null.
func TestJSONKeepsResults(t *testing.T) {
	r := report.Result(report.NewFinding(report.KindHook, fn.Warning, report.At("spec"), "x"), &fn.ResourceRef{Kind: "Pod", Name: "p"}, nil)
	var buf bytes.Buffer
	if err := Write(&buf, JSON, Run{Findings: []Finding{{Result: r, File: "k8s/p.yaml", Line: 3}}}); err != nil {
		t.Fatal(err)
	}
	var got struct{ Results []fn.Result }
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil || len(got.Results) != 1 {
		t.Fatalf("%v:\n%s", err, buf.String())
	}
	if g := got.Results[0]; g.Tags["kind"] != "hook" || g.Tags[LineTag] != "3" || g.File == nil || g.File.Path != "k8s/p.yaml" {
		t.Errorf("result %+v", g)
	}
	if r.File != nil || r.Tags[LineTag] != "" {
		t.Errorf("the result given was changed: %+v", r)
	}
	buf.Reset()
	if err := Write(&buf, JSON, Run{}); err != nil || strings.TrimSpace(buf.String()) != "{\n  \"results\": []\n}" {
		t.Errorf("no finding: %v, %q", err, buf.String())
	}
	if err := Write(&buf, Text, Run{}); err == nil {
		t.Error("Write(text) is no error")
	}
}
