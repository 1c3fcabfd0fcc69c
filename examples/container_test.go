package examples_test

// The tests in this file run the function's container image: directly, from
// kustomize's `container:` transformer, and from a kpt pipeline's `image:`.
//
// Environment:
//
//	SIDECAR_LIFECYCLE_IMAGE  the local image of the function to test, as
//	                         `make image` (or, in CI, .ci/podman.sh) builds it.
//	                         `make image-test` builds it and runs these tests.
//	KPT_FN_RUNTIME           docker or podman: the engine that runs the image
//	                         (kpt reads it too). Unset: docker when
//	                         `docker info` works, else podman.
//	CI=true                  a missing image or engine fails the tests
//	                         instead of skipping them.
//
// kustomize always runs container functions with the docker CLI; with podman,
// point DOCKER_HOST at podman's Docker-compatible socket.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/bench/corpus"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/spool"
)

const (
	// publishedImage is the image the committed examples name; the tests
	// run a copy of each example that names the image under test instead.
	publishedImage = "ghcr.io/sidecar-lifecycle/sidecar-lifecycle@sha256:7bd209b6b81150f3f008f00f4e795836907f2d5a66b20990658840d169e8d4db"
	// imageEnv names the image to test.
	imageEnv = "SIDECAR_LIFECYCLE_IMAGE"
)

// imageUnderTest is the engine and image every container test uses, found
// once.
type imageUnderTest struct {
	engine  string // docker or podman
	path    string // the engine's executable
	missing string // why no engine works; set when engine is ""
	image   string // from imageEnv
	err     error  // the engine does not have the image
}

var (
	imageOnce   sync.Once
	imageResult imageUnderTest
)

// functionImage returns the container engine and the image to test. Without
// an image named in imageEnv it skips the test, saying what is missing, or
// fails it when CI=true. With an image named but no working engine, or an
// engine that does not have the image, it fails the test.
func functionImage(t *testing.T) (engine, image string) {
	t.Helper()
	imageOnce.Do(func() { imageResult = findImage() })
	r := imageResult
	if r.image == "" {
		engines := "container engine: " + r.engine
		if r.engine == "" {
			engines = "no container engine: " + r.missing
		}
		skipOrFail(t, "%s is not set, so there is no image of the function to test (%s). "+
			"`make image-test` builds the image and runs these tests; CI sets %[1]s from .ci/podman.sh", imageEnv, engines)
	}
	if r.engine == "" {
		t.Fatalf("%s=%s is set, but no container engine works to run it: %s", imageEnv, r.image, r.missing)
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.path, r.image
}

// skipOrFail skips the test with the reason, or fails it when CI=true: CI
// must not pass by skipping what it is meant to test.
func skipOrFail(t *testing.T, format string, args ...any) {
	t.Helper()
	reason := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI=true: this is an error, not a skip)", reason)
	}
	t.Skip(reason)
}

// findImage picks the engine and checks that it has the image.
func findImage() imageUnderTest {
	r := imageUnderTest{image: os.Getenv(imageEnv)}
	candidates := []string{"docker", "podman"}
	if os.Getenv("KPT_FN_RUNTIME") == "podman" {
		candidates = []string{"podman", "docker"}
	}
	var why []string
	for _, name := range candidates {
		path, err := exec.LookPath(name)
		if err != nil {
			why = append(why, name+" is not on PATH")
			continue
		}
		if err := engineWorks(path); err != nil {
			why = append(why, err.Error())
			continue
		}
		r.engine, r.path = name, path
		break
	}
	if r.engine == "" {
		r.missing = strings.Join(why, "; ")
		return r
	}
	if r.image == "" {
		return r
	}
	if err := engineCommand(r.path, "image", "inspect", r.image); err != nil {
		r.err = fmt.Errorf("%s=%s, but %s has no such image: %v; build it with `make image` (in CI, .ci/podman.sh)",
			imageEnv, r.image, r.engine, err)
	}
	return r
}

// engineWorks runs `<engine> info`, which fails when the engine's CLI
// cannot reach a working engine.
func engineWorks(path string) error { return engineCommand(path, "info") }

// engineCommand runs an engine's command for its exit code; the error names
// the command and holds the first line of its stderr.
func engineCommand(path string, args ...string) error {
	cmd := exec.Command(path, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("`%s %s` fails (%v): %s", filepath.Base(path), strings.Join(args, " "), err, firstLine(stderr.Bytes()))
	}
	return nil
}

// needDockerCLI skips (or, with CI=true, fails) the test unless the docker
// CLI works, and fails it unless the CLI's engine has the image.
func needDockerCLI(t *testing.T, image string) {
	t.Helper()
	path, err := exec.LookPath("docker")
	if err != nil {
		skipOrFail(t, "kustomize runs container functions with the docker CLI, and docker is not on PATH (with podman, install the docker CLI and point DOCKER_HOST at podman's socket)")
	}
	if err := engineWorks(path); err != nil {
		skipOrFail(t, "kustomize runs container functions with the docker CLI, and %v", err)
	}
	if err := engineCommand(path, "image", "inspect", image); err != nil {
		t.Fatalf("the docker CLI does not see %s: %v; with podman, point DOCKER_HOST at podman's socket", image, err)
	}
}

// runResult is what one run of the function printed and returned.
type runResult struct {
	stdout, stderr string
	exitCode       int
}

// runFunction runs name with args, input on stdin, and returns its output
// and exit code; it fails the test if the command could not run at all.
func runFunction(t *testing.T, input []byte, name string, args ...string) runResult {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Stdin = bytes.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running %s: %v", name, err)
	}
	return runResult{stdout: stdout.String(), stderr: stderr.String(), exitCode: cmd.ProcessState.ExitCode()}
}

// runImage runs the image as kpt and kustomize do: stdin attached, no
// network, as nobody.
func runImage(t *testing.T, engine, image string, input []byte) runResult {
	t.Helper()
	return runFunction(t, input, engine, "run", "--rm", "-i", "--network=none", "--user", "nobody", image)
}

// TestContainerImage runs the image and the binary built from this tree on
// the same ResourceLists from internal/driver/testdata and expects the same
// stdout and exit code: the image is the function, as a non-root user with
// no network.
func TestContainerImage(t *testing.T) {
	engine, image := functionImage(t)
	cases := []struct {
		name     string
		exitCode int
	}{
		{"ordered-linkerd", 0},
		{"native-cloud-sql-job", 0},
		{"configmap-form", 0},
		{"config-unknown-field", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join("..", "internal", "driver", "testdata", c.name)
			items := []byte(readFile(t, filepath.Join(dir, "items.yaml")))
			config := []byte(readFile(t, filepath.Join(dir, "config.yaml")))
			input, err := krmtest.ResourceList(items, config)
			if err != nil {
				t.Fatal(err)
			}
			want := runFunction(t, input, functionBinary())
			if want.exitCode != c.exitCode {
				t.Fatalf("the binary exits %d on %s, want %d; stderr:\n%s", want.exitCode, dir, c.exitCode, want.stderr)
			}
			got := runImage(t, engine, image, input)
			if got.exitCode != want.exitCode {
				t.Errorf("the image exits %d, the binary %d; image stderr:\n%s", got.exitCode, want.exitCode, got.stderr)
			}
			if got.stdout != want.stdout {
				t.Errorf("the image's stdout differs from the binary's (- binary, + image):\n%s", diff(want.stdout, got.stdout))
			}
			if !strings.Contains(got.stderr, want.stderr) {
				t.Errorf("the image's stderr does not hold the binary's:\nbinary:\n%s\nimage:\n%s", want.stderr, got.stderr)
			}
		})
	}
}

// TestContainerImageLargeList runs the image, as kpt and kustomize run it,
// on a list larger than the memory the function keeps for its input and
// output (spool.MemoryLimit): the rest goes to temporary files in the
// image's /tmp, which the user nobody must be able to write. The output
// must be the binary's.
func TestContainerImageLargeList(t *testing.T) {
	engine, image := functionImage(t)
	var input bytes.Buffer
	if err := corpus.Write(&input, 2600); err != nil {
		t.Fatal(err)
	}
	if input.Len() <= spool.MemoryLimit {
		t.Fatalf("the list is %d bytes, not more than the spools' %d", input.Len(), spool.MemoryLimit)
	}
	want := runFunction(t, input.Bytes(), functionBinary())
	if want.exitCode != 0 {
		t.Fatalf("the binary exits %d; stderr:\n%s", want.exitCode, want.stderr)
	}
	got := runImage(t, engine, image, input.Bytes())
	if got.exitCode != 0 {
		t.Fatalf("the image exits %d; stderr:\n%s", got.exitCode, got.stderr)
	}
	if got.stdout != want.stdout {
		t.Errorf("the image's output differs from the binary's on a %d-byte list", input.Len())
	}
}

// TestContainerKustomize renders examples/kustomize-container with kustomize
// running the image as a `container:` transformer, then renders that output
// again and runs the image on it to show that nothing changes.
func TestContainerKustomize(t *testing.T) {
	kustomize := kustomizeTool(t)
	engine, image := functionImage(t)
	needDockerCLI(t, image)
	dir := workDir(t, "kustomize-container")
	copyDir(t, "kustomize-container", dir)
	config := useImage(t, filepath.Join(dir, "sidecar-lifecycle.yaml"), publishedImage, image)

	out := mustRun(t, dir, nil, kustomize, "build", "--enable-alpha-plugins", ".")
	checkGolden(t, filepath.Join("kustomize-container", "expected", "output.yaml"), out)
	checkNativeIstio(t, parseItems(t, out), "checkout")

	again := workDir(t, "kustomize-container-again")
	writeFiles(t, again, map[string]string{
		"kustomization.yaml":     "resources:\n- rendered.yaml\ntransformers:\n- sidecar-lifecycle.yaml\n",
		"rendered.yaml":          out,
		"sidecar-lifecycle.yaml": config,
	})
	if second := mustRun(t, again, nil, kustomize, "build", "--enable-alpha-plugins", "."); second != out {
		t.Errorf("rendering the output again changed it (not idempotent; - first, + second):\n%s", diff(out, second))
	}

	// kustomize shows no results; the image's own say whether it changed anything.
	input, err := krmtest.ResourceList([]byte(out), []byte(config))
	if err != nil {
		t.Fatal(err)
	}
	res := runImage(t, engine, image, input)
	if res.exitCode != 0 {
		t.Fatalf("the image exits %d on its own output; stderr:\n%s", res.exitCode, res.stderr)
	}
	output, err := krmtest.Split([]byte(res.stdout))
	if err != nil {
		t.Fatalf("the image's output is not a ResourceList: %v", err)
	}
	for _, r := range krmtest.Reported(output.ResultList()) {
		t.Errorf("the image on its own output reported %s on %s: %s", r.Severity, r.Ref, r.Message)
	}
}

// TestContainerKpt renders the package examples/kpt-image/payments, whose
// Kptfile pipeline runs the function by image, with the image already
// local (--image-pull-policy never), then renders the result again.
func TestContainerKpt(t *testing.T) {
	kpt := kptTool(t)
	engine, image := functionImage(t)
	pkg := filepath.Join(workDir(t, "kpt-image"), "payments")
	copyDir(t, filepath.Join("kpt-image", "payments"), pkg)
	useImage(t, filepath.Join(pkg, "Kptfile"), publishedImage, image)
	env := []string{"KPT_FN_RUNTIME=" + filepath.Base(engine)}
	render := func() string {
		t.Helper()
		results := t.TempDir()
		mustRun(t, pkg, env, kpt, "fn", "render", "--image-pull-policy", "never", "--results-dir", results, ".")
		return strings.ReplaceAll(readFile(t, filepath.Join(results, "results.yaml")), image, publishedImage)
	}

	results := render()
	published := workDir(t, "kpt-image-published")
	copyDir(t, pkg, published)
	useImage(t, filepath.Join(published, "Kptfile"), image, publishedImage)
	checkGoldenDir(t, filepath.Join("kpt-image", "expected", "payments"), published)
	checkGolden(t, filepath.Join("kpt-image", "expected", "results.yaml"), results)
	checkSidecarFirst(t, readPackage(t, pkg), "Deployment", "payments", "egress-gateway", true)

	first := readDir(t, pkg)
	results = render()
	sameFiles(t, "the first render", first, "the second render", readDir(t, pkg))
	checkNoChanges(t, results)
}

// useImage replaces the image name from with to in the file at path and
// returns the new content.
func useImage(t *testing.T, path, from, to string) string {
	t.Helper()
	content := readFile(t, path)
	if !strings.Contains(content, from) {
		t.Fatalf("%s does not name the image %s; update this test", path, from)
	}
	replaced := strings.ReplaceAll(content, from, to)
	writeFiles(t, filepath.Dir(path), map[string]string{filepath.Base(path): replaced})
	return replaced
}

// checkNativeIstio checks, beyond the expected output, that the
// Deployment's istio-proxy is a native sidecar right after istio-init.
func checkNativeIstio(t *testing.T, items []*yaml.RNode, name string) {
	t.Helper()
	for _, item := range items {
		if item.GetKind() != "Deployment" || item.GetName() != name {
			continue
		}
		spec, err := item.Pipe(yaml.Lookup("spec", "template", "spec"))
		if err != nil || spec == nil {
			t.Fatalf("Deployment/%s has no pod spec: %v", name, err)
		}
		if c, _ := spec.Pipe(yaml.Lookup("containers", "[name=istio-proxy]")); c != nil {
			t.Errorf("Deployment/%s: istio-proxy is still in containers", name)
		}
		inits, _ := spec.Pipe(yaml.Lookup("initContainers"))
		if inits == nil {
			t.Fatalf("Deployment/%s has no initContainers", name)
		}
		var names []string
		for _, c := range inits.Content() {
			names = append(names, stringAt(yaml.NewRNode(c), "name"))
		}
		if got := strings.Join(names, ","); got != "istio-init,istio-proxy" {
			t.Errorf("Deployment/%s: initContainers are %s, want istio-init,istio-proxy", name, got)
		}
		proxy, _ := inits.Pipe(yaml.Lookup("[name=istio-proxy]"))
		if proxy == nil {
			return
		}
		if got := stringAt(proxy, "restartPolicy"); got != "Always" {
			t.Errorf("Deployment/%s: istio-proxy restartPolicy is %q, want Always", name, got)
		}
		if got := stringAt(proxy, "startupProbe", "httpGet", "port"); got != "15021" {
			t.Errorf("Deployment/%s: istio-proxy startupProbe port is %q, want 15021", name, got)
		}
		return
	}
	t.Errorf("no Deployment/%s in the output", name)
}

// firstLine returns the first non-empty line of out.
func firstLine(out []byte) string {
	for _, line := range strings.Split(string(out), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return "(no output)"
}
