package examples_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
)

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

// buildArgoCDInstall builds examples/argocd/<variant> (exec, cmp or
// cmp-helm) with the upstream install.yaml swapped for argocdInstallStandIn,
// and checks what all variants share: the init container that copies the
// binary, and the upstream parts kept.
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

// argocdKubeVersion and argocdAPIVersions stand for the destination
// cluster, which Argo CD passes as KUBE_VERSION and KUBE_API_VERSIONS.
const (
	argocdKubeVersion = "1.30.0"
	argocdAPIVersions = "v1,apps/v1,batch/v1,policy/v1"
	// argocdRevision stands for the commit Argo CD resolves targetRevision to.
	argocdRevision = "3f0c6a5e8b9d4c21a7e0f5b6d8c9e1a2b3c4d5e6"
)

// checkApplication checks that an example Application renders sourcePath,
// with the plugin when plugin is not "", and returns the environment Argo CD
// gives the build for it: the build environment the repo server sets
// (reposerver/repository: newEnv and getPluginEnvs in Argo CD v3.4.2), with
// the Application's plugin env as ARGOCD_ENV_<name>, $VARs in their values
// expanded from the build environment.
func checkApplication(t *testing.T, path, sourcePath, plugin string) []string {
	t.Helper()
	app, err := yaml.Parse(readFile(t, path))
	if err != nil {
		t.Fatalf("parsing %s: %v", path, err)
	}
	if app.GetApiVersion() != "argoproj.io/v1alpha1" || app.GetKind() != "Application" {
		t.Errorf("%s is %s %s, want an argoproj.io/v1alpha1 Application", path, app.GetApiVersion(), app.GetKind())
	}
	if got := stringAt(app, "spec", "source", "path"); got != sourcePath {
		t.Errorf("%s: spec.source.path is %q, want %s", path, got, sourcePath)
	}
	if got := stringAt(app, "spec", "source", "plugin", "name"); got != plugin {
		t.Errorf("%s: spec.source.plugin.name is %q, want %q", path, got, plugin)
	}
	// Application.InstanceName: <namespace>_<name> outside Argo CD's namespace.
	name := app.GetName()
	if ns := app.GetNamespace(); ns != "" && ns != "argocd" {
		name = ns + "_" + name
	}
	build := map[string]string{
		"ARGOCD_APP_NAME":                   name,
		"ARGOCD_APP_NAMESPACE":              stringAt(app, "spec", "destination", "namespace"),
		"ARGOCD_APP_PROJECT_NAME":           stringAt(app, "spec", "project"),
		"ARGOCD_APP_REVISION":               argocdRevision,
		"ARGOCD_APP_REVISION_SHORT":         argocdRevision[:7],
		"ARGOCD_APP_REVISION_SHORT_8":       argocdRevision[:8],
		"ARGOCD_APP_SOURCE_PATH":            stringAt(app, "spec", "source", "path"),
		"ARGOCD_APP_SOURCE_REPO_URL":        stringAt(app, "spec", "source", "repoURL"),
		"ARGOCD_APP_SOURCE_TARGET_REVISION": stringAt(app, "spec", "source", "targetRevision"),
		"KUBE_VERSION":                      argocdKubeVersion,
		"KUBE_API_VERSIONS":                 argocdAPIVersions,
	}
	var env []string
	for key, value := range build {
		env = append(env, key+"="+value)
	}
	var pluginEnv []struct{ Name, Value string }
	if list, _ := app.Pipe(yaml.Lookup("spec", "source", "plugin", "env")); list != nil {
		if err := list.Document().Decode(&pluginEnv); err != nil {
			t.Fatalf("%s: spec.source.plugin.env: %v", path, err)
		}
	}
	for _, e := range pluginEnv {
		value := os.Expand(e.Value, func(key string) string {
			if key == "$" {
				return "$"
			}
			return build[key]
		})
		env = append(env, "ARGOCD_ENV_"+e.Name+"="+value)
	}
	return env
}

// readPlugin reads examples/argocd/<variant>/plugin.yaml and returns it,
// its text, and the name Applications give it (<name>-<version>).
func readPlugin(t *testing.T, variant string) (plugin *yaml.RNode, text, name string) {
	t.Helper()
	text = readFile(t, filepath.Join("argocd", variant, "plugin.yaml"))
	plugin, err := yaml.Parse(text)
	if err != nil {
		t.Fatalf("parsing argocd/%s/plugin.yaml: %v", variant, err)
	}
	if plugin.GetApiVersion() != "argoproj.io/v1alpha1" || plugin.GetKind() != "ConfigManagementPlugin" {
		t.Fatalf("argocd/%s/plugin.yaml is %s %s, want argoproj.io/v1alpha1 ConfigManagementPlugin", variant, plugin.GetApiVersion(), plugin.GetKind())
	}
	name = plugin.GetName()
	if version := stringAt(plugin, "spec", "version"); version != "" {
		name += "-" + version
	}
	return plugin, text, name
}

// checkPluginSidecar checks the install of a plugin variant: the named
// sidecar runs argocd-cmp-server as 999 with Argo CD's mounts, its own
// /tmp, sidecar-lifecycle, and pluginYAML from a generated ConfigMap where
// the CMP server reads it; argocd-cm gets no global exec. It returns the
// sidecar.
func checkPluginSidecar(t *testing.T, items []*yaml.RNode, variant, container, pluginYAML string) *yaml.RNode {
	t.Helper()
	if _, ok := findItem(t, items, "ConfigMap", "argocd-cm").GetDataMap()["kustomize.buildOptions"]; ok {
		t.Errorf("argocd/%s sets kustomize.buildOptions in argocd-cm; the plugin should need no global exec", variant)
	}
	spec := podSpecOf(t, items, "Deployment", "argocd-repo-server")
	sidecar := containerNamed(t, spec, "containers", container)
	if got := stringAt(sidecar, "command", "[=/var/run/argocd/argocd-cmp-server]"); got == "" {
		t.Errorf("argocd/%s: the plugin sidecar does not run /var/run/argocd/argocd-cmp-server:\n%s", variant, sidecar.MustString())
	}
	if got := stringAt(sidecar, "securityContext", "runAsUser"); got != "999" {
		t.Errorf("argocd/%s: the plugin sidecar runs as user %q, want 999", variant, got)
	}
	mounts := containerMounts(sidecar)
	for path, want := range map[string]string{
		"/var/run/argocd":                  "var-files",
		"/home/argocd/cmp-server/plugins":  "plugins",
		"/usr/local/bin/sidecar-lifecycle": "custom-tools:sidecar-lifecycle",
	} {
		if got := mounts[path]; got != want {
			t.Errorf("argocd/%s: the plugin sidecar mounts %q at %s, want %s", variant, got, path, want)
		}
	}
	tmp := mounts["/tmp"]
	if v, _ := spec.Pipe(yaml.Lookup("volumes", "[name="+tmp+"]", "emptyDir")); tmp == "tmp" || v == nil {
		t.Errorf("argocd/%s: the plugin sidecar mounts %q at /tmp, want an emptyDir of its own", variant, tmp)
	}
	volume, ok := strings.CutSuffix(mounts["/home/argocd/cmp-server/config/plugin.yaml"], ":plugin.yaml")
	if !ok {
		t.Fatalf("argocd/%s: the plugin sidecar does not mount a plugin.yaml at /home/argocd/cmp-server/config/plugin.yaml", variant)
	}
	name := stringAt(spec, "volumes", "[name="+volume+"]", "configMap", "name")
	if !strings.HasPrefix(name, volume+"-") {
		t.Errorf("argocd/%s: the plugin volume %s refers to ConfigMap %q, want the generated %s-<hash>", variant, volume, name, volume)
	}
	if got := stringAt(findItem(t, items, "ConfigMap", name), "data", "plugin.yaml"); got != pluginYAML {
		t.Errorf("argocd/%s: the plugin ConfigMap's plugin.yaml differs from plugin.yaml:\n%s", variant, diff(pluginYAML, got))
	}
	return sidecar
}

// runPluginGenerate runs the plugin's generate command as Argo CD's CMP
// server does (cmpserver/plugin: runCommand): command[0] with command[1:]
// and args, no shell of its own, in dir, with the sidecar's environment
// plus env.
func runPluginGenerate(t *testing.T, plugin *yaml.RNode, dir string, env []string) (stdout, stderr string, err error) {
	t.Helper()
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
	cmd := exec.Command(command[0], append(command[1:], args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
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
	buildEnv := checkApplication(t, filepath.Join("argocd", "exec", "application.yaml"), "examples/argocd/app", "")

	repo := workDir(t, "argocd-repo")
	copyDir(t, "argocd", repo)
	env := append(toolsOnPath(t, functionBinary()), buildEnv...)
	args := append([]string{"build", filepath.Join(repo, "app")}, strings.Fields(buildOptions)...)
	out := mustRun(t, repo, env, kustomize, args...)
	checkGolden(t, filepath.Join("argocd", "expected", "output.yaml"), out)
	checkArgoCDApp(t, parseItems(t, out))
	checkKustomizeAgain(t, kustomize, env, out, filepath.Join(repo, "app", "sidecar-lifecycle.yaml"))
}

// TestArgoCDConfigManagementPlugin runs the generate command of
// examples/argocd/cmp/plugin.yaml as Argo CD's CMP server does, in the
// Application's source directory, with kustomize and the function on PATH.
// The output must be what the buildOptions way renders.
func TestArgoCDConfigManagementPlugin(t *testing.T) {
	kustomize := kustomizeTool(t)
	plugin, pluginYAML, pluginName := readPlugin(t, "cmp")
	buildEnv := checkApplication(t, filepath.Join("argocd", "cmp", "application.yaml"), "examples/argocd/app", pluginName)
	checkPluginSidecar(t, buildArgoCDInstall(t, kustomize, "cmp"), "cmp", "sidecar-lifecycle", pluginYAML)

	repo := workDir(t, "argocd-cmp-repo")
	copyDir(t, "argocd", repo)
	env := append(toolsOnPath(t, kustomize, functionBinary()), buildEnv...)
	out, stderr, err := runPluginGenerate(t, plugin, filepath.Join(repo, "app"), env)
	if err != nil {
		t.Fatalf("plugin generate: %v\nstderr:\n%s", err, stderr)
	}
	checkGolden(t, filepath.Join("argocd", "expected", "output.yaml"), out)
	checkArgoCDApp(t, parseItems(t, out))
	checkKustomizeAgain(t, kustomize, toolsOnPath(t, functionBinary()), out, filepath.Join(repo, "app", "sidecar-lifecycle.yaml"))
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
