package explain_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/explain"
)

// The browser the charts are drawn in: Debian's chromium, which `make
// tools` installs with apt-get, or the one $SIDECAR_LIFECYCLE_CHROMIUM
// names. It runs headless on testdata/mermaid/draw.html, which draws the
// charts with the Mermaid of bin/mermaid, as GitHub does, and writes what
// it measured into the page, which chromium prints (--dump-dom).
const chromiumEnv = "SIDECAR_LIFECYCLE_CHROMIUM"

// chromium returns the browser's path. Without one the test is skipped,
// and fails under CI (CI=true), which must run it.
func chromium(t *testing.T) string {
	t.Helper()
	name := os.Getenv(chromiumEnv)
	if name == "" {
		name = "chromium"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		msg := name + " is not on PATH: run make tools, which installs Debian's chromium; the charts are drawn in it"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg + "; skipped outside CI")
	}
	return path
}

// box is a rectangle in CSS pixels from the SVG's top left corner.
type box struct{ Left, Right, Top, Bottom float64 }

func (b box) overlaps(o box) bool {
	return b.Left < o.Right && o.Left < b.Right && b.Top < o.Bottom && o.Top < b.Bottom
}

func (b box) within(o box) bool {
	return b.Left >= o.Left && b.Right <= o.Right && b.Top >= o.Top && b.Bottom <= o.Bottom
}

func (b box) center() float64 { return (b.Left + b.Right) / 2 }

// drawnChart is what draw.html measured of a chart drawn at one width.
type drawnChart struct {
	Width float64
	Title box
	// Plot is the time axis: the plot area from its left to its right end.
	Plot  box
	Ticks []struct{ Seconds, X float64 }
	// Sections are the section labels.
	Sections []struct {
		Text string
		Box  box
	}
	// Tasks are in the order of the chart's text: each one's bar (or
	// milestone) and label.
	Tasks []struct {
		Milestone  bool
		Bar, Label box
		Text       string
	}
}

// x is where the axis draws a time in seconds, from its first and last
// ticks; false without two ticks.
func (d drawnChart) x(seconds float64) (float64, bool) {
	if len(d.Ticks) < 2 {
		return 0, false
	}
	first, last := d.Ticks[0], d.Ticks[len(d.Ticks)-1]
	return first.X + (seconds-first.Seconds)*(last.X-first.X)/(last.Seconds-first.Seconds), true
}

var drawResult = regexp.MustCompile(`(?s)<pre id="result">(.*?)</pre>`)

// draw has Chromium draw each chart with Mermaid at each width (CSS
// pixels) and returns what it measured, chart by chart, width by width.
func draw(t *testing.T, charts []string, widths []int) []drawnChart {
	t.Helper()
	dir := mermaidDir(t)
	browser := chromium(t)
	page, err := os.ReadFile(filepath.Join(mermaidFiles, "draw.html"))
	if err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(map[string]any{"charts": charts, "widths": widths}) // <, > and & escaped: safe in a script
	page = bytes.Replace(page, []byte("/*INPUT*/"), []byte("const input = "+string(in)+";"), 1)
	// The page loads Mermaid from beside itself.
	f, err := os.CreateTemp(dir, "draw-*.html")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(page); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=60000", "--dump-dom", "file://"+f.Name())
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, stderr.String())
	}
	m := drawResult.FindSubmatch(stdout.Bytes())
	if m == nil {
		t.Fatalf("draw.html wrote no result:\n%s\n%s", stdout.String(), stderr.String())
	}
	result := html.UnescapeString(string(m[1]))
	var out []drawnChart
	if err := json.Unmarshal([]byte(result), &out); err != nil {
		t.Fatalf("draw.html's result: %v\n%s", err, result)
	}
	if len(out) != len(charts)*len(widths) {
		t.Fatalf("draw.html measured %d charts, want %d", len(out), len(charts)*len(widths))
	}
	return out
}

// drawnInputs are the inputs whose charts are drawn: the checked ones, and
// load balancers behind an Ingress, whose resources make long names.
var drawnInputs = append([]string{"budget-lb-aws", "budget-lb-gke"}, checkedInputs...)

// drawWidths are the widths the charts are drawn at: a narrow page, and
// GitHub's widest Markdown body.
var drawWidths = []int{640, 1012}

// tolerance is how far, in CSS pixels, a bar's end or a milestone may be
// from its time on the axis.
const tolerance = 2

// TestBrowserDrawsTheChart: every chart, drawn by the real Mermaid in a
// real browser at a narrow and a wide width, has its title within its
// width, each section label in the label column (left of the plot area, so over no bar); each task's label
// inside its own bar, or beside it over no bar and within the plot area;
// each bar from its start to its end and each milestone at its time, as
// the axis places them (within 2 pixels).
func TestBrowserDrawsTheChart(t *testing.T) {
	var charts []string
	var want []mermaidChart
	for _, name := range drawnInputs {
		rl := input(t, name)
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
			want = append(want, chartOf(wl, nil))
		}
	}
	drawn := draw(t, charts, drawWidths)
	for i, chart := range charts {
		for j, width := range drawWidths {
			for _, problem := range drawingProblems(drawn[i*len(drawWidths)+j], want[i]) {
				t.Errorf("%s at %d px: %s\nchart:\n%s", want[i].Title, width, problem, chart)
			}
		}
	}
}

// drawingProblems says where a drawn chart's labels run over its bars or
// leave their place, and where a bar or a milestone is not at its time.
func drawingProblems(d drawnChart, want mermaidChart) []string {
	var problems []string
	if len(d.Tasks) != len(want.Tasks) {
		return []string{fmt.Sprintf("%d tasks drawn, want %d", len(d.Tasks), len(want.Tasks))}
	}
	if d.Title.Left < 0 || d.Title.Right > d.Width {
		problems = append(problems, fmt.Sprintf("the title spans %.1f to %.1f, out of the chart (0 to %.1f)", d.Title.Left, d.Title.Right, d.Width))
	}
	plot := d.Plot
	for _, task := range d.Tasks {
		plot.Left = min(plot.Left, task.Bar.Left)
	}
	for _, s := range d.Sections {
		switch {
		case s.Box.Right-s.Box.Left < 1:
			problems = append(problems, fmt.Sprintf("section label %q is drawn with no width (no font?)", s.Text))
		case s.Box.Left < 0 || s.Box.Right > plot.Left:
			problems = append(problems, fmt.Sprintf("section label %q spans %.1f to %.1f, out of the label column (0 to %.1f)", s.Text, s.Box.Left, s.Box.Right, plot.Left))
		}
	}
	for i, task := range d.Tasks {
		if task.Label.Right-task.Label.Left < 1 {
			problems = append(problems, fmt.Sprintf("task label %q is drawn with no width (no font?)", task.Text))
		}
		if !task.Label.within(task.Bar) {
			if task.Label.Left < plot.Left || task.Label.Right > d.Width {
				problems = append(problems, fmt.Sprintf("task label %q spans %.1f to %.1f, out of the plot area (%.1f to %.1f)", task.Text, task.Label.Left, task.Label.Right, plot.Left, d.Width))
			}
			for _, other := range d.Tasks {
				if task.Label.overlaps(other.Bar) {
					problems = append(problems, fmt.Sprintf("task label %q runs over the bar of %q", task.Text, other.Text))
				}
			}
		}
		w := want.Tasks[i]
		start, ok := d.x(float64(w.Start) / 1000)
		end, _ := d.x(float64(w.End) / 1000)
		switch {
		case !ok:
			problems = append(problems, "the axis has fewer than two ticks")
		case task.Milestone && math.Abs(task.Bar.center()-start) > tolerance:
			problems = append(problems, fmt.Sprintf("milestone %q is drawn at %.1f, its time (%ds) at %.1f", task.Text, task.Bar.center(), w.Start/1000, start))
		case !task.Milestone && (math.Abs(task.Bar.Left-start) > tolerance || math.Abs(task.Bar.Right-end) > tolerance):
			problems = append(problems, fmt.Sprintf("bar %q is drawn from %.1f to %.1f, its times (%ds to %ds) at %.1f to %.1f", task.Text, task.Bar.Left, task.Bar.Right, w.Start/1000, w.End/1000, start, end))
		}
	}
	return problems
}
