package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	krm "github.com/kptdev/krm-functions-sdk/go/fn"
)

// twoDocuments is a ConfigMap, then on line 7 a Deployment whose Linkerd
// proxy is not in front.
const twoDocuments = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata: {a: b}\n---\n" + plainDeployment

// jsonReport parses a JSON report.
func jsonReport(t *testing.T, text string) krm.Results {
	t.Helper()
	var rep struct {
		Results krm.Results `json:"results"`
	}
	if err := json.Unmarshal([]byte(text), &rep); err != nil {
		t.Fatalf("the JSON report does not parse: %v\n%s", err, text)
	}
	return rep.Results
}

// kinds are the kind tags of results, in order.
func kinds(results krm.Results) []string {
	var out []string
	for _, r := range results {
		out = append(out, string(r.Severity)+" "+r.Tags["kind"])
	}
	return out
}

// TestOutputJSON: --output=json writes the results in kpt's shape with
// the kind of each and, in a plain stream, its file and line; to stdout,
// which then carries no manifests, or with --output-file to a file while
// stdout carries the manifests. The ResourceList form writes it too.
func TestOutputJSON(t *testing.T) {
	dir := writeFiles(t, map[string]string{"k8s/app.yaml": twoDocuments})
	app := filepath.Join(dir, "k8s", "app.yaml")

	r := runWith([]string{"validate", "--output=json", app}, "", nil)
	results := jsonReport(t, r.stdout)
	if r.code != 1 || strings.Join(kinds(results), ", ") != "error edit, info summary" {
		t.Fatalf("validate --output=json: code %d, results %q, want the error and the summary; stderr %q", r.code, kinds(results), r.stderr)
	}
	got := results[0]
	if got.Severity != krm.Error || got.Tags["kind"] != "edit" || got.Tags["line"] != "7" ||
		got.File == nil || got.File.Path != app || got.ResourceRef == nil || got.ResourceRef.Name != "web" ||
		got.Field == nil || got.Field.Path != "spec.template.spec" {
		t.Errorf("validate --output=json: result %+v (file %+v), want an error of kind edit at %s line 7, field spec.template.spec", got, got.File, app)
	}
	if !strings.Contains(r.stderr, "app.yaml:7: Deployment web spec.template.spec: not as configured") {
		t.Errorf("validate --output=json: stderr %q, want its lines still", r.stderr)
	}

	report := filepath.Join(dir, "report.json")
	m := runWith([]string{"mutate", "--output", "json", "--output-file", report, app}, "", nil)
	written, err := os.ReadFile(report)
	if m.code != 0 || err != nil || !strings.Contains(m.stdout, "postStart") || !strings.Contains(m.stdout, "kind: ConfigMap") {
		t.Fatalf("mutate --output-file: code %d, %v, stderr %q, stdout:\n%s", m.code, err, m.stderr, m.stdout)
	}
	// The infos too: the changes made, at the workload's line, and the
	// summary; stderr shows no info.
	results = jsonReport(t, string(written))
	if strings.Join(kinds(results), ", ") != "info edit, info summary" || results[0].Tags["line"] != "7" || !strings.Contains(results[0].Message, "postStart") {
		t.Errorf("mutate --output-file: results %q, want the changes at line 7 and the summary: %s", kinds(results), written)
	}
	if m.stderr != "" {
		t.Errorf("mutate --output-file: stderr %q, want nothing (infos are the report's)", m.stderr)
	}

	dash := runWith([]string{"mutate", "--output=json", "--output-file=-", app}, "", nil)
	if dash.code != 0 || strings.Contains(dash.stdout, "kind: ConfigMap") || len(jsonReport(t, dash.stdout)) != 2 {
		t.Errorf("mutate --output-file=-: code %d, want the report alone on stdout:\n%s", dash.code, dash.stdout)
	}

	// A failed run writes no change: its report lists none.
	broken := writeFiles(t, map[string]string{"app.yaml": twoDocuments + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: twice, name: again}\n"})
	f := runWith([]string{"mutate", "--output=json", filepath.Join(broken, "app.yaml")}, "", nil)
	if got := strings.Join(kinds(jsonReport(t, f.stdout)), ", "); f.code != 1 || strings.Contains(got, "info edit") || !strings.Contains(got, "error input") {
		t.Errorf("a failed mutate: code %d, results %q, want the error and no change listed; stderr %q", f.code, got, f.stderr)
	}

	in := listHead + "items:\n" + deployment("{containers: [{name: web}, {name: linkerd-proxy}]}") + "functionConfig: {apiVersion: fn.sidecar-lifecycle.dev/v1alpha1, kind: SidecarLifecycle, spec: {action: validate}}\n"
	l := runWith([]string{"--output=json"}, in, nil)
	results = jsonReport(t, l.stdout)
	if l.code != 1 || len(results) != 2 || results[0].Tags["kind"] != "edit" || results[0].ResourceRef.Namespace != "shop" {
		t.Errorf("ResourceList --output=json: code %d, results %+v, stdout:\n%s", l.code, results, l.stdout)
	}
}

// TestOutputEnvironment: SIDECAR_LIFECYCLE_OUTPUT and
// SIDECAR_LIFECYCLE_OUTPUT_FILE stand for the flags, each for its own;
// the flags win.
func TestOutputEnvironment(t *testing.T) {
	dir := writeFiles(t, map[string]string{"app.yaml": plainDeployment})
	report := filepath.Join(dir, "report.json")
	t.Setenv(outputEnv, "json")
	t.Setenv(outputFileEnv, report)
	r := runWith([]string{"validate", filepath.Join(dir, "app.yaml")}, "", nil)
	written, err := os.ReadFile(report)
	if r.code != 1 || err != nil || len(jsonReport(t, string(written))) != 2 || r.stdout != "" { // the error, the summary
		t.Errorf("from the environment: code %d, %v, stdout %q, report %s", r.code, err, r.stdout, written)
	}
	if r := runWith([]string{"validate", "--output=text", filepath.Join(dir, "app.yaml")}, "", nil); r.code != 1 || r.stdout != "" || !strings.HasPrefix(r.stderr, "sidecar-lifecycle: error:") {
		t.Errorf("--output=text over the environment: code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	other := filepath.Join(dir, "other.json")
	if r := runWith([]string{"validate", "--output=sarif", "--output-file", other, filepath.Join(dir, "app.yaml")}, "", nil); r.code != 1 || r.stdout != "" {
		t.Errorf("--output=sarif --output-file over the environment: code %d, stdout %q", r.code, r.stdout)
	}
	if text, err := os.ReadFile(other); err != nil || !strings.Contains(string(text), `"version": "2.1.0"`) {
		t.Errorf("--output=sarif --output-file over the environment wrote %v:\n%s", err, text)
	}
}

// TestOutputGitHub: --output=github writes workflow commands, and
// --output=text plain lines under GITHUB_ACTIONS=true.
func TestOutputGitHub(t *testing.T) {
	dir := writeFiles(t, map[string]string{"app.yaml": twoDocuments})
	app := filepath.Join(dir, "app.yaml")
	if r := runWith([]string{"validate", "--output=github", app}, "", nil); r.code != 1 || !strings.HasPrefix(r.stderr, "::error file="+app+",line=7::") {
		t.Errorf("--output=github: code %d, stderr %q", r.code, r.stderr)
	}
	if r := runWith([]string{"validate", "--output=text", app}, "", map[string]string{"GITHUB_ACTIONS": "true"}); r.code != 1 || !strings.HasPrefix(r.stderr, "sidecar-lifecycle: error: ") {
		t.Errorf("--output=text under GITHUB_ACTIONS: code %d, stderr %q", r.code, r.stderr)
	}
}

// TestOutputBadValues: a bad format, a missing value, a flag given twice,
// --output-file without a report and the output flags with explain are
// one line on stderr and exit 1, with nothing on stdout.
func TestOutputBadValues(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  string
		err  string
	}{
		{[]string{"validate", "--output=xml"}, "", `unknown output format "xml"; use one of text, github, sarif, junit, json`},
		{[]string{"validate", "--output"}, "", "--output needs a value"},
		{[]string{"validate", "--output="}, "", "--output needs a value"},
		{[]string{"validate", "--output=json", "--output=sarif"}, "", "--output is given twice"},
		{[]string{"validate", "--output-file=r.json"}, "", "--output-file needs a report format"},
		{[]string{"validate", "--output=text", "--output-file=r.json"}, "", "--output-file takes a report, not --output=text"},
		{[]string{"explain", "--output=json"}, "", "explain takes no --output"},
		{[]string{"--output=xml"}, "", `unknown output format "xml"`},
		{[]string{"validate"}, "xml", outputEnv + `: unknown output format "xml"`},
	} {
		t.Setenv(outputEnv, tc.env)
		r := runWith(tc.args, plainDeployment, nil)
		if r.code != 1 || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, tc.err) {
			t.Errorf("%q (env %q): code %d, stdout %q, stderr %q; want one line with %q", tc.args, tc.env, r.code, r.stdout, r.stderr, tc.err)
		}
	}
}

// TestOutputListsSharedWarningsForEachWorkload: a warning the catalog
// alone decides is one line on stderr, with the count, and in a report
// one entry for each workload, at its line.
func TestOutputListsSharedWarningsForEachWorkload(t *testing.T) {
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: web-%d, namespace: shop}\nspec:\n  containers: [{name: app}, {name: log-shipper, image: fluent/fluent-bit}]\n"
	stream := fmt.Sprintf(pod, 0) + "---\n" + fmt.Sprintf(pod, 1) + "---\n" + fmt.Sprintf(pod, 2)
	dir := writeFiles(t, map[string]string{"pods.yaml": stream})
	r := runWith([]string{"mutate", "--output=json", "--output-file=-", filepath.Join(dir, "pods.yaml")}, "", nil)
	if n := strings.Count(r.stderr, "has no wait command"); r.code != 0 || n != 1 || !strings.Contains(r.stderr, "(3 workloads: ") {
		t.Fatalf("code %d, stderr says the shared warning %d times, want once with the count:\n%s", r.code, n, r.stderr)
	}
	var lines []string
	for _, res := range jsonReport(t, r.stdout) {
		if strings.Contains(res.Message, "has no wait command") {
			if res.ResourceRef == nil || strings.Contains(res.Message, "workloads: ") {
				t.Errorf("a report entry %+v, want one about a workload", res)
				continue
			}
			lines = append(lines, res.ResourceRef.Name+":"+res.Tags["line"])
		}
	}
	if got := strings.Join(lines, " "); got != "web-0:1 web-1:7 web-2:13" {
		t.Errorf("the report lists the shared warning at %q, want each Pod at its line", got)
	}
}
