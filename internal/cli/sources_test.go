package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf16"
)

// failPolicy fails every workload: its sidecar is absent.
const failPolicy = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec:\n  sidecars:\n  - {name: cloud-sql-proxy, ifAbsent: fail}\n"

// TestPlainStreamPositions: in --config mode every error names the file
// and the line in that file, whichever file of the joined stream it is in,
// and in GitHub Actions the workflow command carries file= and line=.
func TestPlainStreamPositions(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"fail.yaml":            failPolicy,
		"policy.yaml":          plainPolicy,
		"manifests/a.yaml":     "apiVersion: v1\nkind: Service\nmetadata: {name: web}", // no final line end
		"manifests/b.yaml":     "# the app\n---\n" + plainDeployment,
		"broken/a.yaml":        "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n---\napiVersion: v1\nkind: Service\n",
		"broken/b.yaml":        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: [\n",
		"broken/c.yaml":        "kind: Pod\n",
		"workspace/notes.yaml": "",
	})
	p := func(name string) string { return filepath.Join(dir, name) }
	web := p("manifests/b.yaml")
	r := runWith([]string{"--config", p("fail.yaml"), p("manifests")}, "", nil)
	if want := "sidecar-lifecycle: error: " + web + ":3: Deployment web spec.template.spec.containers: "; r.code != 1 || !strings.HasPrefix(r.stderr, want) {
		t.Errorf("error result: code %d, stderr %q, want it to start with %q", r.code, r.stderr, want)
	}
	checkLines(t, r.stderr)
	r = runWith([]string{"--config", p("fail.yaml"), p("manifests")}, "", map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": dir})
	if want := "::error file=manifests/b.yaml,line=3::sidecar-lifecycle: " + web + ":3: Deployment web spec.template.spec.containers: "; !strings.HasPrefix(r.stderr, want) {
		t.Errorf("GitHub: stderr %q, want it to start with %q", r.stderr, want)
	}
	r = runWith([]string{"--config", p("policy.yaml"), p("broken")}, "", nil)
	if want := "sidecar-lifecycle: error: " + p("broken/b.yaml") + ":4: not valid YAML: "; r.code != 1 || !strings.HasPrefix(r.stderr, want) || r.stdout != "" {
		t.Errorf("parse error: code %d, stderr %q, want it to start with %q", r.code, r.stderr, want)
	}
	r = runWith([]string{"--config", p("policy.yaml"), p("broken/b.yaml")}, "", map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": dir})
	if want := "::error file=broken/b.yaml,line=4::sidecar-lifecycle: " + p("broken/b.yaml") + ":4: not valid YAML: "; !strings.HasPrefix(r.stderr, want) {
		t.Errorf("GitHub parse error: stderr %q, want it to start with %q", r.stderr, want)
	}
	r = runWith([]string{"--config", p("fail.yaml")}, "apiVersion: v1\nkind: Service\n---\n"+plainDeployment, nil)
	if want := "sidecar-lifecycle: error: <stdin>:4: Deployment web spec.template.spec.containers: "; !strings.HasPrefix(r.stderr, want) {
		t.Errorf("stdin: stderr %q, want it to start with %q", r.stderr, want)
	}
}

// TestPlainStreamSpecialFiles: a named pipe in an input directory is
// skipped with a warning instead of waiting for a writer for ever.
func TestPlainStreamSpecialFiles(t *testing.T) {
	dir := writeFiles(t, map[string]string{"policy.yaml": plainPolicy, "in/web.yaml": plainDeployment})
	fifo := filepath.Join(dir, "in", "pipe.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan result, 1)
	go func() {
		done <- runWith([]string{"--config", filepath.Join(dir, "policy.yaml"), filepath.Join(dir, "in")}, "", nil)
	}()
	select {
	case r := <-done:
		want := `sidecar-lifecycle: warning: "` + fifo + `" is skipped: it is a named pipe, not a file` + "\n"
		if r.code != 0 || r.stderr != want || !strings.Contains(r.stdout, "linkerd-await") {
			t.Errorf("code %d, stderr %q, want %q", r.code, r.stderr, want)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the run waits on the named pipe")
	}
}

// TestPlainStreamEncodings: UTF-16 files, in either byte order and with a
// byte order mark, are read and joined with UTF-8 ones, and the output is
// UTF-8; a file that is not text is an error naming it.
func TestPlainStreamEncodings(t *testing.T) {
	encode := func(s string, big bool) string {
		var b []byte
		for _, u := range append([]uint16{0xFEFF}, utf16.Encode([]rune(s))...) {
			if big {
				b = append(b, byte(u>>8), byte(u))
			} else {
				b = append(b, byte(u), byte(u>>8))
			}
		}
		return string(b)
	}
	service := "# ünïcödé\napiVersion: v1\nkind: Service\nmetadata: {name: web}\n"
	dir := writeFiles(t, map[string]string{
		"policy.yaml":   plainPolicy,
		"in/a.yaml":     encode(service+"---\n"+service, false),
		"in/b.yaml":     encode(plainDeployment, true),
		"in/c.yaml":     "\ufeff" + service,
		"bad/logo.yaml": "apiVersion: v1\n\x89PNG\r\n",
	})
	r := runWith([]string{"--config", filepath.Join(dir, "policy.yaml"), filepath.Join(dir, "in")}, "", nil)
	if r.code != 0 || !strings.HasPrefix(r.stdout, service+"---\n"+service+"---\napiVersion: apps/v1\n") || !strings.HasSuffix(r.stdout, "---\n"+service) || !strings.Contains(r.stdout, "linkerd-await") {
		t.Errorf("code %d, stderr %q, stdout:\n%q", r.code, r.stderr, r.stdout)
	}
	bad := filepath.Join(dir, "bad", "logo.yaml")
	r = runWith([]string{"--config", filepath.Join(dir, "policy.yaml"), bad}, "", nil)
	if want := "sidecar-lifecycle: error: " + bad + ":2: not UTF-8 or UTF-16 text: byte 0x89 is not UTF-8\n"; r.code != 1 || r.stderr != want || r.stdout != "" {
		t.Errorf("code %d, stderr %q, want %q", r.code, r.stderr, want)
	}
}

// TestPlainStreamMaxDocumentSize: --max-document-size, or the environment
// variable, sets the limit; a document past it is an error naming its file
// and line, and a bad size is an error.
func TestPlainStreamMaxDocumentSize(t *testing.T) {
	dir := writeFiles(t, map[string]string{"policy.yaml": plainPolicy, "web.yaml": "apiVersion: v1\nkind: Service\n---\n" + plainDeployment})
	policy, web := filepath.Join(dir, "policy.yaml"), filepath.Join(dir, "web.yaml")
	want := "sidecar-lifecycle: error: " + web + ":3: the document is larger than 100 bytes, the maximum document size; it was not read further; raise the limit with --max-document-size\n"
	for _, tc := range []struct {
		args []string
		env  string
	}{
		{[]string{"--config", policy, "--max-document-size", "100", web}, ""},
		{[]string{"--config", policy, "--max-document-size=100", web}, "1Gi"},
		{[]string{"--config", policy, web}, "100"},
	} {
		if tc.env != "" {
			t.Setenv(maxDocumentSizeEnv, tc.env)
		}
		r := runWith(tc.args, "", nil)
		if r.code != 1 || r.stderr != want {
			t.Errorf("%q with %s=%q: code %d, stderr %q, want %q", tc.args, maxDocumentSizeEnv, tc.env, r.code, r.stderr, want)
		}
	}
	os.Unsetenv(maxDocumentSizeEnv)
	if r := runWith([]string{"--config", policy, "--max-document-size=1Ki", web}, "", nil); r.code != 0 {
		t.Errorf("1Ki: code %d, stderr %q", r.code, r.stderr)
	}
	for _, bad := range []string{"-1", "lots", "0"} {
		r := runWith([]string{"--config", policy, "--max-document-size", bad, web}, "", nil)
		if r.code != 1 || !strings.Contains(r.stderr, "--max-document-size \""+bad+"\" is not a size") {
			t.Errorf("%q: code %d, stderr %q", bad, r.code, r.stderr)
		}
	}
	t.Setenv(maxDocumentSizeEnv, "100")
	r := runWith(nil, "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- "+strings.Repeat("x", 200)+"\n", nil)
	if r.code != 1 || !strings.Contains(r.stderr, "line 4: ResourceList items[0] is larger than 100 bytes") {
		t.Errorf("ResourceList: code %d, stderr %q", r.code, r.stderr)
	}
}
