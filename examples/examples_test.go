// Package examples_test runs every example through the real tool it is
// written for (bin/kustomize, kpt on PATH), compares the result with the
// example's expected/ output, and runs the tool again on that result to show
// that nothing changes. UPDATE_GOLDEN=1 rewrites the expected output.
package examples_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/testbin"
)

// Tool versions the expected output was made with.
const (
	kustomizeVersion = "v5.8.2"
	kptVersion       = "1.0.0-beta.56"
)

// root holds bin/sidecar-lifecycle, a link to the binary built once for the
// run (internal/testbin), and examples/<copy> for each run, so that an exec
// path of ../../bin/sidecar-lifecycle in a copied example finds the binary
// built from this tree.
var root string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	// The function writes GitHub workflow commands instead of its plain
	// lines when GITHUB_ACTIONS=true; the tests that want them set it.
	os.Unsetenv("GITHUB_ACTIONS")
	dir, err := os.MkdirTemp("", "sidecar-lifecycle-examples-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	root = dir
	if err := os.Mkdir(filepath.Join(root, "examples"), 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer testbin.Remove()
	if err := placeBinary(); err != nil {
		fmt.Fprintln(os.Stderr, "the function's binary:", err)
		return 1
	}
	return m.Run()
}

// placeBinary links the function's binary, built once for the run, as
// root/bin/sidecar-lifecycle, where the examples' configs name it.
func placeBinary() error {
	binary, err := testbin.Path()
	if err != nil {
		return err
	}
	if err := os.Mkdir(filepath.Dir(functionBinary()), 0o755); err != nil {
		return err
	}
	return os.Symlink(binary, functionBinary())
}

func functionBinary() string { return filepath.Join(root, "bin", "sidecar-lifecycle") }

func update() bool { return os.Getenv("UPDATE_GOLDEN") == "1" }

// kustomizeTool returns the repository's bin/kustomize, or fails the test.
func kustomizeTool(t *testing.T) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "bin", "kustomize"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("kustomize is not installed at %s: run `make tools` (installs kustomize %s into bin/)", path, kustomizeVersion)
	}
	out, err := exec.Command(path, "version").Output()
	if got := strings.TrimSpace(string(out)); err != nil || got != kustomizeVersion {
		t.Fatalf("%s version is %q (%v), want %s, the version the expected output was made with: run `make tools`", path, got, err, kustomizeVersion)
	}
	return path
}

// kptTool returns kpt from PATH, or fails the test.
func kptTool(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("kpt")
	if err != nil {
		t.Fatalf("kpt is not on PATH: install kpt v%s from https://github.com/kptdev/kpt/releases (`make tools` checks for it)", kptVersion)
	}
	if out, err := exec.Command(path, "version").Output(); err != nil || strings.TrimSpace(string(out)) != kptVersion {
		t.Logf("kpt version is %q, the expected output was made with %s", strings.TrimSpace(string(out)), kptVersion)
	}
	return path
}

// run runs a tool in dir and returns its stdout and stderr.
func run(t *testing.T, dir string, env []string, tool string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(tool, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// mustRun runs a tool and fails the test if it fails.
func mustRun(t *testing.T, dir string, env []string, tool string, args ...string) string {
	t.Helper()
	stdout, stderr, err := run(t, dir, env, tool, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\nstderr:\n%s", filepath.Base(tool), strings.Join(args, " "), err, stderr)
	}
	return stdout
}

// workDir makes an empty directory two levels below root.
func workDir(t *testing.T, name string) string {
	t.Helper()
	dir, err := os.MkdirTemp(filepath.Join(root, "examples"), name+"-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// copyDir copies the files of src into dst, leaving out src/expected.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel == "expected" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatalf("copying %s: %v", src, err)
	}
}

// readDir returns the files under dir by slash-separated relative path.
func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatalf("reading %s: %v", dir, err)
	}
	return files
}

// checkGolden compares got with the file at path, or rewrites the file when
// UPDATE_GOLDEN=1.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if err := krmtest.Strict([]byte(got)); err != nil {
		t.Errorf("%s: %v", path, err)
	}
	if update() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading expected output: %v (UPDATE_GOLDEN=1 writes it)", err)
	}
	if string(want) != got {
		t.Errorf("output differs from %s (- expected, + got; UPDATE_GOLDEN=1 rewrites it):\n%s", path, diff(string(want), got))
	}
}

// checkGoldenDir compares the files under dir with those under want, or
// replaces want with a copy of dir when UPDATE_GOLDEN=1.
func checkGoldenDir(t *testing.T, want, dir string) {
	t.Helper()
	if update() {
		if err := os.RemoveAll(want); err != nil {
			t.Fatal(err)
		}
		copyDir(t, dir, want)
		return
	}
	got := readDir(t, dir)
	for name, text := range got {
		if err := krmtest.Strict([]byte(text)); err != nil && strings.HasSuffix(name, ".yaml") {
			t.Errorf("%s: %v", name, err)
		}
	}
	sameFiles(t, want, readDir(t, want), dir, got)
	if t.Failed() {
		t.Logf("after a deliberate change, UPDATE_GOLDEN=1 rewrites %s", want)
	}
}

// sameFiles reports every file that is missing, extra or different.
func sameFiles(t *testing.T, wantName string, want map[string]string, gotName string, got map[string]string) {
	t.Helper()
	for name, w := range want {
		g, ok := got[name]
		switch {
		case !ok:
			t.Errorf("%s: %s has this file, %s does not", name, wantName, gotName)
		case g != w:
			t.Errorf("%s: %s and %s differ (- %[2]s, + %[3]s):\n%s", name, wantName, gotName, diff(w, g))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: %s has this file, %s does not", name, gotName, wantName)
		}
	}
}

// checkSidecarFirst checks, beyond the expected output, that the workload's
// first container is the sidecar and that it has a postStart hook.
func checkSidecarFirst(t *testing.T, items []*yaml.RNode, kind, name, sidecar string, preStop bool) {
	t.Helper()
	for _, item := range items {
		if item.GetKind() != kind || item.GetName() != name {
			continue
		}
		path := []string{"spec", "template", "spec", "containers"}
		containers, err := item.Pipe(yaml.Lookup(path...))
		if err != nil || containers == nil {
			t.Fatalf("%s/%s has no %s: %v", kind, name, strings.Join(path, "."), err)
		}
		elements, err := containers.Elements()
		if err != nil || len(elements) == 0 {
			t.Fatalf("%s/%s has no containers: %v", kind, name, err)
		}
		first := elements[0]
		if got := stringAt(first, "name"); got != sidecar {
			t.Errorf("%s/%s: first container is %q, want %q", kind, name, got, sidecar)
		}
		if hook, _ := first.Pipe(yaml.Lookup("lifecycle", "postStart", "exec", "command")); hook == nil {
			t.Errorf("%s/%s: %s has no postStart exec command", kind, name, sidecar)
		}
		if hook, _ := first.Pipe(yaml.Lookup("lifecycle", "preStop")); preStop && hook == nil {
			t.Errorf("%s/%s: %s has no preStop", kind, name, sidecar)
		}
		return
	}
	t.Errorf("no %s/%s in the output", kind, name)
}

func parseItems(t *testing.T, stream string) []*yaml.RNode {
	t.Helper()
	items, err := kio.FromBytes([]byte(stream))
	if err != nil {
		t.Fatalf("parsing output: %v", err)
	}
	return items
}

// TestKustomizeExec renders examples/kustomize-exec with kustomize and the
// function as an exec transformer, then renders that output again.
func TestKustomizeExec(t *testing.T) {
	kustomize := kustomizeTool(t)
	dir := workDir(t, "kustomize-exec")
	copyDir(t, "kustomize-exec", dir)

	out := mustRun(t, dir, nil, kustomize, "build", "--enable-alpha-plugins", "--enable-exec", ".")
	checkGolden(t, filepath.Join("kustomize-exec", "expected", "output.yaml"), out)
	checkSidecarFirst(t, parseItems(t, out), "Deployment", "web", "linkerd-proxy", true)

	renderAgain(t, kustomize, dir, "kustomize-exec-again", out)
}

// TestKustomizeOwnCatalogEntry renders examples/catalog-own-entry, whose
// functionConfig adds a sidecar of its own to the catalog, with kustomize:
// the proxy is recognised by its image and ordered; rendering that output
// again changes nothing.
func TestKustomizeOwnCatalogEntry(t *testing.T) {
	kustomize := kustomizeTool(t)
	dir := workDir(t, "catalog-own-entry")
	copyDir(t, "catalog-own-entry", dir)

	out := mustRun(t, dir, nil, kustomize, "build", "--enable-alpha-plugins", "--enable-exec", ".")
	checkGolden(t, filepath.Join("catalog-own-entry", "expected", "output.yaml"), out)
	items := parseItems(t, out)
	checkSidecarFirst(t, items, "Deployment", "checkout", "egress", true)
	checkValidItems(t, items)

	renderAgain(t, kustomize, dir, "catalog-own-entry-again", out)
}

// renderAgain renders out, kustomize's output of the example in dir, with
// the example's functionConfig as an exec transformer in a new directory
// named again: the output must not change.
func renderAgain(t *testing.T, kustomize, dir, again, out string) {
	t.Helper()
	to := workDir(t, again)
	config, err := os.ReadFile(filepath.Join(dir, "sidecar-lifecycle.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, to, map[string]string{
		"kustomization.yaml":     "resources:\n- rendered.yaml\ntransformers:\n- sidecar-lifecycle.yaml\n",
		"rendered.yaml":          out,
		"sidecar-lifecycle.yaml": string(config),
	})
	if second := mustRun(t, to, nil, kustomize, "build", "--enable-alpha-plugins", "--enable-exec", "."); second != out {
		t.Errorf("rendering the output again changed it (not idempotent; - first, + second):\n%s", diff(out, second))
	}
}

// TestKustomizeInvalidConfig checks that an unknown config field fails the
// build and that kustomize's stderr names the field.
func TestKustomizeInvalidConfig(t *testing.T) {
	kustomize := kustomizeTool(t)
	dir := workDir(t, "kustomize-invalid")
	copyDir(t, "kustomize-exec", dir)
	path := filepath.Join(dir, "sidecar-lifecycle.yaml")
	config, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// drainDelay belongs under spec.app, not under a sidecar.
	const field, typo = "    waitBeforeExit: 30s\n", "    waitBeforeExit: 30s\n    drainDelay: 5s\n"
	if !bytes.Contains(config, []byte(field)) {
		t.Fatalf("%s no longer has %q; update this test", path, field)
	}
	writeFiles(t, dir, map[string]string{"sidecar-lifecycle.yaml": strings.Replace(string(config), field, typo, 1)})

	stdout, stderr, err := run(t, dir, nil, kustomize, "build", "--enable-alpha-plugins", "--enable-exec", ".")
	if err == nil {
		t.Fatalf("kustomize build succeeded with an unknown config field; output:\n%s", stdout)
	}
	if want := "spec.sidecars[0].drainDelay"; !strings.Contains(stderr, want) {
		t.Errorf("kustomize's stderr does not name the field %s:\n%s", want, stderr)
	}
}

// TestKustomizeShowsWarnings checks that a warning reaches kustomize's
// stderr, one line naming the resource, though the build succeeds:
// kustomize drops a function's results.
func TestKustomizeShowsWarnings(t *testing.T) {
	kustomize := kustomizeTool(t)
	dir := workDir(t, "kustomize-warning")
	copyDir(t, "kustomize-exec", dir)
	writeFiles(t, dir, map[string]string{
		"kustomization.yaml": "resources:\n- deployment.yaml\n- service.yaml\n- job.yaml\ntransformers:\n- sidecar-lifecycle.yaml\n",
		// A Job in ordered mode: its proxy never exits, so the Job never completes.
		"job.yaml": "apiVersion: batch/v1\nkind: Job\nmetadata: {name: migrate, namespace: shop}\nspec:\n  template:\n    spec:\n" +
			"      restartPolicy: Never\n      containers:\n      - {name: migrate, image: 'shop/migrate:1'}\n      - {name: linkerd-proxy, image: 'cr.l5d.io/linkerd/proxy:edge-25.4.4'}\n",
	})
	stdout, stderr, err := run(t, dir, nil, kustomize, "build", "--enable-alpha-plugins", "--enable-exec", ".")
	if err != nil {
		t.Fatalf("kustomize build: %v\nstderr:\n%s", err, stderr)
	}
	const want = "sidecar-lifecycle: warning: Job shop/migrate spec.template.spec: Job in ordered mode: a sidecar that never exits keeps the Job running"
	if !strings.Contains(stderr, want) {
		t.Errorf("kustomize's stderr does not show the warning %q:\n%s", want, stderr)
	}
	if n := strings.Count(stderr, "sidecar-lifecycle: "); n != 1 {
		t.Errorf("kustomize's stderr has %d lines of the function, want 1:\n%s", n, stderr)
	}
	checkSidecarFirst(t, parseItems(t, stdout), "Job", "migrate", "linkerd-proxy", true)
}

// TestKptRender renders the package examples/kpt-exec/orders with its
// Kptfile pipeline, then renders the result again.
func TestKptRender(t *testing.T) {
	kpt := kptTool(t)
	pkg := filepath.Join(workDir(t, "kpt-render"), "orders")
	copyDir(t, filepath.Join("kpt-exec", "orders"), pkg)
	env := []string{"PATH=" + filepath.Dir(functionBinary()) + string(os.PathListSeparator) + os.Getenv("PATH")}

	results := t.TempDir()
	// kpt shows the results, then the function's stderr: the warning
	// (the Job's) is shown once, as a result, with the field it is about.
	stdout, stderr, err := run(t, pkg, env, kpt, "fn", "render", "--allow-exec", "--results-dir", results, ".")
	if err != nil {
		t.Fatalf("kpt fn render: %v\nstderr:\n%s", err, stderr)
	}
	if out := stdout + stderr; !strings.Contains(out, "[warning] batch/v1/Job/orders/orders-migrate spec.template.spec: Job in ordered mode") ||
		strings.Contains(out, "sidecar-lifecycle: warning") || strings.Contains(out, "Stderr") {
		t.Errorf("kpt does not show the warning once, as a result:\n%s", out)
	}
	checkGoldenDir(t, filepath.Join("kpt-exec", "expected", "orders"), pkg)
	checkGolden(t, filepath.Join("kpt-exec", "expected", "results.yaml"), readFile(t, filepath.Join(results, "results.yaml")))
	items := readPackage(t, pkg)
	checkSidecarFirst(t, items, "StatefulSet", "orders", "istio-proxy", true)
	checkSidecarFirst(t, items, "Job", "orders-migrate", "cloud-sql-proxy", false)

	first := readDir(t, pkg)
	results = t.TempDir()
	mustRun(t, pkg, env, kpt, "fn", "render", "--allow-exec", "--results-dir", results, ".")
	sameFiles(t, "the first render", first, "the second render", readDir(t, pkg))
	checkNoChanges(t, readFile(t, filepath.Join(results, "results.yaml")))
}

// TestKptEval runs the function imperatively with kpt fn eval --exec on a
// copy of the package, twice, and expects what the Kptfile pipeline renders.
func TestKptEval(t *testing.T) {
	kpt := kptTool(t)
	pkg := filepath.Join(workDir(t, "kpt-eval"), "orders")
	copyDir(t, filepath.Join("kpt-exec", "orders"), pkg)
	eval := func(results string) {
		t.Helper()
		mustRun(t, pkg, nil, kpt, "fn", "eval", "--exec", functionBinary(),
			"--fn-config", "sidecar-lifecycle.yaml", "--results-dir", results, ".")
	}

	eval(t.TempDir())
	expected := filepath.Join("kpt-exec", "expected", "orders")
	sameFiles(t, expected, readDir(t, expected), pkg, readDir(t, pkg))

	first := readDir(t, pkg)
	results := t.TempDir()
	eval(results)
	sameFiles(t, "the first eval", first, "the second eval", readDir(t, pkg))
	checkNoChanges(t, readFile(t, filepath.Join(results, "results.yaml")))
}

// checkNoChanges fails when a kpt results file reports a changed resource:
// an info result with a resourceRef.
func checkNoChanges(t *testing.T, resultsYAML string) {
	t.Helper()
	list, err := yaml.Parse(resultsYAML)
	if err != nil {
		t.Fatalf("parsing kpt results: %v", err)
	}
	fns, err := list.Pipe(yaml.Lookup("items"))
	if err != nil || fns == nil {
		t.Fatalf("kpt results have no items: %v\n%s", err, resultsYAML)
	}
	for _, fn := range fns.Content() {
		field := yaml.NewRNode(fn).Field("results")
		if field == nil {
			continue
		}
		for _, r := range field.Value.Content() {
			result := yaml.NewRNode(r)
			if stringAt(result, "severity") == "info" && result.Field("resourceRef") != nil {
				t.Errorf("second run reported a change:\n%s", result.MustString())
			}
		}
	}
}

// stringAt returns the scalar at path below node, or "" when there is none.
func stringAt(node *yaml.RNode, path ...string) string {
	value, err := node.Pipe(yaml.Lookup(path...))
	if err != nil {
		return ""
	}
	return yaml.GetValue(value)
}

// readPackage parses the YAML files of a kpt package.
func readPackage(t *testing.T, dir string) []*yaml.RNode {
	t.Helper()
	items, err := kio.LocalPackageReader{PackagePath: dir, MatchFilesGlob: []string{"*.yaml"}}.Read()
	if err != nil {
		t.Fatalf("reading %s: %v", dir, err)
	}
	return items
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestKptEvalKeepsVendorFiles runs the function with kpt fn eval --exec on
// a package of vendors' published files in the shapes the streaming path
// takes item by item (Istio's CRDs with descriptions quoted over several
// lines and a `# Source:` line before each resource, Google's AlloyDB
// sample with a `# [END …]` comment last, a ConfigMap whose block scalar
// holds tabs) and a Pod it edits: every file the run does not change comes
// out as kpt's own round trip writes it (kpt fn eval with cat), byte for
// byte, and the edited ones keep their comments.
func TestKptEvalKeepsVendorFiles(t *testing.T) {
	kpt := kptTool(t)
	files := map[string]string{
		"crds.yaml":    readFile(t, filepath.Join("..", "internal", "driver", "testdata", "published", "istio-base", "input.yaml")),
		"alloydb.yaml": readFile(t, filepath.Join("..", "internal", "driver", "testdata", "catalog", "alloydb-auth-proxy", "proxy_sidecar_deployment.yaml")),
		"make.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: make\ndata:\n  Makefile: |\n    all:\n    \tgo build ./...\n",
		"pod.yaml":     "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: app\n    image: shop/web:1\n  - name: linkerd-proxy\n    image: cr.l5d.io/linkerd/proxy:edge-24.1.1\n",
		"sidecar-lifecycle.yaml": "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata:\n  name: mesh\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n" +
			"spec:\n  sidecars:\n  - preset: linkerd\n",
	}
	dir := workDir(t, "kpt-vendor")
	function, roundTrip := filepath.Join(dir, "function"), filepath.Join(dir, "round-trip")
	for _, pkg := range []string{function, roundTrip} {
		if err := os.MkdirAll(pkg, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFiles(t, pkg, files)
	}
	mustRun(t, function, nil, kpt, "fn", "eval", "--exec", functionBinary(), "--fn-config", "sidecar-lifecycle.yaml", ".")
	mustRun(t, roundTrip, nil, kpt, "fn", "eval", "--exec", "/bin/cat", ".")
	got, want := readDir(t, function), readDir(t, roundTrip)
	if !strings.Contains(got["pod.yaml"], "  - name: linkerd-proxy\n    image: cr.l5d.io/linkerd/proxy:edge-24.1.1\n    lifecycle:") {
		t.Errorf("the Pod is not edited:\n%s", got["pod.yaml"])
	}
	// The sample's Deployment has no proxy: Linkerd injects it at
	// admission, so the run annotates its pod template. Its comments stay
	// but the licence header, which kpt drops from every file it writes
	// anew (`kpt fn source` has no such line either).
	sample := got["alloydb.yaml"]
	for _, comment := range []string{"# [START alloydb_auth_proxy_gke_quickstart_deployment]\n", "      # Your application container goes here.\n", "# [END alloydb_auth_proxy_gke_quickstart_deployment]\n", "config.linkerd.io/proxy-await: enabled\n"} {
		if !strings.Contains(sample, comment) {
			t.Errorf("the sample lacks %q:\n%s", comment, sample)
		}
	}
	for _, edited := range []string{"pod.yaml", "alloydb.yaml"} {
		delete(got, edited)
		delete(want, edited)
	}
	sameFiles(t, "kpt's round trip", want, "the function's output", got)
	if !strings.Contains(got["make.yaml"], "\tgo build") {
		t.Errorf("the tab is lost:\n%s", got["make.yaml"])
	}
}
