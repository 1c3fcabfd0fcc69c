package examples_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The action as the example workflow names it, and the stand-ins for the
// actions it uses besides: act runs each from a local directory
// (--local-repository), so nothing is fetched.
const (
	actionRef   = "sidecar-lifecycle/sidecar-lifecycle@v0.1.0"
	setupGoRef  = "actions/setup-go@v6"
	codeQLRef   = "github/codeql-action@v4"
	actPlatform = "ubuntu-latest=-self-hosted"
)

// setupGoStandIn stands for actions/setup-go: the Go on PATH is the one
// the test runs with.
const setupGoStandIn = `name: setup-go stand-in
inputs:
  go-version:
    required: false
  cache:
    required: false
runs:
  using: composite
  steps:
  - shell: bash
    run: go version
`

// uploadSARIFStandIn stands for github/codeql-action/upload-sarif: it
// copies the file it is given to $SARIF_UPLOADS/uploaded.sarif, which the
// test reads.
const uploadSARIFStandIn = `name: upload-sarif stand-in
inputs:
  sarif_file:
    required: true
  category:
    required: false
runs:
  using: composite
  steps:
  - shell: bash
    env:
      SARIF_FILE: ${{ inputs.sarif_file }}
    run: cp -- "$SARIF_FILE" "$SARIF_UPLOADS/uploaded.sarif"
`

// actRun is a run of act: its output (stdout and stderr, as a person sees
// them), whether the job failed, and the SARIF file upload-sarif was given.
type actRun struct {
	output string
	failed bool
	sarif  []byte
}

// actTool returns bin/act, or skips the test (fails it under CI=true).
func actTool(t *testing.T) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "bin", "act"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		skipOrFail(t, "act is not installed at %s: `make tools` installs nektos/act v0.2.82 into bin/", path)
	}
	return path
}

// actionSource copies the repository's files (those git tracks, and new
// ones it does not ignore) into a directory: the action as a workflow gets
// it, with its Go source and no bin/.
func actionSource(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "-C", "..", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dst := t.TempDir()
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join("..", name))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the work tree
		}
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dst, name), string(data))
	}
	return dst
}

// writeFile writes a file, making its directory.
func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// actRunner runs workflows with act on this host, the action taken from
// source.
type actRunner struct {
	act, source, standIns, home string
}

// newActRunner prepares act: its home (with an .actrc naming the host
// platform), the action's source and the stand-ins.
func newActRunner(t *testing.T) actRunner {
	t.Helper()
	r := actRunner{act: actTool(t), source: actionSource(t), standIns: t.TempDir(), home: t.TempDir()}
	writeFile(t, filepath.Join(r.home, ".actrc"), "-P "+actPlatform+"\n")
	writeFile(t, filepath.Join(r.standIns, "setup-go", "action.yml"), setupGoStandIn)
	writeFile(t, filepath.Join(r.standIns, "codeql-action", "upload-sarif", "action.yml"), uploadSARIFStandIn)
	return r
}

// run runs the workflow file of the repository in dir (a git repository,
// which act copies into the job's workspace in place of actions/checkout)
// with act, the host as the runner, and no network: every action comes
// from a local directory, the Go build from the module cache.
func (r actRunner) run(t *testing.T, dir, workflow string) actRun {
	t.Helper()
	mustRun(t, dir, gitEnv, "git", "init", "-q")
	mustRun(t, dir, gitEnv, "git", "add", "-A")
	mustRun(t, dir, gitEnv, "git", "commit", "-q", "-m", "manifests")
	uploads := t.TempDir()
	cmd := exec.Command(r.act, "push",
		"-W", workflow, "-C", dir,
		"-P", actPlatform, "--pull=false", "--action-offline-mode", "--no-cache-server",
		"--action-cache-path", filepath.Join(r.home, "actions"),
		"--container-daemon-socket", "-",
		"--local-repository", actionRef+"="+r.source,
		"--local-repository", setupGoRef+"="+filepath.Join(r.standIns, "setup-go"),
		"--local-repository", codeQLRef+"="+filepath.Join(r.standIns, "codeql-action"))
	cmd.Dir = dir
	// ACT_DISABLE_VERSION_CHECK: act asks api.nektosact.com for notices
	// otherwise.
	cmd.Env = append(os.Environ(), append(goCacheEnv(t), "HOME="+r.home, "SARIF_UPLOADS="+uploads,
		"ACT_DISABLE_VERSION_CHECK=1", "GOPROXY=off", "GOTOOLCHAIN=local", "GITHUB_ACTIONS=", "XDG_CONFIG_HOME=", "XDG_CACHE_HOME=")...)
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("act: %v", err)
	}
	run := actRun{output: string(out), failed: err != nil}
	if data, err := os.ReadFile(filepath.Join(uploads, "uploaded.sarif")); err == nil {
		run.sarif = data
	}
	return run
}

// gitEnv makes commits without a git identity configured.
var gitEnv = []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}

// goCacheEnv are the build and module caches of the Go running the test,
// so that the action's build downloads nothing.
func goCacheEnv(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	caches := strings.Fields(string(out))
	if len(caches) != 2 {
		t.Fatalf("go env GOCACHE GOMODCACHE: %q", out)
	}
	return []string{"GOCACHE=" + caches[0], "GOMODCACHE=" + caches[1]}
}

// exampleRepository is a repository laid out as examples/github-action
// describes: the workflow under .github/workflows, the policy and the
// manifests.
func exampleRepository(t *testing.T) (dir, workflow string) {
	t.Helper()
	dir = t.TempDir()
	copyDir(t, "github-action", dir)
	workflow = filepath.Join(dir, ".github", "workflows", "sidecar-lifecycle.yml")
	if err := os.MkdirAll(filepath.Dir(workflow), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "workflow.yml"), workflow); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "README.md")); err != nil {
		t.Fatal(err)
	}
	return dir, workflow
}

// sarifReport is what the test reads of a SARIF log.
type sarifReport struct {
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Rules []struct {
					ID string `json:"id"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			Level     string `json:"level"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine int `json:"startLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
		} `json:"results"`
	} `json:"runs"`
}

// parseSARIF reads the SARIF file upload-sarif was given: SARIF 2.1.0 with
// one run.
func parseSARIF(t *testing.T, run actRun) sarifReport {
	t.Helper()
	if run.sarif == nil {
		t.Fatalf("upload-sarif was given no file; act's output:\n%s", run.output)
	}
	var report sarifReport
	if err := json.Unmarshal(run.sarif, &report); err != nil {
		t.Fatalf("the SARIF file is not JSON: %v\n%s", err, run.sarif)
	}
	if report.Version != "2.1.0" || len(report.Runs) != 1 {
		t.Fatalf("the SARIF file: version %q, %d runs; want 2.1.0, one run", report.Version, len(report.Runs))
	}
	return report
}

// checkSARIFError checks that the report has an error result of the rule
// at file and line, and the rule among the run's rules.
func checkSARIFError(t *testing.T, report sarifReport, rule, file string, line int) {
	t.Helper()
	known := false
	for _, r := range report.Runs[0].Tool.Driver.Rules {
		known = known || r.ID == rule
	}
	if !known {
		t.Errorf("the SARIF file's rules: %+v, want one with id %q", report.Runs[0].Tool.Driver.Rules, rule)
	}
	for _, result := range report.Runs[0].Results {
		for _, loc := range result.Locations {
			if loc.PhysicalLocation.ArtifactLocation.URI == file && loc.PhysicalLocation.Region.StartLine == line &&
				result.Level == "error" && result.RuleID == rule {
				return
			}
		}
	}
	t.Errorf("the SARIF file has no error result of rule %q at %s:%d; results: %+v", rule, file, line, report.Runs[0].Results)
}

// TestGitHubAction runs examples/github-action/workflow.yml with a real
// GitHub Actions runner, nektos/act, on this host: action.yml builds the
// binary from this repository's source and validates the example's
// manifests. The manifest as committed fails the job, with an annotation on
// its file and line (act prints each workflow command it reads after ❗)
// and a SARIF file that upload-sarif receives; the manifest as mutate
// writes it passes.
func TestGitHubAction(t *testing.T) {
	r := newActRunner(t)
	dir, workflow := exampleRepository(t)

	run := r.run(t, dir, workflow)
	annotation := "❗  ::error file=manifests/web.yaml,line=15::sidecar-lifecycle: manifests/web.yaml:15: Deployment shop/web spec.template.spec: not as configured"
	if !run.failed || !strings.Contains(run.output, annotation) {
		t.Fatalf("the manifest as committed: failed %v, want the job to fail with %q; act's output:\n%s", run.failed, annotation, run.output)
	}
	// The finding's kind is the rule: a change mutate would make.
	checkSARIFError(t, parseSARIF(t, run), "edit", "manifests/web.yaml", 15)
	// act prints the job summary a step writes after "Summary - ".
	if summary := "⚙  Summary - # Termination budget\n\n## Deployment shop/web"; !strings.Contains(run.output, summary) {
		t.Errorf("no job summary %q in act's output", summary)
	}

	fixed := mustRun(t, dir, nil, functionBinary(), "mutate", "--config", "sidecar-lifecycle.yaml", "manifests/web.yaml")
	writeFile(t, filepath.Join(dir, "manifests", "web.yaml"), fixed)
	run = r.run(t, dir, workflow)
	if run.failed || strings.Contains(run.output, "::error") {
		t.Fatalf("the manifest as mutate writes it: failed %v, want the job to pass with no annotation; act's output:\n%s", run.failed, run.output)
	}
	if results := parseSARIF(t, run).Runs[0].Results; len(results) != 0 {
		t.Errorf("the manifest as mutate writes it: SARIF results %+v, want none", results)
	}
}

// injectionWorkflow gives the action a config, paths and a SARIF file whose
// names hold command substitutions, a quote and a leading dash, then copies
// the workspace to $WORKSPACE_COPY for the test to look at.
const injectionWorkflow = `on: push
jobs:
  check:
    runs-on: ubuntu-latest
    steps:
    - uses: actions/checkout@v5
    - uses: sidecar-lifecycle/sidecar-lifecycle@v0.1.0
      with:
        config: "policy $(touch pwned) ` + "`touch pwned`" + ` it's.yaml"
        paths: |
          $(touch pwned) it's
          -web it's.yaml
        sarif-file: "reports/$(touch pwned) it's.sarif"
    - id: report-only
      if: always()
      uses: sidecar-lifecycle/sidecar-lifecycle@v0.1.0
      with:
        paths: "$(touch pwned) it's"
        fail-on-findings: false
        summary: false
    - if: always()
      env:
        OUTCOME: ${{ steps.report-only.outcome }}
        SARIF: ${{ steps.report-only.outputs.sarif-file }}
      run: |
        echo "report-only: $OUTCOME, $(basename "$SARIF")"
        cp -R . "$WORKSPACE_COPY"
`

// TestGitHubActionInputsAreData runs the action through act with a config,
// paths and a SARIF file named like shell commands: nothing is run (no file
// pwned appears), and each name is read as it is: the policy's 30s sleep is
// in the findings, the annotations name both files, the SARIF file is where
// sarif-file says. A second run with fail-on-findings: false passes with
// its report.
func TestGitHubActionInputsAreData(t *testing.T) {
	r := newActRunner(t)
	dir := t.TempDir()
	policy := readFile(t, filepath.Join("github-action", "sidecar-lifecycle.yaml"))
	manifest := readFile(t, filepath.Join("github-action", "manifests", "web.yaml"))
	writeFile(t, filepath.Join(dir, "policy $(touch pwned) `touch pwned` it's.yaml"), policy)
	writeFile(t, filepath.Join(dir, "$(touch pwned) it's", "web.yaml"), manifest)
	writeFile(t, filepath.Join(dir, "-web it's.yaml"), manifest)
	workflow := filepath.Join(dir, ".github", "workflows", "check.yml")
	writeFile(t, workflow, injectionWorkflow)
	workspace := filepath.Join(t.TempDir(), "workspace")
	t.Setenv("WORKSPACE_COPY", workspace)

	run := r.run(t, dir, workflow)
	// The action gives a path starting with - as ./-...: its message says
	// so; the annotation's file is the path from the workspace.
	for file, named := range map[string]string{"$(touch pwned) it's/web.yaml": "$(touch pwned) it's/web.yaml", "-web it's.yaml": "./-web it's.yaml"} {
		annotation := "❗  ::error file=" + file + ",line=15::sidecar-lifecycle: " + named + ":15: Deployment shop/web spec.template.spec: not as configured"
		if !strings.Contains(run.output, annotation) {
			t.Errorf("no annotation %q in act's output", annotation)
		}
	}
	if !run.failed || !strings.Contains(run.output, "added preStop sleep 30s to linkerd-proxy") {
		t.Errorf("failed %v, want a failed job with the policy's findings", run.failed)
	}
	for _, root := range []string{dir, workspace, r.home} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.Name() == "pwned" {
				t.Errorf("%s exists: an input ran as a command", path)
			}
			return nil
		})
	}
	// The second run, with the catalog's defaults, finds the proxy by its
	// name, and passes.
	if !strings.Contains(run.output, "recognised linkerd-proxy (linkerd) by its container name") {
		t.Errorf("the run with the catalog's defaults reported no finding")
	}
	if reportOnly := "report-only: success, sidecar-lifecycle.sarif"; !strings.Contains(run.output, reportOnly) {
		t.Errorf("no %q in act's output: fail-on-findings: false failed the step or wrote no report", reportOnly)
	}
	if _, err := os.Stat(filepath.Join(workspace, "reports", "$(touch pwned) it's.sarif")); err != nil {
		t.Errorf("the SARIF file is not where sarif-file says: %v", err)
	}
	if t.Failed() {
		t.Logf("act's output:\n%s", run.output)
	}
}
