//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// result is one entry of the function's results.
type result struct {
	Message  string `json:"message"`
	Severity string `json:"severity"`
}

// render reads testdata/<name> and replaces each ${VAR} with vars[VAR]; a
// variable without a value fails the test.
func render(t *testing.T, name string, vars map[string]string) []byte {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	out := os.Expand(string(text), func(key string) string {
		v, ok := vars[key]
		if !ok {
			missing = append(missing, key)
		}
		return v
	})
	if len(missing) > 0 {
		sort.Strings(missing)
		t.Fatalf("testdata/%s: no value for %s", name, strings.Join(missing, ", "))
	}
	return []byte(out)
}

// runFunction runs the real sidecar-lifecycle binary on a ResourceList made of
// the items and the functionConfig, requires exit code 0, saves input and
// output under dir, and returns the output items and results.
func runFunction(t *testing.T, dir string, items, functionConfig []byte) ([]*yaml.RNode, []result) {
	t.Helper()
	nodes, err := kio.FromBytes(items)
	if err != nil {
		t.Fatalf("parsing the items: %v", err)
	}
	config, err := yaml.Parse(string(functionConfig))
	if err != nil {
		t.Fatalf("parsing the functionConfig: %v", err)
	}
	var in bytes.Buffer
	w := kio.ByteWriter{Writer: &in, WrappingKind: kio.ResourceListKind, WrappingAPIVersion: kio.ResourceListAPIVersion, FunctionConfig: config}
	if err := w.Write(nodes); err != nil {
		t.Fatal(err)
	}
	save(t, dir, "function-input.yaml", in.Bytes())

	cmd := exec.CommandContext(context.Background(), suite.function)
	cmd.Stdin = &in
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	save(t, dir, "function-output.yaml", stdout.Bytes())
	if runErr != nil {
		t.Fatalf("%s: %v\nstderr: %s\nstdout:\n%s", suite.function, runErr, stderr.String(), stdout.String())
	}

	list, err := yaml.Parse(stdout.String())
	if err != nil {
		t.Fatalf("parsing the function's output: %v", err)
	}
	var out []*yaml.RNode
	if field := list.Field("items"); field != nil {
		if out, err = field.Value.Elements(); err != nil {
			t.Fatal(err)
		}
	}
	var results []result
	if field := list.Field("results"); field != nil {
		decodeNode(t, field.Value, &results)
	}
	return out, results
}

// requireResult fails the test unless a result of that severity contains
// every one of the fragments.
func requireResult(t *testing.T, results []result, severity string, fragments ...string) {
	t.Helper()
next:
	for _, r := range results {
		if r.Severity != severity {
			continue
		}
		for _, f := range fragments {
			if !strings.Contains(r.Message, f) {
				continue next
			}
		}
		return
	}
	t.Errorf("no %s result containing %q in %+v", severity, fragments, results)
}

// decodeNode decodes a YAML node into a Go value through JSON, so k8s.io/api
// types decode with their json tags.
func decodeNode(t *testing.T, node *yaml.RNode, into any) {
	t.Helper()
	data, err := node.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, into); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
}

// writeNodes writes nodes as a YAML stream to dir/name and returns the path.
func writeNodes(t *testing.T, dir, name string, nodes []*yaml.RNode) string {
	t.Helper()
	var b bytes.Buffer
	if err := (kio.ByteWriter{Writer: &b}).Write(nodes); err != nil {
		t.Fatal(err)
	}
	return save(t, dir, name, b.Bytes())
}

// save writes data to dir/name and returns the path.
func save(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// onlyItem returns the single item of a function output.
func onlyItem(t *testing.T, items []*yaml.RNode) *yaml.RNode {
	t.Helper()
	if len(items) != 1 {
		t.Fatalf("the function returned %d items, want 1", len(items))
	}
	return items[0]
}

// describe is a short name for an item, for messages.
func describe(n *yaml.RNode) string {
	return fmt.Sprintf("%s %s/%s", n.GetKind(), n.GetNamespace(), n.GetName())
}
