package examples_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// hookChart is a chart with a Deployment and a pre-install hook Job, each
// with the Linkerd proxy after the application.
var hookChart = map[string]string{
	"Chart.yaml":  "apiVersion: v2\nname: hooks\nversion: 0.1.0\n",
	"values.yaml": "{}\n",
	"templates/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: app, image: app}
      - {name: linkerd-proxy, image: cr.l5d.io/linkerd/proxy:edge-25.1.1}
`,
	"templates/migrate.yaml": `apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    helm.sh/hook: pre-install
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: app, image: app}
      - {name: linkerd-proxy, image: cr.l5d.io/linkerd/proxy:edge-25.1.1}
`,
}

// hookPolicy orders the Linkerd proxy; kustomize runs it as a transformer
// through its annotation, Helm reads it with --config.
const hookPolicy = `apiVersion: fn.sidecar-lifecycle.dev/v1alpha1
kind: SidecarLifecycle
metadata:
  name: hooks
  annotations:
    config.kubernetes.io/function: |
      exec:
        path: ../../bin/sidecar-lifecycle
spec: {sidecars: [{preset: linkerd}]}
`

// TestHelmHooksPostRendered: Helm 3 does not pass a chart's hooks to the
// post-renderer (pkg/action/action.go renderResources splits them off
// first), so a hook Job comes out as the chart wrote it; Helm 4 passes
// them, and kustomize's helmCharts renders them as ordinary documents, so
// the hook Job is edited like the Deployment. This is what the Helm section
// of docs/usage.md says.
func TestHelmHooksPostRendered(t *testing.T) {
	for _, tc := range []struct {
		name, dir, version string
		plugin, kustomize  bool
		hookEdited         bool
	}{
		{name: "helm 3", dir: "helm3", version: helm3Version},
		{name: "helm 4", dir: "helm4", version: helm4Version, plugin: true, hookEdited: true},
		{name: "kustomize helmCharts", dir: "helm3", version: helm3Version, kustomize: true, hookEdited: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			helm := helmTool(t, tc.dir, tc.version)
			dir := workDir(t, "helm-hooks")
			files := map[string]string{"policy.yaml": hookPolicy, "kustomization.yaml": "helmCharts:\n- {name: hooks, releaseName: hooks}\ntransformers: [policy.yaml]\n"}
			for name, text := range hookChart {
				files[filepath.Join("charts", "hooks", name)] = text
			}
			for name, text := range files {
				path := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			env := helmEnv(t)
			if tc.plugin {
				plugin, err := filepath.Abs(filepath.Join("..", "helm-plugin"))
				if err != nil {
					t.Fatal(err)
				}
				mustRun(t, dir, env, helm, "plugin", "install", plugin)
			}
			var out string
			if tc.kustomize {
				out = mustRun(t, dir, env, kustomizeTool(t), "build", "--enable-helm", "--helm-command", helm, "--enable-alpha-plugins", "--enable-exec", ".")
			} else {
				out = mustRun(t, dir, env, helm, "template", "hooks", "charts/hooks",
					"--post-renderer", "sidecar-lifecycle", "--post-renderer-args", "--config=policy.yaml")
			}
			items, err := (&kio.ByteReader{Reader: strings.NewReader(out), OmitReaderAnnotations: true}).Read()
			if err != nil {
				t.Fatalf("the render is not YAML: %v\n%s", err, out)
			}
			if got := firstContainer(t, items, "Deployment", "web"); got != "linkerd-proxy" {
				t.Errorf("Deployment web: first container %q, want linkerd-proxy (post-rendered)", got)
			}
			want := "app"
			if tc.hookEdited {
				want = "linkerd-proxy"
			}
			if got := firstContainer(t, items, "Job", "migrate"); got != want {
				t.Errorf("hook Job migrate: first container %q, want %q\n%s", got, want, out)
			}
		})
	}
}

// firstContainer returns the name of the first container of the named
// workload's pod template.
func firstContainer(t *testing.T, items []*yaml.RNode, kind, name string) string {
	t.Helper()
	for _, item := range items {
		if item.GetKind() != kind || item.GetName() != name {
			continue
		}
		n, err := item.Pipe(yaml.Lookup("spec", "template", "spec", "containers", "0", "name"))
		if err != nil || n == nil {
			t.Fatalf("%s %s has no containers: %v", kind, name, err)
		}
		return yaml.GetValue(n)
	}
	t.Fatalf("no %s %s in the render", kind, name)
	return ""
}
