package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const plainPolicy = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec:\n  sidecars:\n  - preset: linkerd\n"

const plainDeployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: web\n      - name: linkerd-proxy\n        image: proxy\n"

// writeFiles writes name → content under a new directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestPlainStream: --config FILE and --config=FILE edit the stream on stdin
// or the named files and directories, in order, with "---" between files.
func TestPlainStream(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"policy.yaml":          plainPolicy,
		"a.yaml":               "apiVersion: v1\nkind: Service\nmetadata: {name: web}", // no final line end
		"manifests/web.yaml":   plainDeployment,
		"manifests/notes.txt":  "not YAML: [",
		"manifests/z/pod.yaml": "kind: Pod\n",
	})
	policy := filepath.Join(dir, "policy.yaml")
	r := runWith([]string{"--config=" + policy}, plainDeployment, nil)
	if r.code != 0 || !strings.Contains(r.stdout, "linkerd-await") || strings.Index(r.stdout, "linkerd-proxy") > strings.Index(r.stdout, "name: web\n        image") {
		t.Errorf("stdin: code %d, stderr %q, stdout:\n%s", r.code, r.stderr, r.stdout)
	}
	r = runWith([]string{"--config", policy, filepath.Join(dir, "a.yaml"), filepath.Join(dir, "manifests")}, "", nil)
	if r.code != 0 {
		t.Fatalf("files: code %d, stderr %q", r.code, r.stderr)
	}
	if !strings.HasPrefix(r.stdout, "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n---\napiVersion: apps/v1") {
		t.Errorf("the files are not joined with a separator:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "kind: Pod") || strings.Contains(r.stdout, "not YAML") {
		t.Errorf("a subdirectory or a non-YAML file was read:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "linkerd-await") {
		t.Errorf("the Deployment was not edited:\n%s", r.stdout)
	}
}

// TestPlainStreamErrors: bad arguments, config files and inputs are one
// line each on stderr, exit code 1 and nothing on stdout.
func TestPlainStreamErrors(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"policy.yaml":  plainPolicy,
		"web.yaml":     plainDeployment,
		"bad.yaml":     "kind: [\n",
		"flow.yaml":    "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec: {sidecars: [}\n# end\n",
		"two.yaml":     plainPolicy + "---\n" + plainPolicy,
		"list.yaml":    "- a\n",
		"unknown.yaml": "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec: {mood: happy}\n",
		"fail.yaml":    "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec:\n  sidecars:\n  - {name: cloud-sql-proxy, ifAbsent: fail}\n",
	})
	p := func(name string) string { return filepath.Join(dir, name) }
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no file", []string{"--config"}, "--config needs a file"},
		{"twice", []string{"--config=" + p("policy.yaml"), "--config", p("policy.yaml")}, "--config is given twice"},
		{"unknown flag", []string{"--config=" + p("policy.yaml"), "--verbose"}, `unknown argument "--verbose"`},
		{"missing config", []string{"--config=" + p("nope.yaml")}, `reading the config: open "` + p("nope.yaml") + `": no such file or directory`},
		{"config not YAML", []string{"--config=" + p("bad.yaml")}, "is not valid YAML"},
		{"config not YAML, at the line", []string{"--config=" + p("flow.yaml")}, "is not valid YAML: yaml: line 3: did not find expected node content"},
		{"two documents", []string{"--config=" + p("two.yaml")}, "more than one YAML document"},
		{"config a list", []string{"--config=" + p("list.yaml")}, "is not a mapping"},
		{"unknown field", []string{"--config=" + p("unknown.yaml")}, "error: " + p("unknown.yaml") + ":3: spec.mood: unknown field"},
		{"missing input", []string{"--config=" + p("policy.yaml"), p("nope.yaml")}, "reading input: stat"},
		{"input not YAML", []string{"--config=" + p("policy.yaml"), p("bad.yaml")}, "not valid YAML"},
		{"error result", []string{"--config=" + p("fail.yaml"), p("web.yaml")}, "sidecar-lifecycle: nothing was written"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := plainDeployment
			if tc.name == "error result" {
				in = ""
			}
			r := runWith(tc.args, in, nil)
			if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("code %d, stdout %q, stderr %q: want 1, nothing, %q", r.code, r.stdout, r.stderr, tc.want)
			}
			checkLines(t, r.stderr)
		})
	}
}

// TestPlainStreamValidate: validate fails on a stream that needs a change,
// with one error line per workload.
func TestPlainStreamValidate(t *testing.T) {
	dir := writeFiles(t, map[string]string{"policy.yaml": plainPolicy + "  action: validate\n"})
	r := runWith([]string{"--config", filepath.Join(dir, "policy.yaml")}, plainDeployment, nil)
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "sidecar-lifecycle: error: <stdin>:1: Deployment web spec.template.spec: not as configured") {
		t.Errorf("code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}
