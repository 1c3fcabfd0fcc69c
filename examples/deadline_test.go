package examples_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNodeDeadlineThroughKustomizeAndKpt: a NodePool among the resources
// sets the node deadline of the workloads it can hold, through kustomize's
// exec transformer (a warning line on stderr naming the workload and its
// field) and kpt fn eval (a warning result), with the golden case
// deadline-karpenter's resources and config.
func TestNodeDeadlineThroughKustomizeAndKpt(t *testing.T) {
	kustomize, kpt := kustomizeTool(t), kptTool(t)
	golden := filepath.Join("..", "internal", "driver", "testdata", "deadline-karpenter")
	items, cfg := readFile(t, filepath.Join(golden, "items.yaml")), readFile(t, filepath.Join(golden, "config.yaml"))
	const finding = "may land on Karpenter NodePool web nodes"

	dir := workDir(t, "kustomize-deadline")
	exec := strings.Replace(cfg, "metadata:\n  name: karpenter\n",
		"metadata:\n  name: karpenter\n  annotations:\n    config.kubernetes.io/function: |\n      exec:\n        path: ../../bin/sidecar-lifecycle\n", 1)
	if exec == cfg {
		t.Fatal("the golden config's metadata changed")
	}
	writeFiles(t, dir, map[string]string{
		"kustomization.yaml":     "resources:\n- items.yaml\ntransformers:\n- sidecar-lifecycle.yaml\n",
		"items.yaml":             items,
		"sidecar-lifecycle.yaml": exec,
	})
	stdout, stderr, err := run(t, dir, nil, kustomize, "build", "--enable-alpha-plugins", "--enable-exec", ".")
	if err != nil {
		t.Fatalf("kustomize build: %v\nstderr:\n%s", err, stderr)
	}
	if want := "sidecar-lifecycle: warning: Deployment shop/web spec.template.spec.terminationGracePeriodSeconds: " + finding; !strings.Contains(stderr, want) {
		t.Errorf("kustomize's stderr does not show %q:\n%s", want, stderr)
	}
	if strings.Contains(stderr, "Deployment shop/batch spec.template.spec.terminationGracePeriodSeconds: may land") {
		t.Errorf("the deadline is said of the workload on another NodePool:\n%s", stderr)
	}
	if !strings.Contains(stdout, "kind: NodePool") {
		t.Errorf("the NodePool is not in kustomize's output:\n%s", stdout)
	}

	pkg := workDir(t, "kpt-deadline")
	writeFiles(t, pkg, map[string]string{"items.yaml": items, "fn-config.yaml": cfg})
	results := t.TempDir()
	mustRun(t, pkg, nil, kpt, "fn", "eval", "--exec", functionBinary(), "--fn-config", "fn-config.yaml", "--results-dir", results, ".")
	got := readFile(t, filepath.Join(results, "results.yaml"))
	if !strings.Contains(got, finding) || !strings.Contains(got, "severity: warning") {
		t.Errorf("kpt's results do not hold the node-deadline warning:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(pkg, "items.yaml")); err != nil {
		t.Error(err)
	}
}
