//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestAuditNodes runs the node-aware audit on the cluster's own Node. A
// Deployment with a native sidecar, a preStop sleep and a zero-second
// sleep is read back with the Nodes, as `kubectl get nodes,deployments -A
// -o yaml` prints them. With examples/audit/policy.yaml (kubernetesVersion
// auto) the run follows the real Node's kubelet: its info result names the
// Node and the minor its status reports, and a kubelet that new serves
// every field, so validate reports nothing about the Deployment. The same List with a copy of the real
// Node whose kubeletVersion is edited to v1.28.15 fails validate, with an
// error per field naming the Deployment and that Node.
func TestAuditNodes(t *testing.T) {
	t.Parallel()
	r := summary.add(t, "audit", "nodes")
	ctx := context.Background()
	name := fmt.Sprintf("e2e-%s-nodes", suite.runID)
	dir := filepath.Join(suite.artifacts, "audit-nodes")
	policy := filepath.Join(suite.repoRoot, "examples", "audit", "policy.yaml")

	deployment := save(t, dir, "deployment.yaml", render(t, "nodes-deployment.yaml", podVars(name, 0)))
	if _, err := kubectl(ctx, "apply", "-n", suite.namespace, "-f", deployment); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = kubectl(ctx, "delete", "deployment", name, "-n", suite.namespace, "--ignore-not-found") })

	kubeletVersion, err := kubectl(ctx, "get", "node", suite.node, "-o", "jsonpath={.status.nodeInfo.kubeletVersion}")
	if err != nil {
		t.Fatal(err)
	}
	minor := regexp.MustCompile(`^v1\.([0-9]+)\.`).FindStringSubmatch(kubeletVersion)
	if !r.check(minor != nil, "Node %s reports kubeletVersion %q", suite.node, kubeletVersion) {
		return
	}
	live, err := kubectl(ctx, "get", "nodes,deployments", "-A", "-o", "yaml")
	if err != nil {
		t.Fatal(err)
	}
	list, err := yaml.Parse(live)
	if err != nil {
		t.Fatal(err)
	}
	save(t, dir, "live.yaml", []byte(live))

	// Other tests' Deployments may be in the List: only this one's
	// results, and the run's own, are read.
	_, results, stderr := runResourceList(t, dir, "live", list, policy)
	followed := fmt.Sprintf("kubernetesVersion auto: 1.%s, the oldest kubelet among the input's", minor[1])
	r.check(hasResult(results, "info", followed, fmt.Sprintf("%q (%s)", suite.node, kubeletVersion)),
		"no info result %q naming Node %s (%s): %+v", followed, suite.node, kubeletVersion, results)
	r.check(!strings.Contains(stderr, "/"+name) && !strings.Contains(stderr, "kubelet"),
		"validate on the cluster's Nodes and Deployments reports Deployment %s, or a kubelet:\n%s", name, stderr)

	old := list.Copy()
	if !r.check(setKubeletVersion(t, old, suite.node, "v1.28.15"), "the List has no Node %s", suite.node) {
		return
	}
	file := writeNodes(t, dir, "live-1.28.yaml", []*yaml.RNode{old})
	cmd := exec.Command(suite.function, "validate", "--config", policy, file)
	var stdout, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &errOut
	err = cmd.Run()
	var exit *exec.ExitError
	r.check(errors.As(err, &exit) && exit.ExitCode() == 1, "validate with a 1.28 kubelet: %v, want exit code 1\nstderr: %s", err, errOut.String())
	save(t, dir, "validate-1.28.stderr", errOut.Bytes())
	node := fmt.Sprintf("%q (v1.28.15)", suite.node)
	for _, want := range []string{"a native sidecar", "a sleep action in a lifecycle hook", "a sleep action of zero seconds"} {
		r.check(hasLine(errOut.String(), "sidecar-lifecycle: error: ", "Deployment "+suite.namespace+"/"+name+" spec.template.spec", ": "+want, node),
			"validate with a 1.28 kubelet names no %q of Deployment %s on Node %s:\n%s", want, name, node, errOut.String())
	}
	r.observed = fmt.Sprintf("auto followed Node %s's kubelet %s, nothing reported of the Deployment; its copy at v1.28.15: exit 1, 3 fields naming the Node", suite.node, kubeletVersion)
	r.done()
}

// runResourceList runs the function on a ResourceList of the item with the
// policy as functionConfig and returns its exit code, results and stderr.
func runResourceList(t *testing.T, dir, name string, item *yaml.RNode, policy string) (int, []result, string) {
	t.Helper()
	config, err := yaml.ReadFile(policy)
	if err != nil {
		t.Fatal(err)
	}
	rl, err := yaml.Parse("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := rl.PipeE(yaml.Lookup("items"), yaml.Append(item.YNode())); err != nil {
		t.Fatal(err)
	}
	if err := rl.PipeE(yaml.SetField("functionConfig", config)); err != nil {
		t.Fatal(err)
	}
	in := save(t, dir, name+"-input.yaml", []byte(rl.MustString()))
	cmd := exec.Command(suite.function)
	cmd.Stdin = strings.NewReader(rl.MustString())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	save(t, dir, name+"-output.yaml", stdout.Bytes())
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(runErr, &exit):
		code = exit.ExitCode()
	case runErr != nil:
		t.Fatalf("%s < %s: %v", suite.function, in, runErr)
	}
	out, err := yaml.Parse(stdout.String())
	if err != nil {
		t.Fatalf("parsing the function's output: %v\n%s", err, stdout.String())
	}
	var results []result
	if field := out.Field("results"); field != nil {
		decodeNode(t, field.Value, &results)
	}
	return code, results, stderr.String()
}

// hasResult reports whether a result of the severity holds every fragment.
func hasResult(results []result, severity string, fragments ...string) bool {
	for _, r := range results {
		if r.Severity == severity && containsAll(r.Message, fragments) {
			return true
		}
	}
	return false
}

// hasLine reports whether a line of text starts with prefix and holds
// every fragment.
func hasLine(text, prefix string, fragments ...string) bool {
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, prefix) && containsAll(line, fragments) {
			return true
		}
	}
	return false
}

func containsAll(s string, fragments []string) bool {
	for _, f := range fragments {
		if !strings.Contains(s, f) {
			return false
		}
	}
	return true
}

// setKubeletVersion sets status.nodeInfo.kubeletVersion of the named Node
// in a List, and reports whether the List has that Node.
func setKubeletVersion(t *testing.T, list *yaml.RNode, node, version string) bool {
	t.Helper()
	items, err := list.Pipe(yaml.Lookup("items"))
	if err != nil || items == nil {
		t.Fatalf("the List has no items: %v", err)
	}
	entries, err := items.Elements()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.GetKind() == "Node" && e.GetName() == node {
			if err := e.PipeE(yaml.Lookup("status", "nodeInfo"), yaml.SetField("kubeletVersion", yaml.NewStringRNode(version))); err != nil {
				t.Fatal(err)
			}
			return true
		}
	}
	return false
}
