package examples_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestArgoCDHelmPlugin checks the install of examples/argocd/cmp-helm and
// runs its plugin's generate command as Argo CD's CMP server does, in the
// Application's source directory (examples/argocd/chart), with Helm 3 as
// helm and the function on PATH, as they are in the sidecar.
func TestArgoCDHelmPlugin(t *testing.T) {
	kustomize := kustomizeTool(t)
	helm := helmTool(t, "helm3", helm3Version)
	plugin, pluginYAML, pluginName := readPlugin(t, "cmp-helm")
	buildEnv := checkApplication(t, filepath.Join("argocd", "cmp-helm", "application.yaml"), "examples/argocd/chart", pluginName)
	sidecar := checkPluginSidecar(t, buildArgoCDInstall(t, kustomize, "cmp-helm"), "cmp-helm", "sidecar-lifecycle-helm", pluginYAML)
	// Argo CD's image has helm (the Helm 3 it renders charts with) in
	// /usr/local/bin; the sidecar must run that image.
	if got := stringAt(sidecar, "image"); !strings.HasPrefix(got, "quay.io/argoproj/argocd:") {
		t.Errorf("the plugin sidecar runs image %q, want Argo CD's quay.io/argoproj/argocd", got)
	}

	repo := workDir(t, "argocd-cmp-helm-repo")
	copyDir(t, "argocd", repo)
	chart := filepath.Join(repo, "chart")
	env := append(toolsOnPath(t, helm, functionBinary()), buildEnv...)
	generate := func(env []string) string {
		t.Helper()
		out, stderr, err := runPluginGenerate(t, plugin, chart, env)
		if err != nil {
			t.Fatalf("plugin generate: %v\nstderr:\n%s", err, stderr)
		}
		return out
	}
	out := generate(env)
	checkGolden(t, filepath.Join("argocd", "expected", "chart.yaml"), out)
	items := parseItems(t, out)
	checkArgoCDApp(t, items)
	// The Application's VALUES reached Helm as ARGOCD_ENV_VALUES.
	if got := stringAt(findItem(t, items, "Deployment", "payments"), "spec", "replicas"); got != "3" {
		t.Errorf("Deployment/payments has %s replicas, want 3 from values-production.yaml", got)
	}
	policy := filepath.Join(chart, "sidecar-lifecycle.yaml")
	if again := mustRunStdin(t, out, functionBinary(), "--config", policy); again != out {
		t.Errorf("running the function on the render again changed it:\n%s", diff(out, again))
	}

	// An Application outside Argo CD's namespace is <namespace>_<name> in
	// ARGOCD_APP_NAME; the release is still named after the Application.
	if other := generate(append(env, "ARGOCD_APP_NAME=team-a_payments")); other != out {
		t.Errorf("an Application in namespace team-a renders differently:\n%s", diff(out, other))
	}

	// A policy error fails generate, and the function's message reaches the
	// CMP server's error (the Application's condition) through Helm.
	text := strings.Replace(readFile(t, policy), "mode: auto", "mode: sideways", 1)
	if err := os.WriteFile(policy, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := runPluginGenerate(t, plugin, chart, env)
	if err == nil || strings.Contains(stdout, "kind: Deployment") {
		t.Fatalf("generate succeeded or rendered with a broken policy:\n%s", stdout)
	}
	if !strings.Contains(stderr, "sidecar-lifecycle:") || !strings.Contains(stderr, "spec.mode") {
		t.Errorf("generate's stderr does not carry the function's message naming spec.mode:\n%s", stderr)
	}
}
