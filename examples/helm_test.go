package examples_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
)

// Helm versions the expected output was made with; `make tools` installs
// them into bin/helm3 and bin/helm4.
const (
	helm3Version = "v3.22.0"
	helm4Version = "v4.3.1"
)

// helmTool returns bin/<dir>/helm at the version the expected output was
// made with, or fails the test.
func helmTool(t *testing.T, dir, version string) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "bin", dir, "helm"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("helm is not installed at %s: run `make tools` (installs helm %s there)", path, version)
	}
	stdout, _, err := run(t, ".", nil, path, "version", "--short")
	if got := strings.TrimSpace(stdout); err != nil || got != version {
		t.Fatalf("%s version is %q (%v), want %s: run `make tools`", path, got, err, version)
	}
	return path
}

// helmEnv keeps Helm's plugins, config and cache in the test's own
// directories, and puts the function on PATH as sidecar-lifecycle.
func helmEnv(t *testing.T) []string {
	t.Helper()
	home := t.TempDir()
	return append(toolsOnPath(t, functionBinary()),
		"HELM_DATA_HOME="+filepath.Join(home, "data"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"))
}

// TestHelm3PostRenderer renders examples/helm's chart with Helm 3 and the
// function as its post-renderer, exactly as the example's README says.
func TestHelm3PostRenderer(t *testing.T) {
	helm := helmTool(t, "helm3", helm3Version)
	dir := workDir(t, "helm")
	copyDir(t, "helm", dir)
	out := helmTemplate(t, helm, dir, helmEnv(t))
	checkGolden(t, filepath.Join("helm", "expected", "helm3.yaml"), out)
	checkHelmOutput(t, out)
}

// TestHelm4PostRendererPlugin installs the repository's Helm 4 plugin and
// renders the chart through it.
func TestHelm4PostRendererPlugin(t *testing.T) {
	helm := helmTool(t, "helm4", helm4Version)
	dir := workDir(t, "helm")
	copyDir(t, "helm", dir)
	env := helmEnv(t)
	plugin, err := filepath.Abs(filepath.Join("..", "helm-plugin"))
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, dir, env, helm, "plugin", "install", plugin)
	out := helmTemplate(t, helm, dir, env)
	checkGolden(t, filepath.Join("helm", "expected", "helm4.yaml"), out)
	checkHelmOutput(t, out)
}

// TestKustomizeHelmCharts renders the chart with kustomize's helmCharts
// (Helm 3 as --helm-command) and the same policy as a transformer.
func TestKustomizeHelmCharts(t *testing.T) {
	kustomize := kustomizeTool(t)
	helm := helmTool(t, "helm3", helm3Version)
	dir := workDir(t, "helm")
	copyDir(t, "helm", dir)
	out := mustRun(t, dir, helmEnv(t), kustomize, "build", "--enable-helm", "--helm-command", helm,
		"--enable-alpha-plugins", "--enable-exec", ".")
	checkGolden(t, filepath.Join("helm", "expected", "kustomize.yaml"), out)
	checkHelmOutput(t, out)
}

// TestHelmPostRendererFails: a policy error fails the Helm 3 render with the
// function's message, and nothing is rendered.
func TestHelmPostRendererFails(t *testing.T) {
	helm := helmTool(t, "helm3", helm3Version)
	dir := workDir(t, "helm")
	copyDir(t, "helm", dir)
	policy := filepath.Join(dir, "policy.yaml")
	text := strings.Replace(readFile(t, policy), "mode: native", "mode: sideways", 1)
	if err := os.WriteFile(policy, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := run(t, dir, helmEnv(t), helm, "template", "payments", "charts/payments",
		"--post-renderer", "sidecar-lifecycle", "--post-renderer-args", "--config=policy.yaml")
	if err == nil || strings.Contains(stdout, "kind: Deployment") {
		t.Fatalf("helm succeeded or rendered with a broken policy:\n%s", stdout)
	}
	if !strings.Contains(stderr, "sidecar-lifecycle:") || !strings.Contains(stderr, "spec.mode") {
		t.Errorf("helm's error does not carry the function's message naming spec.mode:\n%s", stderr)
	}
}

// helmTemplate renders the example's chart with the function as the
// post-renderer, as examples/helm/README.md says.
func helmTemplate(t *testing.T, helm, dir string, env []string) string {
	t.Helper()
	return mustRun(t, dir, env, helm, "template", "payments", "charts/payments", "--namespace", "payments",
		"--post-renderer", "sidecar-lifecycle", "--post-renderer-args", "--config=policy.yaml")
}

// checkHelmOutput checks, beyond the expected output, that the proxy is a
// native sidecar before the API and the render is a fixed point of the
// function.
func checkHelmOutput(t *testing.T, out string) {
	t.Helper()
	items, err := (&kio.ByteReader{Reader: strings.NewReader(out), OmitReaderAnnotations: true}).Read()
	if err != nil {
		t.Fatalf("the render is not YAML: %v\n%s", err, out)
	}
	checkValidItems(t, items)
	spec := podSpecOf(t, items, "Deployment", "payments")
	checkNativeSidecar(t, spec, "Deployment/payments", "cloud-sql-proxy", "")
	again := mustRunStdin(t, out, functionBinary(), "--config", filepath.Join("helm", "policy.yaml"))
	if again != out {
		t.Errorf("running the function on the render again changed it:\n%s", diff(out, again))
	}
}

// mustRunStdin runs a tool with input on stdin and fails the test if it fails.
func mustRunStdin(t *testing.T, input, tool string, args ...string) string {
	t.Helper()
	cmd := exec.Command(tool, args...)
	cmd.Stdin = strings.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstderr:\n%s", filepath.Base(tool), strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}
