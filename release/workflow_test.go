package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// setupGoStandIn stands for actions/setup-go: the Go on PATH is the one
// the test runs with (as examples/action_test.go does).
const setupGoStandIn = `name: setup-go stand-in
inputs:
  go-version-file:
    required: false
runs:
  using: composite
  steps:
  - shell: bash
    run: go version
`

// TestWorkflowDryRun runs .github/workflows/release.yml with act on this
// host, offline, as a tag push with RELEASE_DRY_RUN=true: every make
// target of the release runs for real in act's copy of the checkout, and
// no publishing step runs.
func TestWorkflowDryRun(t *testing.T) {
	if os.Getenv("RELEASE_DRY_RUN") == "true" {
		t.Skip("inside the workflow's own dry run")
	}
	act := filepath.Join(root, "bin", "act")
	if _, err := os.Stat(act); err != nil {
		t.Fatalf("%s is missing: `make act` installs it", act)
	}
	tool(t, "cosign") // the workflow takes bin/release from here
	home, standIn := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(standIn, "action.yml"), []byte(setupGoStandIn), 0o644)
	gocache, _ := exec.Command("go", "env", "GOCACHE").Output()
	gomodcache, _ := exec.Command("go", "env", "GOMODCACHE").Output()
	event := filepath.Join(home, "event.json")
	os.WriteFile(event, []byte(`{"ref": "refs/tags/v0.0.0-dryrun"}`), 0o644)
	cmd := exec.Command(act, "push", "-e", event,
		"-W", filepath.Join(root, ".github", "workflows", "release.yml"), "-C", root,
		"-P", "ubuntu-latest=-self-hosted", "--pull=false", "--action-offline-mode", "--no-cache-server",
		"--action-cache-path", filepath.Join(home, "actions"),
		"--container-daemon-socket", "-",
		"--local-repository", "actions/setup-go@v6="+standIn,
		"--env", "RELEASE_DRY_RUN=true",
		"--env", "RELEASE_BIN="+filepath.Join(root, "bin", "release"))
	// The podman environment of the kpt check (offline-podman.sh's) goes
	// through to the steps.
	for _, name := range []string{"CONTAINERS_STORAGE_CONF", "CONTAINERS_CONF", "CONTAINERS_REGISTRIES_CONF", "DOCKER_HOST", "KPT_FN_RUNTIME", "PATH"} {
		if v, ok := os.LookupEnv(name); ok {
			cmd.Args = append(cmd.Args, "--env", name+"="+v)
		}
	}
	cmd.Env = append(os.Environ(), "HOME="+home, "ACT_DISABLE_VERSION_CHECK=1", "GOPROXY=off", "GOTOOLCHAIN=local",
		"GOCACHE="+strings.TrimSpace(string(gocache)), "GOMODCACHE="+strings.TrimSpace(string(gomodcache)),
		"GITHUB_ACTIONS=", "XDG_CONFIG_HOME=", "XDG_CACHE_HOME=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("act: %v\n%s", err, out)
	}
	for _, want := range []string{
		"✅  Success - Main release tools (bin/release)",
		"✅  Success - Main snapshot (dist/)",
		"✅  Success - Main test (reproducible, registry, cosign, SBOM)",
		"--- PASS: TestReproducible", "--- PASS: TestRegistry", "image sha256:",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("act's output has no %q", want)
		}
	}
	for _, step := range []string{"push the image", "sign the digest", "GitHub release"} {
		if strings.Contains(string(out), "⭐ Run Main "+step) {
			t.Errorf("the dry run ran %q", step)
		}
	}
	t.Logf("act's output:\n%s", out)
}
