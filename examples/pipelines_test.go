package examples_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
)

// TestValidateCI runs examples/validate as a CI job and a developer would:
// check.sh fails on the committed manifests, fix.sh applies the same policy
// with kpt, check.sh then passes, and fix.sh run again changes nothing.
func TestValidateCI(t *testing.T) {
	kustomize := kustomizeTool(t)
	kpt := kptTool(t)
	dir := workDir(t, "validate")
	copyDir(t, "validate", dir)
	env := append(toolsOnPath(t, kustomize, functionBinary()), "KPT="+kpt)
	manifests := filepath.Join(dir, "manifests")
	before := readDir(t, manifests)

	// The check fails with exit code 1 and names the workload and the fix.
	stdout, stderr, err := run(t, dir, env, "sh", "check.sh")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("check.sh on the unordered manifests: got %v, want exit code 1\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	for _, want := range []string{
		"sidecar-lifecycle: error: Deployment orders/api spec.template.spec: not as configured",
		"run sidecar-lifecycle with action: mutate",
		"moved linkerd-proxy to the front of containers",
		"run ./fix.sh",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("check.sh's stderr does not say %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "worker") {
		t.Errorf("check.sh's stderr names Deployment worker, which has no sidecar:\n%s", stderr)
	}
	sameFiles(t, "manifests/ before the check", before, "after it", readDir(t, manifests))

	// In GitHub Actions the same error is a workflow command that
	// annotates the workload's file, named from the repository's root.
	gh := append(env, "GITHUB_ACTIONS=true", "GITHUB_WORKSPACE="+dir)
	_, stderr, _ = run(t, dir, gh, "sh", "check.sh")
	if want := "\n::error file=manifests/api.yaml::sidecar-lifecycle: Deployment orders/api spec.template.spec: not as configured; "; !strings.Contains("\n"+stderr, want) {
		t.Errorf("check.sh in GitHub Actions does not write %q:\n%s", want, stderr)
	}

	// The fix: the same policy file with action: mutate, applied in place.
	fix := func() string {
		t.Helper()
		results := t.TempDir()
		mustRun(t, dir, env, "sh", "fix.sh", "--results-dir", results)
		return readFile(t, filepath.Join(results, "results.yaml"))
	}
	results := fix()
	checkGoldenDir(t, filepath.Join("validate", "expected", "manifests"), manifests)
	checkGolden(t, filepath.Join("validate", "expected", "results.yaml"), results)
	items := readPackage(t, manifests)
	checkValidItems(t, items)
	checkSidecarFirst(t, items, "Deployment", "api", "linkerd-proxy", true)

	// The check passes on the fixed manifests.
	if out := mustRun(t, dir, env, "sh", "check.sh"); !strings.Contains(out, "follows policy") {
		t.Errorf("check.sh passed but did not say so:\n%s", out)
	}

	first := readDir(t, manifests)
	results = fix()
	sameFiles(t, "the first fix", first, "the second fix", readDir(t, manifests))
	checkNoChanges(t, results)
}

// checkKustomizeAgain builds kustomize output again with the same
// functionConfig and requires the same bytes, then runs the function on it
// directly and requires no change result (kustomize shows no results).
func checkKustomizeAgain(t *testing.T, kustomize string, env []string, out, configPath string) {
	t.Helper()
	config := readFile(t, configPath)
	again := workDir(t, "again")
	writeFiles(t, again, map[string]string{
		"kustomization.yaml":     "resources:\n- rendered.yaml\ntransformers:\n- sidecar-lifecycle.yaml\n",
		"rendered.yaml":          out,
		"sidecar-lifecycle.yaml": config,
	})
	if second := mustRun(t, again, env, kustomize, "build", "--enable-alpha-plugins", "--enable-exec", "."); second != out {
		t.Errorf("rendering the output again changed it (not idempotent; - first, + second):\n%s", diff(out, second))
	}
	checkFunctionNoChange(t, out, config)
}

// checkFunctionNoChange runs the function binary on items with config and
// fails on an error or on an info result with a resourceRef (a change).
func checkFunctionNoChange(t *testing.T, items, config string) {
	t.Helper()
	input, err := krmtest.ResourceList([]byte(items), []byte(config))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(functionBinary())
	cmd.Stdin = bytes.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	output, err := cmd.Output()
	if err != nil {
		t.Fatalf("sidecar-lifecycle on its own output: %v\nstderr:\n%s", err, stderr.String())
	}
	result, err := krmtest.Split(output)
	if err != nil {
		t.Fatalf("parsing the function's output: %v", err)
	}
	for _, r := range krmtest.Reported(result.ResultList()) {
		t.Errorf("second run reported %s on %s: %s", r.Severity, r.Ref, r.Message)
	}
}

// TestFluxRender runs examples/flux/render.sh as the CI workflow does, on a
// copy whose rendered/ holds only a file from a removed app, compares
// rendered/ with the committed one, and runs it again.
func TestFluxRender(t *testing.T) {
	kustomize := kustomizeTool(t)
	dir := workDir(t, "flux")
	copyDir(t, "flux", dir)
	rendered := filepath.Join(dir, "rendered")
	if err := os.RemoveAll(rendered); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(rendered, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, rendered, map[string]string{"retired.yaml": "# an app removed from apps/\n"})
	env := toolsOnPath(t, kustomize, functionBinary())

	mustRun(t, dir, env, "sh", "render.sh")
	checkGoldenDir(t, filepath.Join("flux", "rendered"), rendered)
	first := readDir(t, rendered)
	config := readFile(t, filepath.Join(dir, "policy", "sidecar-lifecycle.yaml"))
	for name, content := range first {
		items := parseItems(t, content)
		checkValidItems(t, items)
		checkFunctionNoChange(t, content, config)
		if !strings.HasPrefix(content, "# Rendered from apps/"+strings.TrimSuffix(name, ".yaml")+" by render.sh.") {
			t.Errorf("rendered/%s does not start with render.sh's header", name)
		}
	}
	web := parseItems(t, first["web.yaml"])
	if got := podAnnotation(t, web, "Deployment", "web", "config.linkerd.io/proxy-await"); got != "enabled" {
		t.Errorf("Deployment/web: config.linkerd.io/proxy-await is %q, want enabled", got)
	}

	mustRun(t, dir, env, "sh", "render.sh")
	sameFiles(t, "the first render", first, "the second render", readDir(t, rendered))

	// Flux deploys the rendered directory from the GitRepository.
	source, err := yaml.Parse(readFile(t, filepath.Join("flux", "clusters", "production", "source.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	kustomization, err := yaml.Parse(readFile(t, filepath.Join("flux", "clusters", "production", "shop.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	if source.GetApiVersion() != "source.toolkit.fluxcd.io/v1" || source.GetKind() != "GitRepository" {
		t.Errorf("source.yaml is %s %s, want a source.toolkit.fluxcd.io/v1 GitRepository", source.GetApiVersion(), source.GetKind())
	}
	if kustomization.GetApiVersion() != "kustomize.toolkit.fluxcd.io/v1" || kustomization.GetKind() != "Kustomization" {
		t.Errorf("shop.yaml is %s %s, want a kustomize.toolkit.fluxcd.io/v1 Kustomization", kustomization.GetApiVersion(), kustomization.GetKind())
	}
	if got := stringAt(kustomization, "spec", "sourceRef", "name"); got != source.GetName() {
		t.Errorf("the Flux Kustomization's sourceRef is %q, want the GitRepository %q", got, source.GetName())
	}
	if got := stringAt(kustomization, "spec", "path"); got != "./examples/flux/rendered" {
		t.Errorf("the Flux Kustomization's path is %q, want ./examples/flux/rendered", got)
	}
	if ignore := stringAt(source, "spec", "ignore"); !strings.Contains(ignore, "!/examples/flux/rendered/") {
		t.Errorf("the GitRepository's ignore rules leave out rendered/:\n%s", ignore)
	}
	workflow := readFile(t, filepath.Join("flux", "ci", "render.yaml"))
	if _, err := yaml.Parse(workflow); err != nil {
		t.Errorf("ci/render.yaml is not YAML: %v", err)
	}
	if !strings.Contains(workflow, "run: ./render.sh\n") {
		t.Error("ci/render.yaml does not run ./render.sh")
	}
}
