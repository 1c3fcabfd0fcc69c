//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// podBearing are the kinds whose acceptance the examples check must show.
var podBearing = map[string]bool{
	"Pod": true, "Deployment": true, "StatefulSet": true, "DaemonSet": true, "ReplicaSet": true,
	"ReplicationController": true, "Job": true, "CronJob": true,
}

// TestAPIServer has the API server validate, with a server-side dry run,
// every example's expected output, and reject two deliberately broken
// function outputs whose unbroken originals it accepts.
func TestAPIServer(t *testing.T) {
	t.Parallel()
	t.Run("examples", testExamplesAccepted)
	t.Run("broken", testBrokenRejected)
}

// servedKinds maps group/Kind to whether it is namespaced, for every kind the
// API server serves.
func servedKinds(t *testing.T) map[string]bool {
	out, err := kubectl(context.Background(), "api-resources", "--no-headers")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 { // NAME [SHORTNAMES] APIVERSION NAMESPACED KIND
			continue
		}
		kind, namespaced, apiVersion := f[len(f)-1], f[len(f)-2], f[len(f)-3]
		kinds[group(apiVersion)+"/"+kind] = namespaced == "true"
	}
	return kinds
}

func group(apiVersion string) string {
	if g, _, ok := strings.Cut(apiVersion, "/"); ok {
		return g
	}
	return ""
}

// dryRun has the API server validate the object as a create, without storing it.
func dryRun(t *testing.T, node *yaml.RNode) error {
	file := writeNodes(t, t.TempDir(), "object.yaml", []*yaml.RNode{node})
	_, err := kubectl(context.Background(), "apply", "--dry-run=server", "-f", file)
	return err
}

func testExamplesAccepted(t *testing.T) {
	r := summary.add(t, "api-server", "examples")
	kinds := servedKinds(t)
	var files []string
	dirs, _ := filepath.Glob(filepath.Join(suite.repoRoot, "examples", "*", "expected"))
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) == 0 {
		t.Fatalf("no examples/*/expected/**/*.yaml under %s", suite.repoRoot)
	}
	accepted := map[string]int{}
	skipped := map[string][]string{}
	workloads := 0
	for _, file := range files {
		rel, _ := filepath.Rel(suite.repoRoot, file)
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		nodes, err := kio.FromBytes(data)
		if !r.check(err == nil, "%s: %v", rel, err) {
			continue
		}
		for _, node := range nodes {
			kind, apiVersion := node.GetKind(), node.GetApiVersion()
			namespaced, served := kinds[group(apiVersion)+"/"+kind]
			switch {
			case kind == "" || apiVersion == "":
				skipped["not a resource"] = append(skipped["not a resource"], rel)
				continue
			case node.GetAnnotations()["config.kubernetes.io/local-config"] == "true":
				skipped["local-config"] = append(skipped["local-config"], kind)
				continue
			case !served:
				skipped["kind not served"] = append(skipped["kind not served"], kind)
				continue
			}
			object := node.Copy()
			// Into the suite's namespace: the examples' own need not exist.
			if namespaced {
				if err := object.SetNamespace(suite.namespace); err != nil {
					t.Fatal(err)
				}
			}
			if err := dryRun(t, object); r.check(err == nil, "%s: %s rejected: %v", rel, describe(node), err) {
				accepted[kind]++
				if podBearing[kind] {
					workloads++
				}
			}
		}
	}
	r.check(workloads > 0, "no pod-bearing workload in the examples reached the API server")
	r.observed = fmt.Sprintf("%d files: accepted %s; skipped %s", len(files), countKinds(accepted), countSkipped(skipped))
	r.done()
}

func countKinds(m map[string]int) string {
	var parts []string
	for k, n := range m {
		parts = append(parts, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func countSkipped(m map[string][]string) string {
	var parts []string
	for why, what := range m {
		kinds := map[string]int{}
		for _, k := range what {
			kinds[k]++
		}
		parts = append(parts, fmt.Sprintf("%s: %s", why, countKinds(kinds)))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

// testBrokenRejected breaks the function's output in the two ways the
// function must never produce, and requires the API server to refuse each
// while it accepts the unbroken original: the check can fail.
func testBrokenRejected(t *testing.T) {
	r := summary.add(t, "api-server", "broken")
	cases := []struct {
		mode, broken string
		breakIt      func(*yaml.RNode) error
		want         []string
	}{{
		mode:   "ordered",
		broken: "terminationGracePeriodSeconds 5 under a preStop sleep of 10",
		breakIt: func(n *yaml.RNode) error {
			return n.PipeE(yaml.Lookup("spec"), yaml.SetField("terminationGracePeriodSeconds", yaml.NewScalarRNode("5")))
		},
		want: []string{"preStop.sleep", "terminationGracePeriodSeconds"},
	}, {
		mode:   "native",
		broken: "startupProbe on an init container without restartPolicy Always",
		breakIt: func(n *yaml.RNode) error {
			return n.PipeE(yaml.Lookup("spec", "initContainers", "[name=proxy]"), yaml.Clear("restartPolicy"))
		},
		want: []string{"startupProbe", "restartPolicy"},
	}}
	var rejected []string
	for i, c := range cases {
		vars := podVars(fmt.Sprintf("e2e-%s-broken-%s", suite.runID, c.mode), suite.portBase+7+i)
		vars["MODE"] = c.mode
		dir := filepath.Join(suite.artifacts, "broken-"+c.mode)
		items, _ := runFunction(t, dir, render(t, "pod.yaml", vars), render(t, "sidecar-lifecycle.yaml", vars))
		original := onlyItem(t, items)
		if err := dryRun(t, original); !r.check(err == nil, "the %s output itself is rejected: %v", c.mode, err) {
			continue
		}
		broken := original.Copy()
		if err := c.breakIt(broken); err != nil {
			t.Fatal(err)
		}
		writeNodes(t, dir, "broken.yaml", []*yaml.RNode{broken})
		err := dryRun(t, broken)
		if !r.check(err != nil, "the API server accepted the %s output with %s", c.mode, c.broken) {
			continue
		}
		for _, w := range c.want {
			r.check(strings.Contains(err.Error(), w), "the rejection of %s does not mention %s: %v", c.broken, w, err)
		}
		t.Logf("%s: rejected as expected: %v", c.broken, err)
		rejected = append(rejected, c.broken)
	}
	r.observed = fmt.Sprintf("rejected %d of %d (%s); their unbroken originals accepted", len(rejected), len(cases), strings.Join(rejected, "; "))
	r.done()
}
