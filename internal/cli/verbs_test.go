package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestVerbs: validate, mutate and explain read files, directories or stdin
// as CI tools do, with the defaults when no --config is given (the catalog
// recognises the Linkerd proxy by its name); bare inputs are a mutate.
// validate writes no manifests: exit 1 and one line per finding for a
// workload that is not as configured, exit 0 and nothing for one that is.
func TestVerbs(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"policy.yaml":        plainPolicy,
		"manifests/web.yaml": plainDeployment,
		"quiet.yaml":         "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec:\n  sidecars:\n  - preset: cloud-sql-proxy\n",
	})
	p := func(name string) string { return filepath.Join(dir, name) }

	mutated := runWith([]string{"mutate", p("manifests")}, "", nil)
	if mutated.code != 0 || !strings.Contains(mutated.stdout, "postStart") ||
		strings.Index(mutated.stdout, "- name: linkerd-proxy") > strings.Index(mutated.stdout, "- name: web\n") {
		t.Fatalf("mutate with the defaults: code %d, stderr %q, stdout:\n%s", mutated.code, mutated.stderr, mutated.stdout)
	}
	if bare := runWith([]string{p("manifests")}, "", nil); bare != mutated {
		t.Errorf("bare inputs: %+v, want what mutate gives: %+v", bare, mutated)
	}
	if stdin := runWith([]string{"mutate"}, plainDeployment, nil); stdin != mutated {
		t.Errorf("mutate from stdin: %+v, want what mutate of the file gives: %+v", stdin, mutated)
	}

	for _, tc := range []struct {
		name string
		args []string
		in   string
		code int
		err  string
	}{
		{"the defaults, a change needed", []string{"validate", p("manifests")}, "", 1, "web.yaml:1: Deployment web spec.template.spec: not as configured"},
		{"the defaults, from stdin", []string{"validate"}, plainDeployment, 1, "not as configured"},
		{"the defaults, as mutate writes it", []string{"validate"}, mutated.stdout, 0, ""},
		{"a policy, a change needed", []string{"validate", "--config", p("policy.yaml"), p("manifests")}, "", 1, "not as configured"},
		{"a policy that names another sidecar", []string{"validate", "--config", p("quiet.yaml"), p("manifests")}, "", 0, ""},
		{"a kubectl List in JSON, from stdin", []string{"validate"}, `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "api"}, "spec": {"template": {"spec": {"containers": [{"name": "api"}, {"name": "linkerd-proxy"}]}}}}]}`, 1, "Deployment api spec.template.spec: not as configured"},
		{"no Kubernetes resource (a CI workflow)", []string{"validate"}, "on: push\njobs: {}\n", 0, ""},
	} {
		r := runWith(tc.args, tc.in, nil)
		if strings.Contains(r.stderr, "nothing was written") {
			t.Errorf("validate, %s: stderr %q says nothing was written, as if a run could have", tc.name, r.stderr)
		}
		if r.code != tc.code || r.stdout != "" || !strings.Contains(r.stderr, tc.err) || (tc.err == "" && r.stderr != "") {
			t.Errorf("validate, %s: code %d, stdout %q, stderr %q; want code %d, no manifests, stderr with %q", tc.name, r.code, r.stdout, r.stderr, tc.code, tc.err)
		}
	}

	explained := runWith([]string{"explain", p("manifests")}, "", nil)
	if explained.code != 0 || !strings.Contains(explained.stdout, "Deployment web") {
		t.Errorf("explain with the defaults: code %d, stderr %q, stdout:\n%s", explained.code, explained.stderr, explained.stdout)
	}
	if md := runWith([]string{"explain", "--format", "markdown", p("manifests")}, "", nil); md.code != 0 || !strings.Contains(md.stdout, "```mermaid") {
		t.Errorf("explain --format markdown: code %d, stderr %q, stdout:\n%s", md.code, md.stderr, md.stdout)
	}
}
