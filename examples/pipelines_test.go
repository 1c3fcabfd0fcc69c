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
		"sidecar-lifecycle: error: Deployment orders/api: not as configured",
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
	if want := "\n::error file=manifests/api.yaml::sidecar-lifecycle: Deployment orders/api: not as configured; "; !strings.Contains("\n"+stderr, want) {
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

// argocdInstall is the upstream manifest the install kustomizations of
// examples/argocd patch; the tests swap it for argocdInstallStandIn.
const argocdInstall = "https://raw.githubusercontent.com/argoproj/argo-cd/v3.4.2/manifests/install.yaml"

// argocdInstallStandIn holds the objects and fields of Argo CD's
// install.yaml that the patches touch, so that the tests can build the
// install kustomizations offline and see that the patches merge into the
// upstream lists instead of replacing them.
const argocdInstallStandIn = `apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-cm
  labels:
    app.kubernetes.io/name: argocd-cm
    app.kubernetes.io/part-of: argocd
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: argocd-repo-server
spec:
  selector:
    matchLabels:
      app.kubernetes.io/name: argocd-repo-server
  template:
    metadata:
      labels:
        app.kubernetes.io/name: argocd-repo-server
    spec:
      initContainers:
      - name: copyutil
        image: quay.io/argoproj/argocd:v3.4.2
        command: [/bin/cp, -n, /usr/local/bin/argocd, /var/run/argocd/argocd-cmp-server]
        volumeMounts:
        - name: var-files
          mountPath: /var/run/argocd
      containers:
      - name: argocd-repo-server
        image: quay.io/argoproj/argocd:v3.4.2
        args: [/usr/local/bin/argocd-repo-server]
        volumeMounts:
        - name: ssh-known-hosts
          mountPath: /app/config/ssh
        - name: tmp
          mountPath: /tmp
        - name: plugins
          mountPath: /home/argocd/cmp-server/plugins
        - name: var-files
          mountPath: /var/run/argocd
      volumes:
      - name: ssh-known-hosts
        configMap:
          name: argocd-ssh-known-hosts-cm
      - name: tmp
        emptyDir: {}
      - name: plugins
        emptyDir: {}
      - name: var-files
        emptyDir: {}
`

// buildArgoCDInstall builds examples/argocd/<variant> (exec or cmp) with the
// upstream install.yaml swapped for argocdInstallStandIn, and checks what
// both variants share: the init container that copies the binary, and the
// upstream parts kept.
func buildArgoCDInstall(t *testing.T, kustomize, variant string) []*yaml.RNode {
	t.Helper()
	dir := workDir(t, "argocd-"+variant)
	copyDir(t, filepath.Join("argocd", variant), dir)
	kustomization := readFile(t, filepath.Join(dir, "kustomization.yaml"))
	if !strings.Contains(kustomization, "- "+argocdInstall+"\n") {
		t.Fatalf("argocd/%s/kustomization.yaml no longer lists %s; update argocdInstall in this test", variant, argocdInstall)
	}
	writeFiles(t, dir, map[string]string{
		"kustomization.yaml":  strings.Replace(kustomization, argocdInstall, "argocd-install.yaml", 1),
		"argocd-install.yaml": argocdInstallStandIn,
	})
	items := parseItems(t, mustRun(t, dir, nil, kustomize, "build", "."))
	for _, item := range items {
		if item.GetNamespace() != "argocd" {
			t.Errorf("argocd/%s: %s is in namespace %q, want argocd", variant, krmtest.ID(item), item.GetNamespace())
		}
	}
	spec := podSpecOf(t, items, "Deployment", "argocd-repo-server")
	// Strategic merge adds the patch's init container before Argo CD's own;
	// the two are independent, so either order works.
	inits := " " + strings.Join(containerNames(spec, "initContainers"), " ") + " "
	for _, name := range []string{"copyutil", "sidecar-lifecycle-tools"} {
		if !strings.Contains(inits, " "+name+" ") {
			t.Errorf("argocd/%s: the repo server has no init container %s (it has%s)", variant, name, inits)
		}
	}
	tools := containerNamed(t, spec, "initContainers", "sidecar-lifecycle-tools")
	if got := stringAt(tools, "volumeMounts", "[name=custom-tools]", "mountPath"); got != "/custom-tools" {
		t.Errorf("argocd/%s: sidecar-lifecycle-tools mounts custom-tools at %q, want /custom-tools", variant, got)
	}
	for _, volume := range []string{"ssh-known-hosts", "tmp", "plugins", "var-files", "custom-tools"} {
		if v, _ := spec.Pipe(yaml.Lookup("volumes", "[name="+volume+"]")); v == nil {
			t.Errorf("argocd/%s: the repo server pod has no volume %s", variant, volume)
		}
	}
	server := containerNamed(t, spec, "containers", "argocd-repo-server")
	if got := stringAt(server, "args", "[=/usr/local/bin/argocd-repo-server]"); got == "" {
		t.Errorf("argocd/%s: the argocd-repo-server container lost its args:\n%s", variant, server.MustString())
	}
	if got := len(containerMounts(server)); got < 4 {
		t.Errorf("argocd/%s: the argocd-repo-server container has %d volume mounts; the patch replaced Argo CD's own:\n%s", variant, got, server.MustString())
	}
	return items
}

// containerMounts maps each volume mount's path to its volume and subPath.
func containerMounts(container *yaml.RNode) map[string]string {
	mounts := map[string]string{}
	list, err := container.Pipe(yaml.Lookup("volumeMounts"))
	if err != nil || list == nil {
		return mounts
	}
	for _, m := range list.Content() {
		mount := yaml.NewRNode(m)
		mounts[stringAt(mount, "mountPath")] = strings.TrimSuffix(stringAt(mount, "name")+":"+stringAt(mount, "subPath"), ":")
	}
	return mounts
}

// argocdBuildEnv is the build environment Argo CD gives kustomize and
// plugins for the example Application.
var argocdBuildEnv = []string{
	"ARGOCD_APP_NAME=payments",
	"ARGOCD_APP_NAMESPACE=shop",
	"ARGOCD_APP_PROJECT_NAME=default",
	"ARGOCD_APP_SOURCE_PATH=examples/argocd/app",
	"ARGOCD_APP_SOURCE_REPO_URL=https://github.com/sidecar-lifecycle/sidecar-lifecycle.git",
	"ARGOCD_APP_SOURCE_TARGET_REVISION=HEAD",
	"KUBE_VERSION=1.30.0",
}

// TestArgoCDBuildOptions renders examples/argocd/app as Argo CD's repo
// server renders a kustomize Application: kustomize build <app path>
// followed by kustomize.buildOptions from the patched argocd-cm, run from
// the repository root, with sidecar-lifecycle on PATH where the patched
// repo server has it.
func TestArgoCDBuildOptions(t *testing.T) {
	kustomize := kustomizeTool(t)
	items := buildArgoCDInstall(t, kustomize, "exec")
	buildOptions := stringAt(findItem(t, items, "ConfigMap", "argocd-cm"), "data", "kustomize.buildOptions")
	for _, flag := range []string{"--enable-alpha-plugins", "--enable-exec"} {
		if !strings.Contains(" "+buildOptions+" ", " "+flag+" ") {
			t.Errorf("argocd-cm kustomize.buildOptions is %q, want it to contain %s", buildOptions, flag)
		}
	}
	server := containerNamed(t, podSpecOf(t, items, "Deployment", "argocd-repo-server"), "containers", "argocd-repo-server")
	if got := containerMounts(server)["/usr/local/bin/sidecar-lifecycle"]; got != "custom-tools:sidecar-lifecycle" {
		t.Errorf("argocd-repo-server mounts %q at /usr/local/bin/sidecar-lifecycle, want custom-tools:sidecar-lifecycle", got)
	}
	checkApplication(t, filepath.Join("argocd", "exec", "application.yaml"), "")

	repo := workDir(t, "argocd-repo")
	copyDir(t, "argocd", repo)
	env := append(toolsOnPath(t, functionBinary()), argocdBuildEnv...)
	args := append([]string{"build", filepath.Join(repo, "app")}, strings.Fields(buildOptions)...)
	out := mustRun(t, repo, env, kustomize, args...)
	checkGolden(t, filepath.Join("argocd", "expected", "output.yaml"), out)
	checkArgoCDApp(t, parseItems(t, out))
	checkKustomizeAgain(t, kustomize, env, out, filepath.Join(repo, "app", "sidecar-lifecycle.yaml"))
}

// TestArgoCDConfigManagementPlugin runs the generate command of
// examples/argocd/cmp/plugin.yaml as Argo CD's CMP server does: command[0]
// with command[1:] and args, in the Application's source directory, with the
// sidecar's environment plus Argo CD's build environment. The output must be
// what the buildOptions way renders.
func TestArgoCDConfigManagementPlugin(t *testing.T) {
	kustomize := kustomizeTool(t)
	pluginYAML := readFile(t, filepath.Join("argocd", "cmp", "plugin.yaml"))
	plugin, err := yaml.Parse(pluginYAML)
	if err != nil {
		t.Fatalf("parsing plugin.yaml: %v", err)
	}
	if plugin.GetApiVersion() != "argoproj.io/v1alpha1" || plugin.GetKind() != "ConfigManagementPlugin" {
		t.Fatalf("plugin.yaml is %s %s, want argoproj.io/v1alpha1 ConfigManagementPlugin", plugin.GetApiVersion(), plugin.GetKind())
	}
	pluginName := plugin.GetName()
	if version := stringAt(plugin, "spec", "version"); version != "" {
		pluginName += "-" + version
	}
	checkApplication(t, filepath.Join("argocd", "cmp", "application.yaml"), pluginName)

	// The install: plugin.yaml in a generated ConfigMap, mounted where the
	// CMP server reads it, in a sidecar that runs argocd-cmp-server as 999.
	items := buildArgoCDInstall(t, kustomize, "cmp")
	var configMap *yaml.RNode
	for _, item := range items {
		if item.GetKind() == "ConfigMap" && strings.HasPrefix(item.GetName(), "sidecar-lifecycle-plugin-") {
			configMap = item
		}
	}
	if configMap == nil {
		t.Fatal("argocd/cmp builds no ConfigMap sidecar-lifecycle-plugin-<hash>")
	}
	if got := stringAt(configMap, "data", "plugin.yaml"); got != pluginYAML {
		t.Errorf("the plugin ConfigMap's plugin.yaml differs from argocd/cmp/plugin.yaml:\n%s", diff(pluginYAML, got))
	}
	if _, ok := findItem(t, items, "ConfigMap", "argocd-cm").GetDataMap()["kustomize.buildOptions"]; ok {
		t.Error("argocd/cmp sets kustomize.buildOptions in argocd-cm; the plugin should need no global exec")
	}
	spec := podSpecOf(t, items, "Deployment", "argocd-repo-server")
	if got := stringAt(spec, "volumes", "[name=sidecar-lifecycle-plugin]", "configMap", "name"); got != configMap.GetName() {
		t.Errorf("the plugin volume refers to ConfigMap %q, want the generated %s", got, configMap.GetName())
	}
	sidecar := containerNamed(t, spec, "containers", "sidecar-lifecycle")
	if got := stringAt(sidecar, "command", "[=/var/run/argocd/argocd-cmp-server]"); got == "" {
		t.Errorf("the plugin sidecar does not run /var/run/argocd/argocd-cmp-server:\n%s", sidecar.MustString())
	}
	if got := stringAt(sidecar, "securityContext", "runAsUser"); got != "999" {
		t.Errorf("the plugin sidecar runs as user %q, want 999", got)
	}
	mounts := containerMounts(sidecar)
	for path, want := range map[string]string{
		"/var/run/argocd":                            "var-files",
		"/home/argocd/cmp-server/plugins":            "plugins",
		"/home/argocd/cmp-server/config/plugin.yaml": "sidecar-lifecycle-plugin:plugin.yaml",
		"/tmp":                             "cmp-tmp",
		"/usr/local/bin/sidecar-lifecycle": "custom-tools:sidecar-lifecycle",
	} {
		if got := mounts[path]; got != want {
			t.Errorf("the plugin sidecar mounts %q at %s, want %s", got, path, want)
		}
	}

	// generate, as the CMP server runs it.
	var command, args []string
	if err := plugin.PipeE(yaml.Lookup("spec", "generate", "command"), yaml.FilterFunc(func(n *yaml.RNode) (*yaml.RNode, error) {
		return n, n.Document().Decode(&command)
	})); err != nil || len(command) == 0 {
		t.Fatalf("plugin.yaml has no spec.generate.command: %v", err)
	}
	if list, _ := plugin.Pipe(yaml.Lookup("spec", "generate", "args")); list != nil {
		if err := list.Document().Decode(&args); err != nil {
			t.Fatalf("plugin.yaml spec.generate.args: %v", err)
		}
	}
	repo := workDir(t, "argocd-cmp-repo")
	copyDir(t, "argocd", repo)
	cmd := exec.Command(command[0], append(command[1:], args...)...)
	cmd.Dir = filepath.Join(repo, "app")
	cmd.Env = append(append(os.Environ(), toolsOnPath(t, kustomize, functionBinary())...), argocdBuildEnv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("plugin generate %q: %v\nstderr:\n%s", cmd.Args, err, stderr.String())
	}
	out := stdout.String()
	checkGolden(t, filepath.Join("argocd", "expected", "output.yaml"), out)
	checkArgoCDApp(t, parseItems(t, out))
	checkKustomizeAgain(t, kustomize, toolsOnPath(t, functionBinary()), out, filepath.Join(repo, "app", "sidecar-lifecycle.yaml"))
}

// checkApplication checks that an example Application renders
// examples/argocd/app, with the plugin when plugin is not "".
func checkApplication(t *testing.T, path, plugin string) {
	t.Helper()
	app, err := yaml.Parse(readFile(t, path))
	if err != nil {
		t.Fatalf("parsing %s: %v", path, err)
	}
	if app.GetApiVersion() != "argoproj.io/v1alpha1" || app.GetKind() != "Application" {
		t.Errorf("%s is %s %s, want an argoproj.io/v1alpha1 Application", path, app.GetApiVersion(), app.GetKind())
	}
	if got := stringAt(app, "spec", "source", "path"); got != "examples/argocd/app" {
		t.Errorf("%s: spec.source.path is %q, want examples/argocd/app", path, got)
	}
	if got := stringAt(app, "spec", "source", "plugin", "name"); got != plugin {
		t.Errorf("%s: spec.source.plugin.name is %q, want %q", path, got, plugin)
	}
}

// checkArgoCDApp checks the rendered payments Deployment beyond the golden
// file: the Cloud SQL Auth Proxy is a native sidecar and the pod asks Istio
// for a native sidecar too.
func checkArgoCDApp(t *testing.T, items []*yaml.RNode) {
	t.Helper()
	checkValidItems(t, items)
	checkNativeSidecar(t, podSpecOf(t, items, "Deployment", "payments"), "Deployment/payments", "cloud-sql-proxy", "")
	if got := podAnnotation(t, items, "Deployment", "payments", "sidecar.istio.io/nativeSidecar"); got != "true" {
		t.Errorf("Deployment/payments: sidecar.istio.io/nativeSidecar is %q, want true", got)
	}
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
