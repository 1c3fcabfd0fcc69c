package examples_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/list"
)

// TestAudit runs examples/audit as its README does. The policy on the
// List kubectl printed (piped in, and the same List as JSON) fails with
// exit code 1 and the committed stderr, which names Deployment shop/api
// only: Deployment web follows the policy, and the ReplicaSets and Pods are
// left to their Deployments. fix.yaml's preview of the fix changes that
// Deployment's entry and nothing else, and the policy passes on it.
func TestAudit(t *testing.T) {
	dir := workDir(t, "audit")
	copyDir(t, "audit", dir)
	env := toolsOnPath(t, functionBinary())

	audit := func(input string) (string, string) {
		t.Helper()
		stdout, stderr, err := run(t, dir, env, "sh", "-c", "sidecar-lifecycle --config policy.yaml <"+input)
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Fatalf("the audit of %s: %v, want exit code 1\nstderr:\n%s", input, err, stderr)
		}
		return stdout, stderr
	}
	stdout, stderr := audit("list.yaml")
	if stdout != "" {
		t.Errorf("the failing audit wrote %d bytes on stdout", len(stdout))
	}
	checkGoldenText(t, filepath.Join("audit", "expected", "audit.txt"), stderr)

	in := readFile(t, filepath.Join(dir, "list.yaml"))
	node, err := yaml.Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	js, err := node.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"list.json": string(js) + "\n"})
	// The same findings, each at its entry's line in the JSON text.
	position := regexp.MustCompile(`(?m)^(sidecar-lifecycle: error: )<stdin>:[0-9]+: `)
	if _, fromJSON := audit("list.json"); position.ReplaceAllString(fromJSON, "$1") != position.ReplaceAllString(stderr, "$1") {
		t.Errorf("the audit of the List as JSON reports otherwise:\n%s", diff(stderr, fromJSON))
	}

	fixed := mustRun(t, dir, env, functionBinary(), "--config", "fix.yaml", "list.yaml")
	before, after := entries(t, in), entries(t, fixed)
	if len(before) != len(after) {
		t.Fatalf("the fix has %d entries, the List %d", len(after), len(before))
	}
	for i := range before {
		changed := before[i].MustString() != after[i].MustString()
		if api := after[i].GetKind() == "Deployment" && after[i].GetName() == "api"; changed != api {
			t.Errorf("%s %s: changed %v, want a change in Deployment api only", after[i].GetKind(), after[i].GetName(), changed)
		}
	}
	checkSidecarFirst(t, after, "Deployment", "api", "linkerd-proxy", true)
	checkValidItems(t, after)
	writeFiles(t, dir, map[string]string{"fixed.yaml": fixed})
	if _, stderr := mustRunBoth(t, dir, env, "sidecar-lifecycle --config policy.yaml <fixed.yaml"); stderr != "" {
		t.Errorf("the audit of the fixed List reports:\n%s", stderr)
	}
}

// entries are the entries of a List's text.
func entries(t *testing.T, text string) []*yaml.RNode {
	t.Helper()
	node, err := yaml.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	nodes, ok := list.Items(node)
	if !ok {
		t.Fatalf("not a List:\n%s", text)
	}
	out := make([]*yaml.RNode, len(nodes))
	for i, n := range nodes {
		out[i] = yaml.NewRNode(n)
	}
	return out
}

// mustRunBoth runs a shell command that must succeed and returns its stdout
// and stderr.
func mustRunBoth(t *testing.T, dir string, env []string, command string) (string, string) {
	t.Helper()
	stdout, stderr, err := run(t, dir, env, "sh", "-c", command)
	if err != nil {
		t.Fatalf("%s: %v\nstderr:\n%s", command, err, stderr)
	}
	return stdout, stderr
}

// checkGoldenText compares text that is not YAML with the file at path, or
// rewrites the file when UPDATE_GOLDEN=1.
func checkGoldenText(t *testing.T, path, got string) {
	t.Helper()
	if update() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want := readFile(t, path); want != got {
		t.Errorf("output differs from %s (- expected, + got; UPDATE_GOLDEN=1 rewrites it):\n%s", path, diff(want, got))
	}
}

// TestAuditNodes runs the node-aware audit of examples/audit as its README
// does: the policy (kubernetesVersion auto) on nodes.yaml, where one of
// three Nodes still runs a 1.28 kubelet, fails with exit code 1 and the
// committed stderr, which names Deployment reports and that Node for its
// native sidecar and its preStop sleep; the results say the run followed
// 1.28. Without the old Node the same policy passes.
func TestAuditNodes(t *testing.T) {
	dir := workDir(t, "audit-nodes")
	copyDir(t, "audit", dir)
	env := toolsOnPath(t, functionBinary())

	stdout, stderr, err := run(t, dir, env, "sh", "-c", "sidecar-lifecycle validate --config policy.yaml nodes.yaml")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || stdout != "" {
		t.Fatalf("the audit of nodes.yaml: %v, %d bytes on stdout; want exit code 1 and none\nstderr:\n%s", err, len(stdout), stderr)
	}
	checkGoldenText(t, filepath.Join("audit", "expected", "nodes.txt"), stderr)

	// As a KRM function, the closing results say which version auto took.
	rl := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n" + indent(readFile(t, filepath.Join(dir, "policy.yaml"))) +
		"items:\n- " + strings.TrimPrefix(indent(readFile(t, filepath.Join(dir, "nodes.yaml"))), "  ")
	writeFiles(t, dir, map[string]string{"rl.yaml": rl})
	out, _, _ := run(t, dir, env, "sh", "-c", "sidecar-lifecycle <rl.yaml")
	// (the message is single-quoted YAML: its apostrophe doubled)
	if want := `kubernetesVersion auto: 1.28, the oldest kubelet among the input''s 3 Nodes: "pool-old-1" (v1.28.15-eks-4f4795d)`; !strings.Contains(out, want) {
		t.Errorf("the ResourceList's results have no %q:\n%s", want, out)
	}

	node, err := yaml.Parse(readFile(t, filepath.Join(dir, "nodes.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	items := node.Field("items").Value.YNode()
	items.Content = slices.DeleteFunc(items.Content, func(n *yaml.Node) bool { return yaml.NewRNode(n).GetName() == "pool-old-1" })
	writeFiles(t, dir, map[string]string{"upgraded.yaml": node.MustString()})
	if _, stderr := mustRunBoth(t, dir, env, "sidecar-lifecycle validate --config policy.yaml upgraded.yaml"); stderr != "" {
		t.Errorf("the audit without the 1.28 Node reports:\n%s", stderr)
	}
}

// indent indents every line of text by two spaces.
func indent(text string) string {
	return "  " + strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", "\n  ") + "\n"
}
