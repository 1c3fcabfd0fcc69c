package explain_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/explain"
)

// The Mermaid parser and renderer the charts are checked with: the exact
// versions of testdata/mermaid/package-lock.json, installed with npm once
// per lock file into the user's cache directory.
const mermaidFiles = "testdata/mermaid"

// mermaidDir returns the directory where testdata/mermaid's packages are
// installed, installing them on first use. Without node and npm on PATH
// the test is skipped, and fails under CI (CI=true), which must run it.
func mermaidDir(t *testing.T) string {
	t.Helper()
	npm, errNpm := exec.LookPath("npm")
	_, errNode := exec.LookPath("node")
	if errNpm != nil || errNode != nil {
		msg := "node and npm are needed to check the gantt charts with Mermaid's own parser; install Node.js (20 or later)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg + "; skipped outside CI")
	}
	sum := sha256.New()
	for _, name := range []string{"package.json", "package-lock.json"} {
		data, err := os.ReadFile(filepath.Join(mermaidFiles, name))
		if err != nil {
			t.Fatal(err)
		}
		sum.Write(data)
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "sidecar-lifecycle", "mermaid-"+hex.EncodeToString(sum.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "mermaid", "package.json")); err == nil {
		return dir
	}
	// Install beside dir and rename it into place: a run that stops half
	// way, or runs at the same time, never leaves a half-installed dir.
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	for _, name := range []string{"package.json", "package-lock.json"} {
		data, _ := os.ReadFile(filepath.Join(mermaidFiles, name))
		if err := os.WriteFile(filepath.Join(tmp, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", tmp, err, out)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, "node_modules", "mermaid", "package.json")); statErr != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// mermaidTask is a task of a gantt chart as Mermaid reads it.
type mermaidTask struct {
	Section, Task   string
	Start, End      int64 // milliseconds
	Milestone, Crit bool
}

// mermaidChart is a gantt chart as Mermaid reads and draws it.
type mermaidChart struct {
	Title    string
	Sections []string
	Tasks    []mermaidTask
}

// parseCharts has Mermaid parse and draw the charts.
func parseCharts(t *testing.T, charts []string) []mermaidChart {
	t.Helper()
	dir := mermaidDir(t)
	script, err := os.ReadFile(filepath.Join(mermaidFiles, "check.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	// The script imports mermaid from beside itself.
	f, err := os.CreateTemp(dir, "check-*.mjs")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(script); err != nil {
		t.Fatal(err)
	}
	f.Close()
	in, _ := json.Marshal(charts)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("node", f.Name())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("mermaid: %v\n%s", err, stderr.String())
	}
	var out []mermaidChart
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("mermaid's output: %v\n%s", err, stdout.String())
	}
	return out
}

var mermaidBlock = regexp.MustCompile("(?s)```mermaid\n(.*?)```\n")

// TestMermaidDrawsTheTimeline: every chart, as the real Mermaid parser
// reads it, has a task per bar of the timeline from its start to its end
// (a milestone where the duration is unknown, crit where the budget
// breaks) and the grace deadline as a milestone at the grace period; the
// names Mermaid draws are the workload's and containers' names.
func TestMermaidDrawsTheTimeline(t *testing.T) {
	var charts []string
	var want []mermaidChart
	for _, name := range []string{"budget-issue-case", "budget-native-grace", "budget-auto-unreadable", "budget-lb-validate", "native-linkerd"} {
		rl := golden(t, name)
		workloads, err := explain.Explain(rl)
		if err != nil {
			t.Fatal(err)
		}
		blocks := mermaidBlock.FindAllStringSubmatch(render(t, rl, explain.Markdown), -1)
		if len(blocks) != len(workloads) {
			t.Fatalf("%s: %d charts for %d workloads", name, len(blocks), len(workloads))
		}
		for i, wl := range workloads {
			charts = append(charts, blocks[i][1])
			want = append(want, chartOf(wl))
		}
	}
	got := parseCharts(t, charts)
	if len(got) != len(want) {
		t.Fatalf("mermaid read %d charts, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("chart %d as Mermaid reads it:\n%+v\nwant:\n%+v\nchart:\n%s", i, got[i], want[i], charts[i])
		}
	}
}

// chartOf is the chart a workload's timeline should give: a task per bar,
// then the grace deadline; the sections in that order, once each.
func chartOf(wl explain.Workload) mermaidChart {
	c := mermaidChart{Title: wl.Name + ": shutdown"}
	for _, b := range wl.Bars {
		task := mermaidTask{Section: b.Row, Task: fmt.Sprintf("%s %ds", b.Label, b.End-b.Start), Start: b.Start * 1000, End: b.End * 1000, Crit: b.Breaks}
		if b.Unknown {
			task.Task, task.Milestone = b.Label+", duration unknown", true
		}
		c.Tasks = append(c.Tasks, task)
		if !slices.Contains(c.Sections, b.Row) {
			c.Sections = append(c.Sections, b.Row)
		}
	}
	c.Tasks = append(c.Tasks, mermaidTask{Section: "deadline", Task: "grace period ends", Start: wl.Grace * 1000, End: wl.Grace * 1000, Milestone: true})
	if !slices.Contains(c.Sections, "deadline") {
		c.Sections = append(c.Sections, "deadline")
	}
	return c
}
