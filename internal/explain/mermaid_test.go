package explain_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/explain"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// The Mermaid parser and renderer the charts are checked with, and the
// Markdown parser the tables are: the exact versions of
// testdata/mermaid/package-lock.json, which `make tools` installs with npm
// into bin/mermaid (or the directory $SIDECAR_LIFECYCLE_MERMAID names), run
// with node by check.mjs.
const mermaidFiles = "testdata/mermaid"

// mermaidEnv names the variable that gives another installation directory.
const mermaidEnv = "SIDECAR_LIFECYCLE_MERMAID"

// mermaidDir returns the directory where testdata/mermaid's packages are
// installed. Without node, or without an installation of the current lock
// file, the test is skipped, and fails under CI (CI=true), which must run it.
func mermaidDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv(mermaidEnv)
	if dir == "" {
		dir = filepath.Join("..", "..", "bin", "mermaid")
	}
	if problem := mermaidProblem(dir); problem != "" {
		msg := problem + ": the charts and tables are checked with Mermaid's and marked's own parsers"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg + "; skipped outside CI")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// mermaidProblem says what is missing to run check.mjs from dir: node, or
// the packages of testdata/mermaid's lock file; empty when nothing is.
func mermaidProblem(dir string) string {
	if _, err := exec.LookPath("node"); err != nil {
		return "node is not on PATH: install Node.js (20 or later), then run make tools"
	}
	want, err := os.ReadFile(filepath.Join(mermaidFiles, "package-lock.json"))
	if err != nil {
		return err.Error()
	}
	have, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if _, errMod := os.Stat(filepath.Join(dir, "node_modules", "mermaid", "package.json")); err != nil || errMod != nil || !bytes.Equal(have, want) {
		return "the packages of " + mermaidFiles + "/package-lock.json are not installed in " + dir + ": run make tools"
	}
	return ""
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

// markdownDoc is the text of a Markdown document's parts as marked reads it:
// the cells of the shutdown tables, the rows of the tables of chart rows.
type markdownDoc struct {
	Headings, Quotes, Items, Cells []string
	Rows                           [][]string
}

// checked is what check.mjs writes.
type checked struct {
	Charts   []mermaidChart
	Markdown []markdownDoc
}

// check has Mermaid read and draw the charts, and marked read the Markdown
// documents.
func check(t *testing.T, charts, markdown []string) checked {
	t.Helper()
	dir := mermaidDir(t)
	script, err := os.ReadFile(filepath.Join(mermaidFiles, "check.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	// The script imports its packages from beside itself.
	f, err := os.CreateTemp(dir, "check-*.mjs")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(script); err != nil {
		t.Fatal(err)
	}
	f.Close()
	in, _ := json.Marshal(map[string][]string{"charts": charts, "markdown": markdown})
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("node", f.Name())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("check.mjs: %v\n%s", err, stderr.String())
	}
	var out checked
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("check.mjs's output: %v\n%s", err, stdout.String())
	}
	return out
}

// checkedInputs are the inputs whose explanations are read back: golden
// cases, and names with every character that means something in Markdown
// or Mermaid.
var checkedInputs = []string{"deadline-aws-spot", "deadline-karpenter", "deadline-node-shutdown", "budget-issue-case", "budget-native-grace", "budget-auto-unreadable", "budget-lb-validate", "native-linkerd", "budget-injected-linkerd", "budget-injected-istio", "testdata/names.yaml", "testdata/grace-tail.yaml", "testdata/native-prestop.yaml"}

// input reads a golden case, or a ResourceList in testdata.
func input(t *testing.T, name string) []byte {
	t.Helper()
	if strings.HasPrefix(name, "testdata/") {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	return golden(t, name)
}

var mermaidBlock = regexp.MustCompile("(?s)```mermaid\n(.*?)```\n")

// TestMermaidDrawsTheTimeline: every chart, as the real Mermaid parser
// reads it, has a task per bar of the timeline from its start to its end
// (a milestone where the duration is unknown, crit where the budget
// breaks) and the grace deadline as a milestone at the grace period; the
// title Mermaid draws is the workload's name, whatever characters it
// holds (its start and "…" when long), and each section label, one per
// row, is the container's name, or a label of at most 24 characters that
// the table of chart rows after the chart gives with the row's name in
// full (a load balancer's resources, a long name).
func TestMermaidDrawsTheTimeline(t *testing.T) {
	var charts, sections []string
	var workloads []explain.Workload
	for _, name := range append([]string{"budget-lb-aws"}, checkedInputs...) {
		rl := input(t, name)
		wls, err := explain.Explain(rl)
		if err != nil {
			t.Fatal(err)
		}
		md := render(t, rl, explain.Markdown)
		blocks := mermaidBlock.FindAllStringSubmatch(md, -1)
		parts := strings.Split(md, "\n## ")[1:]
		if len(blocks) != len(wls) || len(parts) != len(wls) {
			t.Fatalf("%s: %d charts and %d sections for %d workloads", name, len(blocks), len(parts), len(wls))
		}
		for i := range wls {
			charts = append(charts, blocks[i][1])
			sections = append(sections, "## "+parts[i])
		}
		workloads = append(workloads, wls...)
	}
	out := check(t, charts, sections)
	if len(out.Charts) != len(charts) || len(out.Markdown) != len(charts) {
		t.Fatalf("mermaid read %d charts and marked %d sections, want %d", len(out.Charts), len(out.Markdown), len(charts))
	}
	for i, wl := range workloads {
		labels := map[string]string{} // row name -> its label
		for _, row := range out.Markdown[i].Rows {
			if len(row) != 2 || labels[row[1]] != "" {
				t.Errorf("%s: chart row %q", wl.Name, row)
				continue
			}
			labels[row[1]] = row[0]
		}
		want, got := chartOf(wl, labels), out.Charts[i]
		if name, ok := strings.CutSuffix(got.Title, "…: shutdown"); ok && strings.HasPrefix(want.Title, name) {
			want.Title = got.Title // a long name is cut
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("chart %d as Mermaid reads it:\n%+v\nwant:\n%+v\nchart:\n%s", i, got, want, charts[i])
		}
		for _, s := range out.Charts[i].Sections {
			if n := len([]rune(s)); n > 24 {
				t.Errorf("%s: section label %q has %d characters, more than 24", wl.Name, s, n)
			}
		}
		rowOf := map[string]string{"deadline": ""} // section label -> its row
		for j, b := range wl.Bars {
			if b.LoadBalancer() && !strings.HasPrefix(labels[report.Escape(b.Row)], "load balancer ") {
				t.Errorf("%s: load balancer %q is labelled %q", wl.Name, b.Row, labels[report.Escape(b.Row)])
			}
			section := want.Tasks[j].Section
			if row, ok := rowOf[section]; ok && row != b.Row {
				t.Errorf("%s: section label %q names both %q and %q", wl.Name, section, row, b.Row)
			}
			rowOf[section] = b.Row
		}
	}
}

// chartOf is the chart a workload's timeline should give: a task per bar,
// then the grace deadline and each node deadline (each with the 2 s tail
// of kubelet's minimum grace after it where the timeline has one); the
// sections in that order, once each, each
// named by its label in labels, else by the row's name.
func chartOf(wl explain.Workload, labels map[string]string) mermaidChart {
	c := mermaidChart{Title: report.Escape(wl.Name) + ": shutdown"}
	label := func(row string) string {
		row = report.Escape(row)
		if l, ok := labels[row]; ok {
			return l
		}
		return row
	}
	section := func(name string) {
		if !slices.Contains(c.Sections, name) {
			c.Sections = append(c.Sections, name)
		}
	}
	for _, b := range wl.Bars {
		task := mermaidTask{Section: label(b.Row), Task: fmt.Sprintf("%s %ds", b.Label, b.End-b.Start), Start: b.Start * 1000, End: b.End * 1000, Crit: b.Breaks}
		if b.Unknown {
			task.Task, task.Milestone = b.Label+", duration unknown", true
		}
		c.Tasks = append(c.Tasks, task)
		section(task.Section)
	}
	c.Tasks = append(c.Tasks, mermaidTask{Section: "deadline", Task: "grace period ends", Start: wl.Grace * 1000, End: wl.Grace * 1000, Milestone: true})
	if wl.Tail > 0 {
		c.Tasks = append(c.Tasks, mermaidTask{Section: "deadline", Task: fmt.Sprintf("tail %ds", wl.Tail), Start: wl.Grace * 1000, End: (wl.Grace + wl.Tail) * 1000})
	}
	for i, n := range wl.Nodes {
		task := "node deadline"
		if len(wl.Nodes) > 1 {
			task += fmt.Sprintf(" %d", i+1)
		}
		c.Tasks = append(c.Tasks, mermaidTask{Section: "deadline", Task: task, Start: n.At * 1000, End: n.At * 1000, Milestone: true, Crit: n.Cuts})
		if n.Tail > 0 {
			c.Tasks = append(c.Tasks, mermaidTask{Section: "deadline", Task: fmt.Sprintf("tail %ds", n.Tail), Start: n.At * 1000, End: (n.At + n.Tail) * 1000, Crit: n.Cuts})
		}
	}
	section("deadline")
	return c
}

// TestMarkdownReadsAsTheTimeline: the Markdown explanation, as a CommonMark
// and GitHub Flavored Markdown parser reads it, shows every name, command
// and event as it is (control characters escaped): a heading per workload,
// a block quote per note and error, a list item per container in start-up
// order and per break, a table row per event.
func TestMarkdownReadsAsTheTimeline(t *testing.T) {
	var docs []string
	var want []markdownDoc
	for _, name := range checkedInputs {
		rl := input(t, name)
		workloads, err := explain.Explain(rl)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, render(t, rl, explain.Markdown))
		var doc markdownDoc
		for _, wl := range workloads {
			doc.Headings = append(doc.Headings, report.Escape(wl.Name))
			for _, n := range wl.Notes {
				doc.Quotes = append(doc.Quotes, "Note: "+report.Escape(n))
			}
			for _, e := range wl.Errors {
				doc.Quotes = append(doc.Quotes, "Error: "+report.Escape(e)+" (the function leaves it as it is)")
			}
			for _, s := range wl.Startup {
				doc.Items = append(doc.Items, report.Escape(s.Name)+": "+report.Escape(s.Text))
			}
			for _, m := range wl.Marks {
				doc.Cells = append(doc.Cells, fmt.Sprint(m.At), report.Escape(m.Text))
			}
			for _, b := range wl.Breaks {
				doc.Items = append(doc.Items, report.Escape(b))
			}
		}
		want = append(want, doc)
	}
	got := check(t, nil, docs).Markdown
	for i := range want {
		if i >= len(got) || !slices.Equal(got[i].Headings, want[i].Headings) || !slices.Equal(got[i].Quotes, want[i].Quotes) ||
			!slices.Equal(got[i].Items, want[i].Items) || !slices.Equal(got[i].Cells, want[i].Cells) {
			t.Errorf("%s as Markdown reads it:\n%q\nwant:\n%q", checkedInputs[i], got[min(i, len(got)-1)], want[i])
		}
	}
}
