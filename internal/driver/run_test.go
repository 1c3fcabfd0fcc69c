package driver_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// TestRunBadInput: input that is not a ResourceList is a one-line error and
// nothing is written.
func TestRunBadInput(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty stdin", "", "no input"},
		{"only whitespace", "  \n\n", "no input"},
		{"malformed YAML", "kind: ResourceList\nitems: [\n", "not valid YAML"},
		{"tab indentation", "kind: ResourceList\nitems:\n\t- a\n", "not valid YAML"},
		{"plain object", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", `is a "ConfigMap", not a ResourceList`},
		{"a list, not a mapping", "- kind: ResourceList\n", "not a ResourceList"},
		{"a scalar", "hello\n", "not a ResourceList"},
		{"items is a mapping", "kind: ResourceList\nitems: {a: b}\n", "items must be a list"},
		{"items holds a scalar", "kind: ResourceList\nitems: [a]\n", "items[0] must be a mapping"},
		{"functionConfig is a list", "kind: ResourceList\nitems: []\nfunctionConfig: [a]\n", "functionConfig must be a mapping"},
		{"two documents", "kind: ResourceList\nitems: []\n---\nkind: ResourceList\n", "more than one YAML document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := driver.Run(strings.NewReader(tc.in), &out)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
			if out.Len() != 0 {
				t.Errorf("wrote output on bad input:\n%s", out.String())
			}
		})
	}
}

// TestRunConfigErrors: config problems are error results with the items
// unchanged, and Run reports ErrResults (exit code 1).
func TestRunConfigErrors(t *testing.T) {
	items := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: app}, {name: linkerd-proxy}]\n"
	for _, tc := range []struct{ name, config, path string }{
		{"unknown field", "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec: {mood: happy}\n", "spec.mood"},
		{"wrong type", "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec: {sidecars: {preset: linkerd}}\n", "spec.sidecars"},
		{"wrong kind", "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n", "functionConfig"},
		{"wrong apiVersion", "apiVersion: fn.sidecar-lifecycle.dev/v2\nkind: SidecarLifecycle\n", "functionConfig"},
		{"bad duration", "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec: {app: {drainDelay: later}}\n", "spec.app.drainDelay"},
		{"ConfigMap bad mode", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {mode: fast}\n", "data.mode"},
		{"duplicate key", "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec:\n  mode: native\n  sidecars: [{preset: linkerd, waitBeforeExit: 5s, waitBeforeExit: 50s}]\n", "spec.sidecars[0]"},
		{"duplicate top-level key", "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec: {mode: native}\nspec: {mode: ordered}\n", "functionConfig"},
		{"ConfigMap duplicate key", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  preset: linkerd\n  preset: istio\n", "data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rl, err := krmtest.ResourceList([]byte(items), []byte(tc.config))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			err = driver.Run(bytes.NewReader(rl), &out)
			if !errors.Is(err, report.ErrResults) {
				t.Fatalf("Run = %v, want ErrResults", err)
			}
			o, err := krmtest.Split(out.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			results, _ := krmtest.ResultsYAML(o)
			if !strings.Contains(string(results), "path: "+tc.path) || !strings.Contains(string(results), "severity: error") {
				t.Errorf("results do not name %s:\n%s", tc.path, results)
			}
			if strings.HasPrefix(tc.name, "duplicate") && !strings.Contains(string(results), "duplicate key") {
				t.Errorf("results do not say duplicate key:\n%s", results)
			}
			for _, e := range krmtest.Check(rl, out.Bytes()) {
				t.Error(e)
			}
		})
	}
}

// TestRunKeepsFunctionConfigAndOrder: the functionConfig and items of the
// input are written back, in order, with the results after them.
func TestRunKeepsFunctionConfigAndOrder(t *testing.T) {
	in := `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: z}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata: {name: cfg} # kept
  data: {preset: linkerd}
`
	var out bytes.Buffer
	if err := driver.Run(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !(strings.Index(got, "name: z") < strings.Index(got, "name: a")) {
		t.Errorf("items reordered:\n%s", got)
	}
	if !strings.Contains(got, "metadata: {name: cfg} # kept") {
		t.Errorf("functionConfig not kept:\n%s", got)
	}
}

// TestFilterAndProcess: the kio.Filter and SDK entry points agree with Run.
func TestFilterAndProcess(t *testing.T) {
	items, err := kio.FromBytes([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: app}, {name: linkerd-proxy}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := krmtest.Config(t, "")
	out, err := engine.New(cfg).Filter(items)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := out[0].Pipe(yaml.Lookup("spec", "containers", "[name=linkerd-proxy]"))
	if first == nil || out[0].MustString() == items[0].MustString() {
		t.Fatalf("Filter did not edit the pod:\n%s", out[0].MustString())
	}
	names, _ := out[0].Pipe(yaml.Lookup("spec", "containers"))
	if got := names.YNode().Content[0].Content[1].Value; got != "linkerd-proxy" {
		t.Errorf("first container %q, want linkerd-proxy", got)
	}

	bad := krmtest.Config(t, "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec: {sidecars: [{preset: linkerd, ifAbsent: fail}]}\n")
	none, _ := kio.FromBytes([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: app}]\n"))
	if _, err := engine.New(bad).Filter(none); err == nil || !strings.Contains(err.Error(), "ifAbsent: fail") {
		t.Errorf("Filter error = %v, want the ifAbsent failure", err)
	}
}
