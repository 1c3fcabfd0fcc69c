package driver_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
)

// everyPath runs the items (a multi-document stream) with the config on
// every path: the whole list, the streamed ResourceList and, with plain,
// the plain stream. It returns each path's report as stderrOf shows it, and whether
// each failed with error results.
func everyPath(t *testing.T, items, cfg string, plain bool) (reports map[string]string, failed map[string]bool) {
	t.Helper()
	rl, err := krmtest.ResourceList([]byte(items), []byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	reports, failed = map[string]string{}, map[string]bool{}
	add := func(name string, rep driver.Report, err error) {
		if err != nil && !errors.Is(err, report.ErrResults) {
			t.Fatalf("%s: %v", name, err)
		}
		reports[name], failed[name] = stderrOf(rep), err != nil
	}
	rep, err := driver.RunWholeList(bytes.NewReader(rl), io.Discard)
	add("whole list", rep, err)
	taken, why, rep, err := driver.RunStreamOnly(bytes.NewReader(rl), io.Discard)
	if !taken {
		t.Fatalf("the streaming path declined the input: %s", why)
	}
	add("streamed", rep, err)
	if plain {
		rep, err = driver.PlainStream(configNode(t, cfg), strings.NewReader(items), io.Discard)
		add("plain stream", rep, err)
	}
	return reports, failed
}

// configNode is the config text's mapping, as --config reads it: nil for
// a file with no document.
func configNode(t *testing.T, cfg string) *yaml.RNode {
	doc, err := yamlio.DecodeOne(strings.NewReader(cfg))
	if err == io.EOF {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return yaml.NewRNode(doc.Content[0])
}

// TestReportsSameOnEveryPath: the whole list, the streamed ResourceList and
// the plain stream give the same warnings and errors for stderr, in the
// same order, and decide once per run whether kpt fn render shows them
// itself: a list whose items kpt fn render marked is shown by it, even
// where some items lack the mark. With action validate and an item that
// fails, the other items' findings are reported beside its error.
func TestReportsSameOnEveryPath(t *testing.T) {
	const (
		linkerd  = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec: {sidecars: [{preset: linkerd}]}\n"
		validate = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec: {action: validate, sidecars: [{preset: linkerd}]}\n"
		job      = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: migrate, namespace: shop%s}\nspec: {template: {spec: {containers: [{name: app}, {name: linkerd-proxy}]}}}\n"
		pod      = "apiVersion: v1\nkind: Pod\nmetadata: {name: web%s}\nspec: {containers: [{name: app}, {name: linkerd-proxy}]}\n"
		twice    = "apiVersion: v1\nkind: Pod\nmetadata: {name: \"p\\n::error::x\"%s}\nspec: {containers: [{name: a}, {name: a}]}\n"
		kpt      = ", annotations: {internal.config.kubernetes.io/package-path: /pkg, internal.config.kubernetes.io/path: job.yaml}"
		jobWarn  = "Job shop/migrate spec.template.spec: Job in ordered mode: a sidecar that never exits keeps the Job running; mode native lets it complete"
		twiceErr = `Pod "p\n::error::x": spec.containers[1].name: found the string "a"; want unique container names: spec.containers[0].name has the same name; rename one`
	)
	with := func(item, annotations string) string { return strings.Replace(item, "%s", annotations, 1) }
	docs := func(items ...string) string { return strings.Join(items, "---\n") }
	for _, tc := range []struct {
		name, items, cfg string
		want             []string
		shown, fails     bool
	}{
		{"warning", with(job, ""), linkerd, []string{"warning: " + jobWarn + " []"}, false, false},
		{"error after a warning", docs(with(job, ""), with(twice, "")), linkerd,
			[]string{"warning: " + jobWarn + " []", "error: " + twiceErr + " []"}, false, true},
		{"under kpt fn render", with(job, kpt), linkerd, []string{"warning: " + jobWarn + " [job.yaml]"}, true, false},
		{"config error under kpt fn render", with(job, kpt), "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec: {mode: [x]}\n",
			[]string{"error: spec.mode: expected one of ordered, native, auto, found a list of 1 entry []"}, true, true},
		{"some items marked by kpt fn render", docs(with(twice, ""), with(job, kpt)), linkerd,
			[]string{"error: " + twiceErr + " []", "warning: " + jobWarn + " [job.yaml]"}, true, true},
		{"validate with a failed item", docs(with(pod, ""), with(twice, "")), validate,
			[]string{"error: Pod web spec: not as configured; to fix, run sidecar-lifecycle with action: mutate, which makes these changes: moved linkerd-proxy to the front of containers; added postStart [\"/usr/lib/linkerd/linkerd-await\", \"--timeout=2m\", \"--port=4191\"] to linkerd-proxy []",
				"error: " + twiceErr + " []"}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A plain stream never comes from kpt fn render, and a config
			// that does not load ends it before it reads a document.
			plain := !strings.HasPrefix(tc.name, "config error")
			reports, failed := everyPath(t, tc.items, tc.cfg, plain)
			want := fmt.Sprintf("shown by the orchestrator: %v\n%s\n", tc.shown, strings.Join(tc.want, "\n"))
			for path, got := range reports {
				if got != want {
					t.Errorf("%s:\n%s", path, krmtest.Diff(want, got))
				}
				if failed[path] != tc.fails {
					t.Errorf("%s: failed %v, want %v", path, failed[path], tc.fails)
				}
			}
		})
	}
}

// TestGoldenReportsSameOnEveryPath: every golden case reports the same on
// the plain stream as on the ResourceList paths.
func TestGoldenReportsSameOnEveryPath(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/*/items.yaml")
	for _, itemsPath := range dirs {
		dir := filepath.Dir(itemsPath)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			items, _ := os.ReadFile(itemsPath)
			cfg, _ := os.ReadFile(filepath.Join(dir, "config.yaml"))
			reports, failed := everyPath(t, string(items), string(cfg), true)
			for _, path := range []string{"streamed", "plain stream"} {
				if reports[path] != reports["whole list"] || failed[path] != failed["whole list"] {
					t.Errorf("%s reports otherwise than the whole list:\n%s", path, krmtest.Diff(reports["whole list"], reports[path]))
				}
			}
		})
	}
}
