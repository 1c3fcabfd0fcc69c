package driver_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
)

// withMode returns a config like text with spec.mode and spec.action set.
func withSettings(t *testing.T, text, mode, action string) []byte {
	t.Helper()
	if text == "" {
		text = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: x}\nspec: {}\n"
	}
	if !strings.Contains(text, "kind: SidecarLifecycle") {
		t.Skip("ConfigMap form has no mode to switch")
	}
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "  mode:") || strings.HasPrefix(l, "  action:") || strings.HasPrefix(l, "  kubernetesVersion:") {
			continue
		}
		lines = append(lines, l)
		if l == "spec:" {
			lines = append(lines, "  mode: "+mode, "  action: "+action, `  kubernetesVersion: "1.30"`)
		}
	}
	out := strings.Join(lines, "\n")
	out = strings.Replace(out, "spec: {}", "spec: {mode: "+mode+", action: "+action+"}", 1)
	return []byte(out)
}

// itemsOf runs the function and returns the output items as a stream.
func itemsOf(t *testing.T, rl []byte) ([]byte, []krmtest.Result) {
	t.Helper()
	out, _ := run(t, rl)
	o, err := krmtest.Split(out)
	if err != nil {
		t.Fatal(err)
	}
	items, err := krmtest.Stream(o.Items)
	if err != nil {
		t.Fatal(err)
	}
	return items, o.ResultList()
}

// mutateCases lists the golden cases whose mutate run succeeds with a
// SidecarLifecycle config.
func mutateCases(t *testing.T) []string {
	t.Helper()
	dirs, _ := filepath.Glob("testdata/*/items.yaml")
	var cases []string
	for _, p := range dirs {
		dir := filepath.Dir(p)
		res, _ := os.ReadFile(filepath.Join(dir, "results.yaml"))
		cfg, _ := os.ReadFile(filepath.Join(dir, "config.yaml"))
		if bytes.Contains(res, []byte("severity: error")) || bytes.Contains(cfg, []byte("kind: ConfigMap")) || bytes.Contains(cfg, []byte("action: validate")) {
			continue
		}
		cases = append(cases, dir)
	}
	return cases
}

// TestOrderedThenNativeEqualsNative: converting ordered output to native
// gives the same bytes as making native output directly.
func TestOrderedThenNativeEqualsNative(t *testing.T) {
	for _, dir := range mutateCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			items, _ := os.ReadFile(filepath.Join(dir, "items.yaml"))
			cfg, _ := os.ReadFile(filepath.Join(dir, "config.yaml"))
			rl, _ := krmtest.ResourceList(items, withSettings(t, string(cfg), "ordered", "mutate"))
			orderedItems, res := itemsOf(t, rl)
			if krmtest.HasErrors(res) {
				t.Skip("ordered mode fails on this case")
			}
			nativeCfg := withSettings(t, string(cfg), "native", "mutate")
			direct, _ := krmtest.ResourceList(items, nativeCfg)
			converted, _ := krmtest.ResourceList(orderedItems, nativeCfg)
			want, _ := itemsOf(t, direct)
			got, _ := itemsOf(t, converted)
			if !bytes.Equal(want, got) {
				t.Errorf("ordered→native differs from native:\n%s", krmtest.Diff(string(want), string(got)))
			}
		})
	}
}

// TestValidateAcceptsMutateOutput: the validate action fails on the input of
// every changing case and passes on the mutate action's output, with the
// same config, but for the termination budget breaks that mutate warned
// about and cannot fix: validate reports those as errors.
func TestValidateAcceptsMutateOutput(t *testing.T) {
	for _, dir := range mutateCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			items, _ := os.ReadFile(filepath.Join(dir, "items.yaml"))
			cfg, _ := os.ReadFile(filepath.Join(dir, "config.yaml"))
			for _, mode := range []string{"ordered", "native"} {
				rl, _ := krmtest.ResourceList(items, withSettings(t, string(cfg), mode, "mutate"))
				mutated, res := itemsOf(t, rl)
				if krmtest.HasErrors(res) {
					continue
				}
				changed := bytes.Contains([]byte(resultsText(res)), []byte("resourceRef"))
				warned := map[string]bool{}
				for _, r := range res {
					if r.Severity == "warning" {
						warned[r.Message] = true
					}
				}
				check, _ := krmtest.ResourceList(items, withSettings(t, string(cfg), mode, "validate"))
				_, before := itemsOf(t, check)
				if failed := len(errorsBeyond(before, warned)) > 0; changed != failed {
					t.Errorf("%s: mutate changed %v, but validate of the input failed %v", mode, changed, failed)
				}
				after, _ := krmtest.ResourceList(mutated, withSettings(t, string(cfg), mode, "validate"))
				if _, res := itemsOf(t, after); len(errorsBeyond(res, warned)) > 0 {
					t.Errorf("%s: validate rejects the mutate output: %v", mode, errorsBeyond(res, warned))
				}
			}
		})
	}
}

// errorsBeyond returns the error results whose message is not one of the warnings.
func errorsBeyond(rs []krmtest.Result, warnings map[string]bool) []krmtest.Result {
	var out []krmtest.Result
	for _, r := range rs {
		if r.Severity == "error" && !warnings[r.Message] {
			out = append(out, r)
		}
	}
	return out
}

func resultsText(rs []krmtest.Result) string {
	var b strings.Builder
	for _, r := range rs {
		if r.Severity == "info" && r.Ref != "" {
			b.WriteString("resourceRef " + r.Ref + "\n")
		}
	}
	return b.String()
}
