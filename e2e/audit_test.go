//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestAudit runs the audit of examples/audit against the API server. A
// Deployment with its Linkerd proxy after the application is read back as
// `kubectl get -o yaml` prints it (a List, with status, managedFields,
// resourceVersion, uid and the server's defaults) by a ServiceAccount
// bound to the example's read-only ClusterRole and nothing else. The
// example's policy finds it; the same policy with action mutate gives a
// List the API server accepts (a server-side dry run, then a real apply);
// read back again, the Deployment passes the policy: no false alarm from
// anything the server adds.
func TestAudit(t *testing.T) {
	t.Parallel()
	r := summary.add(t, "audit", "live")
	ctx := context.Background()
	name := fmt.Sprintf("e2e-%s-audit", suite.runID)
	dir := filepath.Join(suite.artifacts, "audit")
	example := filepath.Join(suite.repoRoot, "examples", "audit")
	selector := "sidecar-lifecycle.dev/e2e-run=" + suite.runID

	deployment := save(t, dir, "deployment.yaml", render(t, "audit-deployment.yaml", podVars(name, 0)))
	_, err := kubectl(ctx, "apply", "-n", suite.namespace, "-f", deployment)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = kubectl(ctx, "delete", "deployment", name, "-n", suite.namespace, "--ignore-not-found") })

	// The example's RBAC passes a server-side dry run; its ClusterRole,
	// under the test's name, is all the auditor may do.
	rbac := filepath.Join(example, "rbac.yaml")
	_, err = kubectl(ctx, "apply", "--dry-run=server", "-f", rbac)
	r.check(err == nil, "examples/audit/rbac.yaml is rejected: %v", err)
	as := auditor(t, ctx, r, rbac, name)
	_, err = kubectl(ctx, "get", auditKinds, "-A", "-o", "yaml", as)
	r.check(err == nil, "the auditor cannot list what the audit command of docs/usage.md lists: %v", err)
	t.Run("rbac", func(t *testing.T) { auditorLimits(t, ctx, as) })

	read := func(file string) string {
		t.Helper()
		out, err := kubectl(ctx, "get", "deployments", "-n", suite.namespace, "-l", selector, "-o", "yaml", "--show-managed-fields", as)
		if err != nil {
			t.Fatal(err)
		}
		return save(t, dir, file, []byte(out))
	}
	live := read("live.yaml")

	code, stdout, stderr := runPlainFunction(t, filepath.Join(example, "policy.yaml"), live)
	save(t, dir, "validate.stderr", []byte(stderr))
	r.check(code == 1 && stdout == "", "validate on the live List: exit code %d, want 1 and no output\nstderr: %s", code, stderr)
	r.check(strings.Contains(stderr, "sidecar-lifecycle: error: "+live+":") && strings.Contains(stderr, ": Deployment "+suite.namespace+"/"+name+" spec.template.spec: not as configured"),
		"validate does not name the file and the Deployment:\n%s", stderr)

	code, fixedText, stderr := runPlainFunction(t, filepath.Join(example, "fix.yaml"), live)
	if !r.check(code == 0, "mutate on the live List: exit code %d\nstderr: %s", code, stderr) {
		return
	}
	fixed := save(t, dir, "fixed.yaml", []byte(fixedText))
	r.check(proxyFirst(t, fixedText), "the mutated List does not list linkerd-proxy first:\n%s", fixedText)

	dry, err := kubectl(ctx, "apply", "--dry-run=server", "-f", fixed, "-o", "yaml")
	if !r.check(err == nil, "the API server rejects the mutated List: %v", err) {
		return
	}
	r.check(proxyFirst(t, dry), "the server's dry run does not keep linkerd-proxy first:\n%s", dry)
	_, err = kubectl(ctx, "apply", "-f", fixed)
	if !r.check(err == nil, "applying the mutated List: %v", err) {
		return
	}

	again := read("live-fixed.yaml")
	code, _, stderr = runPlainFunction(t, filepath.Join(example, "policy.yaml"), again)
	r.check(code == 0 && stderr == "", "validate on the fixed Deployment, read back: exit code %d, want 0 and nothing on stderr (a false alarm):\n%s", code, stderr)
	r.observed = "read as a List as the auditor; validate exit 1 naming it; the mutated List accepted by a server-side dry run and applied; read back, validate exit 0"
	r.done()
}

// auditKinds are what the audit command of docs/usage.md lists.
const auditKinds = "nodes,deployments,statefulsets,daemonsets,replicasets,replicationcontrollers,jobs,cronjobs,pods"

// auditorLimits checks, where the cluster enforces RBAC, that the auditor
// may list every kind the audit reads and may neither read Secrets nor
// write anything. A cluster that authorizes every request (the local
// cluster's AlwaysAllow) cannot show it: the test is skipped, and the
// summary says so.
func auditorLimits(t *testing.T, ctx context.Context, as string) {
	r := summary.add(t, "audit", "rbac")
	canI := func(as string, verb, resource string) bool {
		out, _ := kubectl(ctx, "auth", "can-i", verb, resource, "-A", as)
		return strings.TrimSpace(out) == "yes"
	}
	if canI("--as=system:serviceaccount:"+suite.namespace+":nobody-"+suite.runID, "list", "secrets") {
		r.observed = "not proven: the cluster authorizes every request (no RBAC)"
		t.Skip("the cluster authorizes a ServiceAccount that does not exist to list Secrets: it does not enforce RBAC, so the ClusterRole's limits cannot be shown")
	}
	for _, resource := range strings.Split(auditKinds, ",") {
		r.check(canI(as, "list", resource), "the auditor may not list %s", resource)
	}
	for _, forbidden := range [][2]string{{"list", "secrets"}, {"get", "configmaps"}, {"patch", "deployments"}, {"create", "pods"}, {"delete", "replicasets"}} {
		r.check(!canI(as, forbidden[0], forbidden[1]), "the auditor may %s %s", forbidden[0], forbidden[1])
	}
	r.observed = "the ClusterRole lists every audited kind, and reads no Secret or ConfigMap and writes nothing"
	r.done()
}

// auditor binds the ClusterRole of the example's rbac.yaml, renamed, to a
// new ServiceAccount of the suite's namespace, and returns the kubectl flag
// that acts as it.
func auditor(t *testing.T, ctx context.Context, r *row, rbac, name string) string {
	t.Helper()
	data, err := os.ReadFile(rbac)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := kio.FromBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	var role *yaml.RNode
	for _, d := range docs {
		if d.GetKind() == "ClusterRole" {
			role = d.Copy()
		}
	}
	if !r.check(role != nil, "examples/audit/rbac.yaml has no ClusterRole") {
		t.FailNow()
	}
	if err := role.SetName(name); err != nil {
		t.Fatal(err)
	}
	path := writeNodes(t, filepath.Join(suite.artifacts, "audit"), "clusterrole.yaml", []*yaml.RNode{role})
	for _, args := range [][]string{
		{"apply", "-f", path},
		{"create", "serviceaccount", name, "-n", suite.namespace},
		{"create", "clusterrolebinding", name, "--clusterrole=" + name, "--serviceaccount=" + suite.namespace + ":" + name},
	} {
		if _, err := kubectl(ctx, args...); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_, _ = kubectl(ctx, "delete", "clusterrolebinding", name, "--ignore-not-found")
		_, _ = kubectl(ctx, "delete", "clusterrole", name, "--ignore-not-found")
		_, _ = kubectl(ctx, "delete", "serviceaccount", name, "-n", suite.namespace, "--ignore-not-found")
	})
	return "--as=system:serviceaccount:" + suite.namespace + ":" + name
}

// runPlainFunction runs `sidecar-lifecycle --config POLICY INPUT` and
// returns its exit code, stdout and stderr.
func runPlainFunction(t *testing.T, policy, input string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(suite.function, "--config", policy, input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, stdout.String(), stderr.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), stdout.String(), stderr.String()
	}
	t.Fatalf("%s: %v", suite.function, err)
	return 0, "", ""
}

// proxyFirst reports whether every Deployment in the YAML text (a List or
// a single object) lists linkerd-proxy first among its containers.
func proxyFirst(t *testing.T, text string) bool {
	t.Helper()
	node, err := yaml.Parse(text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	objects := []*yaml.RNode{node}
	if items := node.Field("items"); items != nil {
		if objects, err = items.Value.Elements(); err != nil {
			t.Fatal(err)
		}
	}
	found := false
	for _, o := range objects {
		if o.GetKind() != "Deployment" {
			continue
		}
		first, err := o.Pipe(yaml.Lookup("spec", "template", "spec", "containers", "0", "name"))
		if err != nil || first == nil || yaml.GetValue(first) != "linkerd-proxy" {
			return false
		}
		found = true
	}
	return found
}
