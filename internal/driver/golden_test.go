package driver_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// update rewrites the expected files of the golden cases: UPDATE_GOLDEN=1 go test ./internal/driver.
var update = os.Getenv("UPDATE_GOLDEN") == "1"

// run runs the function in-process the way the binary does.
func run(t *testing.T, rl []byte) ([]byte, error) {
	t.Helper()
	var out bytes.Buffer
	err := driver.Run(bytes.NewReader(rl), &out)
	if err != nil && !errors.Is(err, report.ErrResults) {
		t.Fatalf("run: %v", err)
	}
	return out.Bytes(), err
}

func readOptional(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return b
}

// golden compares got with the file, or rewrites it with UPDATE_GOLDEN=1.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with UPDATE_GOLDEN=1 to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n%s", path, krmtest.Diff(string(want), string(got)))
	}
}

// TestGolden runs every testdata/<case>: items.yaml and config.yaml in,
// expected.yaml (items) and results.yaml out, and checks the invariants of
// each run: nothing lost, untouched items byte-identical, comments kept,
// valid output, deterministic, idempotent, exit code from the results.
func TestGolden(t *testing.T) {
	dirs, err := filepath.Glob("testdata/*/items.yaml")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, itemsPath := range dirs {
		dir := filepath.Dir(itemsPath)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			goldenCase(t, readOptional(t, itemsPath), readOptional(t, filepath.Join(dir, "config.yaml")),
				filepath.Join(dir, "expected.yaml"), filepath.Join(dir, "results.yaml"))
		})
	}
}

// goldenCase runs items with a functionConfig, compares the output items and
// results with their golden files, checks the invariants of the run, and
// returns the output ResourceList.
func goldenCase(t *testing.T, itemsYAML, configYAML []byte, expectedPath, resultsPath string) krmtest.Output {
	t.Helper()
	rl, err := krmtest.ResourceList(itemsYAML, configYAML)
	if err != nil {
		t.Fatal(err)
	}
	out, runErr := run(t, rl)
	o, err := krmtest.Split(out)
	if err != nil {
		t.Fatalf("output is not a ResourceList: %v\n%s", err, out)
	}
	items, err := krmtest.Stream(o.Items)
	if err != nil {
		t.Fatal(err)
	}
	results, err := krmtest.ResultsYAML(o)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, expectedPath, items)
	golden(t, resultsPath, results)

	if failed := krmtest.HasErrors(o.ResultList()); failed != (runErr != nil) {
		t.Errorf("error results %v, but Run returned %v", failed, runErr)
	}
	for _, e := range krmtest.Check(rl, out) {
		t.Error(e)
	}
	if again, _ := run(t, rl); !bytes.Equal(again, out) {
		t.Errorf("not deterministic:\n%s", krmtest.Diff(string(out), string(again)))
	}
	if runErr == nil {
		checkIdempotent(t, out)
	}
	return o
}

// checkIdempotent runs the output through the function again: the items must
// not change and no resource may be reported as changed.
func checkIdempotent(t *testing.T, out []byte) {
	t.Helper()
	second, err := run(t, out)
	if err != nil {
		t.Fatalf("second run failed: %v\n%s", err, second)
	}
	first, _ := krmtest.Split(out)
	next, _ := krmtest.Split(second)
	a, _ := krmtest.Stream(first.Items)
	b, _ := krmtest.Stream(next.Items)
	if !bytes.Equal(a, b) {
		t.Errorf("not idempotent:\n%s", krmtest.Diff(string(a), string(b)))
	}
	results := next.ResultList()
	for i, r := range results {
		if r.Severity == "info" && r.Ref != "" {
			t.Errorf("second run reports a change to %s: %s", r.Ref, r.Message)
		}
		// The summary is last; the termination budget's info results come before it.
		if r.Severity == "info" && i == len(results)-1 && !strings.HasPrefix(r.Message, "ordered 0 workloads, converted 0 to native sidecars, annotated 0,") &&
			!strings.HasPrefix(r.Message, "validate: 0 workloads") {
			t.Errorf("second run summary reports changes: %s", r.Message)
		}
	}
}
