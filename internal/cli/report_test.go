package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/output"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// The report checkers: Microsoft's SARIF multitool and junit2json, at the
// versions of testdata/reports/package-lock.json, and the OASIS SARIF
// 2.1.0 schema, which `make tools` installs into bin/reports and
// bin/sarif-schema-2.1.0.json.
const (
	reportsFiles = "testdata/reports"
	reportsDir   = "../../bin/reports"
	sarifSchema  = "../../bin/sarif-schema-2.1.0.json"
)

// reportTools returns the directory of the report checkers. Without node,
// or without an installation of the current lock file or the schema, the
// test is skipped, and fails under CI (CI=true), which must run it.
func reportTools(t *testing.T) string {
	t.Helper()
	problem := ""
	want, err := os.ReadFile(filepath.Join(reportsFiles, "package-lock.json"))
	have, errHave := os.ReadFile(filepath.Join(reportsDir, "package-lock.json"))
	_, errSchema := os.Stat(sarifSchema)
	switch {
	case err != nil:
		problem = err.Error()
	case exec.Command("node", "--version").Run() != nil:
		problem = "node is not on PATH: install Node.js (20 or later), then run make tools"
	case errHave != nil || !bytes.Equal(have, want) || errSchema != nil:
		problem = "the report checkers of " + reportsFiles + " or the SARIF schema are not installed in ../../bin: run make tools"
	}
	if problem != "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(problem)
		}
		t.Skip(problem + "; skipped outside CI")
	}
	abs, err := filepath.Abs(reportsDir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// shopManifests are a ConfigMap, a Deployment shop/web at line 8 whose
// Linkerd proxy keeps a postStart of its own (a hook warning about the
// container) and a Job shop/migrate at line 26 (a placement warning):
// both are not as configured.
const shopManifests = `# the shop's workloads
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  template:
    spec:
      containers:
      - name: web
        image: web
      - name: linkerd-proxy
        image: cr.l5d.io/linkerd/proxy:stable
        lifecycle:
          postStart:
            exec:
              command: ["/bin/true"]
---
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  namespace: shop
spec:
  template:
    spec:
      containers:
      - name: migrate
        image: migrate
      - name: linkerd-proxy
        image: cr.l5d.io/linkerd/proxy:stable
`

// sarifLog is the part of a SARIF log the tests read.
type sarifLog struct {
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name, Version, InformationURI string
				Rules                         []struct {
					ID                   string
					ShortDescription     struct{ Text string }
					FullDescription      struct{ Text string }
					HelpURI              string
					DefaultConfiguration struct{ Level string }
				}
			}
		}
		Results []sarifResult
	}
}

// sarifResult is one result of a SARIF log.
type sarifResult struct {
	RuleID    string
	RuleIndex int
	Level     string
	Message   struct{ Text string }
	Locations []struct {
		PhysicalLocation *struct {
			ArtifactLocation struct{ URI string }
			Region           struct{ StartLine int }
		}
		LogicalLocations []struct{ FullyQualifiedName, Kind string }
	}
	PartialFingerprints map[string]string
	Properties          map[string]any
}

// readSARIF parses a SARIF log.
func readSARIF(t *testing.T, text []byte) sarifLog {
	t.Helper()
	var log sarifLog
	if err := json.Unmarshal(text, &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("the SARIF log does not parse as one run (%v):\n%s", err, text)
	}
	return log
}

// where is a result's file, line and logical location.
func (r sarifResult) where() (uri string, line int, logical string) {
	if len(r.Locations) != 1 {
		return "", 0, ""
	}
	loc := r.Locations[0]
	if loc.PhysicalLocation != nil {
		uri, line = loc.PhysicalLocation.ArtifactLocation.URI, loc.PhysicalLocation.Region.StartLine
	}
	if len(loc.LogicalLocations) == 1 {
		logical = loc.LogicalLocations[0].FullyQualifiedName
	}
	return uri, line, logical
}

// TestOutputSARIF: validate --output=sarif over files writes one rule
// per kind of finding, and a result per warning and error with its level,
// its file relative to the workspace and the line of its resource, its
// logical location namespace/Kind/name/container and a fingerprint that
// does not move with the line.
func TestOutputSARIF(t *testing.T) {
	dir := writeFiles(t, map[string]string{"k8s/app.yaml": shopManifests})
	env := map[string]string{"GITHUB_WORKSPACE": dir}
	file := filepath.Join(dir, "results.sarif")
	r := runWith([]string{"validate", "--output=sarif", "--output-file=" + file, filepath.Join(dir, "k8s")}, "", env)
	text, err := os.ReadFile(file)
	if r.code != 1 || err != nil || r.stdout != "" || !strings.Contains(r.stderr, "app.yaml:8: Deployment shop/web") {
		t.Fatalf("validate --output=sarif: code %d, %v, stdout %q, stderr %q", r.code, err, r.stdout, r.stderr)
	}
	log := readSARIF(t, text)
	driver := log.Runs[0].Tool.Driver
	if log.Version != "2.1.0" || driver.Name != "sidecar-lifecycle" || driver.Version != Version() || driver.InformationURI != output.Project {
		t.Errorf("SARIF %s, driver %s %s %s", log.Version, driver.Name, driver.Version, driver.InformationURI)
	}
	var ids []report.Kind
	for _, rule := range driver.Rules {
		ids = append(ids, report.Kind(rule.ID))
		k := report.Kind(rule.ID)
		if rule.ShortDescription.Text != k.Title() || rule.FullDescription.Text == "" || rule.HelpURI != output.HelpURI(k) ||
			!strings.HasSuffix(rule.HelpURI, "/docs/results.md#kind-"+rule.ID) || rule.DefaultConfiguration.Level == "" {
			t.Errorf("rule %+v", rule)
		}
	}
	if !slices.Equal(ids, report.Kinds()) {
		t.Errorf("rules %q, want one per kind: %q", ids, report.Kinds())
	}

	type want struct {
		rule, level, uri string
		line             int
		logical          string
	}
	wants := []want{
		{"edit", "error", "k8s/app.yaml", 8, "shop/Deployment/web"},
		{"hook", "warning", "k8s/app.yaml", 8, "shop/Deployment/web/linkerd-proxy"},
		{"edit", "error", "k8s/app.yaml", 26, "shop/Job/migrate"},
		{"placement", "warning", "k8s/app.yaml", 26, "shop/Job/migrate"},
	}
	results := log.Runs[0].Results
	if len(results) != len(wants) {
		t.Fatalf("%d results, want %d (the summary is the JSON report's alone):\n%s", len(results), len(wants), text)
	}
	prints := map[string]bool{}
	for i, w := range wants {
		res := results[i]
		uri, line, logical := res.where()
		if res.RuleID != w.rule || driver.Rules[res.RuleIndex].ID != w.rule || res.Level != w.level || uri != w.uri || line != w.line || logical != w.logical ||
			!strings.HasPrefix(res.Message.Text, strings.Split(logical, "/")[1]+" shop/") {
			t.Errorf("result %d: %s (rule %d) %s at %s:%d %s, message %q; want %+v", i, res.RuleID, res.RuleIndex, res.Level, uri, line, logical, res.Message.Text, w)
		}
		print := res.PartialFingerprints[output.FingerprintKey]
		if print == "" || prints[print] {
			t.Errorf("result %d: fingerprint %q, empty or not unique", i, print)
		}
		prints[print] = true
	}
	if field := results[1].Properties["field"]; field != "spec.template.spec.containers[name=linkerd-proxy].lifecycle.postStart" {
		t.Errorf("the hook warning's field: %v", field)
	}

	// Again, with two lines more above: the lines move, the fingerprints
	// do not.
	if err := os.WriteFile(filepath.Join(dir, "k8s/app.yaml"), []byte("# moved\n# down\n"+shopManifests), 0o644); err != nil {
		t.Fatal(err)
	}
	runWith([]string{"validate", "--output=sarif", "--output-file=" + file, filepath.Join(dir, "k8s")}, "", env)
	again, _ := os.ReadFile(file)
	for i, res := range readSARIF(t, again).Runs[0].Results {
		_, line, _ := res.where()
		if before := results[i]; res.PartialFingerprints[output.FingerprintKey] != before.PartialFingerprints[output.FingerprintKey] || line != wants[i].line+2 {
			t.Errorf("second run, result %d: fingerprint %v at line %d; want %v at line %d", i, res.PartialFingerprints, line, before.PartialFingerprints, wants[i].line+2)
		}
	}
}

// TestOutputSARIFResourceList: in the ResourceList form a result's
// physical location is the file kpt's or kustomize's path annotation
// names, at line 1 (the orchestrator gives no line), and the report goes
// to stdout in place of the ResourceList.
func TestOutputSARIFResourceList(t *testing.T) {
	in := listHead + "items:\n" +
		"- {apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: shop, annotations: {config.kubernetes.io/path: k8s/web.yaml, config.kubernetes.io/index: '1'}}, spec: {template: {spec: {containers: [{name: web}, {name: linkerd-proxy}]}}}}\n" +
		"functionConfig: {apiVersion: fn.sidecar-lifecycle.dev/v1alpha1, kind: SidecarLifecycle, spec: {action: validate}}\n"
	r := runWith([]string{"--output=sarif"}, in, nil)
	log := readSARIF(t, []byte(r.stdout))
	results := log.Runs[0].Results
	if r.code != 1 || len(results) != 1 || strings.Contains(r.stdout, "ResourceList") {
		t.Fatalf("ResourceList --output=sarif: code %d, stderr %q, stdout:\n%s", r.code, r.stderr, r.stdout)
	}
	if uri, line, logical := results[0].where(); results[0].RuleID != "edit" || uri != "k8s/web.yaml" || line != 1 || logical != "shop/Deployment/web" {
		t.Errorf("ResourceList result: %s at %s:%d %s", results[0].RuleID, uri, line, logical)
	}
}

// TestOutputSARIFValidates: the SARIF the function writes, with results
// of each level, a config error, a ResourceList's and none, passes Microsoft's
// SARIF multitool (its validate command: the schema and its rules) and
// the OASIS SARIF 2.1.0 schema; a log with an error in it does not.
func TestOutputSARIFValidates(t *testing.T) {
	tools := reportTools(t)
	schema := compileSARIFSchema(t)
	dir := writeFiles(t, map[string]string{
		"k8s/app.yaml": shopManifests,
		"bad.yaml":     "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec:\n  mode: fast\n",
	})
	env := map[string]string{"GITHUB_WORKSPACE": dir}
	logs := map[string][]byte{}
	for name, args := range map[string][]string{
		"validate":     {"validate", "--output=sarif", filepath.Join(dir, "k8s")},
		"config error": {"validate", "--output=sarif", "--config", filepath.Join(dir, "bad.yaml"), filepath.Join(dir, "k8s")},
		"mutate":       {"mutate", "--output=sarif", filepath.Join(dir, "k8s")},
	} {
		r := runWith(args, "", env)
		logs[name] = []byte(r.stdout)
	}
	in := listHead + "items:\n" + deployment("{containers: [{name: web}, {name: linkerd-proxy}]}")
	logs["ResourceList"] = []byte(runWith([]string{"--output=sarif"}, in, nil).stdout)
	logs["nothing"] = []byte(runWith([]string{"validate", "--output=sarif"}, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n", nil).stdout)
	if !bytes.Contains(logs["nothing"], []byte(`"results": []`)) {
		t.Errorf("a run with no finding: want an empty results list, which code scanning needs:\n%s", logs["nothing"])
	}
	if res := readSARIF(t, logs["config error"]).Runs[0].Results; len(res) != 1 || res[0].RuleID != "config" {
		t.Errorf("config error: results %+v", res)
	}
	logs["broken"] = bytes.Replace(logs["validate"], []byte(`"ruleId": "edit"`), []byte(`"ruleId": 7`), 1)
	logDir := t.TempDir()
	for name, text := range logs {
		if err := os.WriteFile(filepath.Join(logDir, strings.ReplaceAll(name, " ", "-")+".sarif"), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	errs := multitoolErrors(t, tools, logDir)
	for name, text := range logs {
		file := strings.ReplaceAll(name, " ", "-") + ".sarif"
		var doc any
		schemaErr := json.Unmarshal(text, &doc)
		if schemaErr == nil {
			schemaErr = schema.Validate(doc)
		}
		if name == "broken" {
			if len(errs[file]) == 0 || schemaErr == nil {
				t.Errorf("a broken log: the multitool finds %q, the schema %v; want errors from both", errs[file], schemaErr)
			}
			continue
		}
		if len(errs[file]) > 0 || schemaErr != nil {
			t.Errorf("%s: the multitool finds %q; the OASIS schema: %v\n%s", name, errs[file], schemaErr, text)
		}
	}
}

// compileSARIFSchema compiles the OASIS SARIF 2.1.0 schema.
func compileSARIFSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(sarifSchema)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif-schema-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// multitoolErrors runs the multitool's validate on the logs of a
// directory, once, and returns the errors it finds in each, by file name
// (its warnings and notes are advice, not errors).
func multitoolErrors(t *testing.T, tools, dir string) map[string][]string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "validation.sarif")
	cmd := exec.Command(filepath.Join(tools, "node_modules", ".bin", "sarif-multitool"), "validate", filepath.Join(dir, "*.sarif"), "--output", out, "--log", "ForceOverwrite")
	cmd.Env = append(os.Environ(), "DOTNET_CLI_TELEMETRY_OPTOUT=1")
	stdout, err := cmd.CombinedOutput()
	text, readErr := os.ReadFile(out)
	if readErr != nil {
		t.Fatalf("the multitool wrote no validation log (%v):\n%s", err, stdout)
	}
	var validation struct {
		Runs []struct {
			Results []struct {
				RuleID    string
				Level     string
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct{ ArtifactLocation struct{ URI string } }
				}
			}
		}
	}
	if err := json.Unmarshal(text, &validation); err != nil || len(validation.Runs) != 1 {
		t.Fatalf("the multitool's validation log does not parse (%v):\n%s", err, text)
	}
	errs := map[string][]string{}
	for _, r := range validation.Runs[0].Results {
		if r.Level != "error" {
			continue
		}
		file := "?"
		if len(r.Locations) > 0 {
			file = path.Base(r.Locations[0].PhysicalLocation.ArtifactLocation.URI)
		}
		errs[file] = append(errs[file], r.RuleID+": "+r.Message.Text)
	}
	if err != nil && len(errs) == 0 {
		t.Errorf("the multitool exits with %v and reports no error:\n%s", err, stdout)
	}
	return errs
}

// junitSuites is a JUnit report as junit2json reads it.
type junitSuites struct {
	Tests, Failures, Errors, Skipped int
	Testsuite                        []struct {
		Tests, Failures, Errors, Skipped int
		Testcase                         []struct {
			Classname, Name, File string
			Line                  int
			Failure               []struct{ Message, Type, Inner string }
			SystemOut             []string `json:"system-out"`
			Skipped               []any
		}
	}
}

// readJUnit reads a JUnit report with junit2json, a consumer of the
// format.
func readJUnit(t *testing.T, tools string, text []byte) junitSuites {
	t.Helper()
	cmd := exec.Command(filepath.Join(tools, "node_modules", ".bin", "junit2json"), "-")
	cmd.Stdin = bytes.NewReader(text)
	out, err := cmd.Output()
	var suites junitSuites
	if err == nil {
		err = json.Unmarshal(out, &suites)
	}
	if err != nil || len(suites.Testsuite) != 1 {
		t.Fatalf("junit2json does not read the report as one suite (%v): %s\n%s", err, out, text)
	}
	return suites
}

// TestOutputJUnit: --output=junit writes one test case per workload
// (classname namespace/Kind, name its name, its file and line), a
// failure per error finding (its kind, message and place) and the
// warnings in system-out, with the counts right; the workload that is as
// configured passes. mutate writes the manifests on stdout and the report
// in its file at once. junit2json reads it.
func TestOutputJUnit(t *testing.T) {
	tools := reportTools(t)
	fine := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  namespace: shop\nspec:\n  template:\n    spec:\n      containers:\n      - name: api\n"
	dir := writeFiles(t, map[string]string{"k8s/app.yaml": shopManifests, "k8s/fine.yaml": fine})
	env := map[string]string{"GITHUB_WORKSPACE": dir}
	r := runWith([]string{"validate", "--output=junit", filepath.Join(dir, "k8s")}, "", env)
	suites := readJUnit(t, tools, []byte(r.stdout))
	suite := suites.Testsuite[0]
	if r.code != 1 || suites.Tests != 3 || suites.Failures != 2 || suite.Tests != 3 || suite.Failures != 2 || suite.Errors != 0 || len(suite.Testcase) != 3 {
		t.Fatalf("validate --output=junit: code %d, counts %+v, stdout:\n%s", r.code, suites, r.stdout)
	}
	type want struct {
		classname, name, file string
		line                  int
		failure, out          string
	}
	for i, w := range []want{
		{"shop/Deployment", "web", "k8s/app.yaml", 8, "edit", "warning [hook] k8s/app.yaml:8 spec.template.spec.containers[name=linkerd-proxy].lifecycle.postStart: linkerd-proxy keeps its own postStart hook"},
		{"shop/Job", "migrate", "k8s/app.yaml", 26, "edit", "warning [placement] k8s/app.yaml:26 spec.template.spec: Job in ordered mode"},
		{"shop/Deployment", "api", "k8s/fine.yaml", 1, "", ""},
	} {
		c := suite.Testcase[i]
		failure, out := "", strings.Join(c.SystemOut, "\n")
		if len(c.Failure) == 1 {
			failure = c.Failure[0].Type
			if !strings.HasPrefix(c.Failure[0].Message, "not as configured") || c.Failure[0].Inner != "k8s/app.yaml:"+strconv.Itoa(w.line)+" spec.template.spec" {
				t.Errorf("test case %d: failure %+v", i, c.Failure[0])
			}
		}
		if c.Classname != w.classname || c.Name != w.name || c.File != w.file || c.Line != w.line || failure != w.failure || !strings.HasPrefix(out, w.out) || (w.out == "" && out != "") {
			t.Errorf("test case %d: %+v; want %+v", i, c, w)
		}
	}

	report := filepath.Join(dir, "report.xml")
	m := runWith([]string{"mutate", "--output=junit", "--output-file", report, filepath.Join(dir, "k8s")}, "", env)
	text, err := os.ReadFile(report)
	if m.code != 0 || err != nil || !strings.Contains(m.stdout, "kind: ConfigMap") || !strings.Contains(m.stdout, "linkerd-await") {
		t.Fatalf("mutate --output-file: code %d, %v, stderr %q, stdout:\n%s", m.code, err, m.stderr, m.stdout)
	}
	if mutated := readJUnit(t, tools, text); mutated.Tests != 3 || mutated.Failures != 0 {
		t.Errorf("mutate's report: %+v; want 3 test cases, none failed (warnings are no failure)", mutated)
	}

	in := listHead + "items:\n" + deployment("{containers: [{name: web}, {name: linkerd-proxy}]}") +
		"- {apiVersion: apps/v1, kind: Deployment, metadata: {name: skipped, namespace: shop, annotations: {sidecar-lifecycle.dev/skip: 'true'}}, spec: {template: {spec: {containers: [{name: web}, {name: linkerd-proxy}]}}}}\n" +
		"functionConfig: {apiVersion: fn.sidecar-lifecycle.dev/v1alpha1, kind: SidecarLifecycle, spec: {action: validate}}\n"
	l := runWith([]string{"--output=junit"}, in, nil)
	list := readJUnit(t, tools, []byte(l.stdout))
	if l.code != 1 || list.Tests != 2 || list.Failures != 1 || list.Skipped != 1 || len(list.Testsuite[0].Testcase[1].Skipped) != 1 {
		t.Errorf("ResourceList --output=junit: code %d, %+v, stdout:\n%s", l.code, list, l.stdout)
	}
}

// TestOutputInputError: input the run cannot read is a report's finding
// of kind input at its file and line, in SARIF and JUnit, and stderr
// keeps its line.
func TestOutputInputError(t *testing.T) {
	dir := writeFiles(t, map[string]string{"k8s/bad.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\nkind: [\n"})
	env := map[string]string{"GITHUB_WORKSPACE": dir}
	r := runWith([]string{"validate", "--output=sarif", filepath.Join(dir, "k8s")}, "", env)
	results := readSARIF(t, []byte(r.stdout)).Runs[0].Results
	if r.code != 1 || len(results) != 1 || !strings.Contains(r.stderr, "bad.yaml:6: not valid YAML") {
		t.Fatalf("invalid YAML: code %d, stderr %q, stdout:\n%s", r.code, r.stderr, r.stdout)
	}
	if uri, line, _ := results[0].where(); results[0].RuleID != "input" || results[0].Level != "error" || uri != "k8s/bad.yaml" || line != 6 {
		t.Errorf("invalid YAML in SARIF: %s %s at %s:%d", results[0].RuleID, results[0].Level, uri, line)
	}
	j := runWith([]string{"validate", "--output=junit", filepath.Join(dir, "k8s")}, "", env)
	if j.code != 1 || !strings.Contains(j.stdout, `<failure message="not valid YAML: did not find expected node content" type="input">k8s/bad.yaml:6</failure>`) {
		t.Errorf("invalid YAML in JUnit: code %d:\n%s", j.code, j.stdout)
	}
}
