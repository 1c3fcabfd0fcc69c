package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// precommitDeployment is a manifest whose Linkerd proxy the policy orders.
const precommitDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
      - name: web
        image: example.com/web:1
      - name: linkerd-proxy
        image: cr.l5d.io/linkerd/proxy:edge-25.1.1
`

// TestPreCommitHook runs the repository's .pre-commit-hooks.yaml through
// the real pre-commit (Debian's package; `make tools` installs it), which
// builds the binary from this tree (language: golang) as a project pinning
// the hook would: in a temporary repository with the policy in
// .sidecar-lifecycle.yaml, a staged manifest that is not as configured fails
// the hook with its finding and stays as it was; the same manifest as mutate
// writes it passes.
func TestPreCommitHook(t *testing.T) {
	preCommit, err := exec.LookPath("pre-commit")
	if err != nil {
		t.Fatal("pre-commit is not on PATH: `make tools` installs Debian's package")
	}
	repoRoot, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	modCache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	// Its own cache; the module cache shared, so the build downloads nothing.
	env := []string{"PRE_COMMIT_HOME=" + t.TempDir(), "GOMODCACHE=" + strings.TrimSpace(string(modCache)),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
	dir := t.TempDir()
	mustRun(t, dir, env, "git", "init", "-q")
	policy := "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec:\n  sidecars:\n  - preset: linkerd\n"
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".sidecar-lifecycle.yaml", policy)
	write("k8s/web.yaml", precommitDeployment)
	mustRun(t, dir, env, "git", "add", "-A")

	// try-repo runs the hooks of a repository as its working tree holds them.
	hook := func() (string, error) {
		stdout, stderr, err := run(t, dir, env, preCommit, "try-repo", repoRoot, "sidecar-lifecycle-validate", "--files", "k8s/web.yaml", ".sidecar-lifecycle.yaml")
		return stdout + stderr, err
	}
	out, err := hook()
	if err == nil || !strings.Contains(out, "Deployment web spec.template.spec: not as configured") {
		t.Fatalf("a manifest not as configured: err %v, want the hook to fail with its finding; output:\n%s", err, out)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "k8s/web.yaml")); string(got) != precommitDeployment {
		t.Errorf("the hook changed the manifest:\n%s", got)
	}

	fixed := mustRun(t, dir, nil, functionBinary(), "mutate", "--config", ".sidecar-lifecycle.yaml", "k8s/web.yaml")
	write("k8s/web.yaml", fixed)
	mustRun(t, dir, env, "git", "add", "-A")
	if out, err := hook(); err != nil {
		t.Errorf("the manifest as mutate writes it: err %v, want the hook to pass; output:\n%s", err, out)
	}
}
