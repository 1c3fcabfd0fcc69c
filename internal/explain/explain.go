// Package explain prints, for each workload of a ResourceList, the
// start-up order and the shutdown timeline of its containers and load
// balancers, as the function writes the workload with action mutate: as a
// text table, or as Markdown with a Mermaid gantt chart.
package explain

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/deadline"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// Format is how the explanation is written.
type Format string

// Formats.
const (
	// Text is a plain text table per workload.
	Text Format = "text"
	// Markdown is Markdown with a Mermaid gantt chart per workload.
	Markdown Format = "markdown"
)

// ParseFormat reads the value of --explain; empty is Text.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case "", Text:
		return Text, nil
	case Markdown:
		return Markdown, nil
	}
	return "", fmt.Errorf("--explain=%q: use text or markdown", s)
}

// Workload is the explanation of one workload.
type Workload struct {
	budget.Timeline
	// Notes name the workload's names the API server would reject.
	Notes []string
	// Errors are the workload's error results: the function would not change it.
	Errors []string
	// CannotStart says, for each sidecar whose wait command or startup
	// probe cannot pass, why: the containers after it never start.
	CannotStart []string
}

// Explain runs the function on a ResourceList, with its output set
// aside, and returns the explanation of every workload the run counts,
// in input order.
func Explain(in []byte) ([]Workload, error) {
	var w watch
	_, err := driver.ResourceListWith(bytes.NewReader(in), io.Discard, driver.Options{Watch: w.start})
	return w.explain("functionConfig", err)
}

// Plain is Explain for a plain multi-document YAML stream, read as the
// function reads it with --config; cfgNode is the config: a
// SidecarLifecycle or a ConfigMap node, nil for the defaults.
func Plain(cfgNode *yaml.RNode, r io.Reader) ([]Workload, error) {
	var w watch
	_, err := driver.PlainStreamWith(cfgNode, r, io.Discard, driver.Options{Watch: w.start})
	return w.explain("config", err)
}

// watch observes a run: the edits of the workloads its last engine counts
// (a pass that starts again starts a new engine).
type watch struct {
	e     *engine.Engine
	edits []engine.Edit
}

func (w *watch) start(e *engine.Engine) {
	w.e, w.edits = e, nil
	e.Observe(func(ed engine.Edit) {
		if ed.Fact.Workload != nil {
			w.edits = append(w.edits, ed)
		}
	})
}

// explain explains each workload the run counted, as action mutate writes
// it whatever another item does; err is the run's error: an error result
// is the explanation's to show, any other error (the input, the config) is
// the explanation's error.
func (w *watch) explain(what string, err error) ([]Workload, error) {
	var results *report.ResultsError
	switch {
	case w.e != nil && w.e.ConfigErr() != nil:
		return nil, fmt.Errorf("%s: %w", what, w.e.ConfigErr())
	case err != nil && !errors.As(err, &results):
		return nil, err
	case w.e == nil:
		return nil, nil
	}
	cfg := w.e.Config()
	routes := map[*budget.Workload][]budget.Route{}
	all := w.e.Routes()
	for _, r := range all {
		routes[r.Workload] = append(routes[r.Workload], r.Route)
	}
	out := make([]Workload, 0, len(w.edits))
	for _, ed := range w.edits {
		pod, ok := w.e.ReadPod(ed)
		if !ok {
			continue
		}
		node := ed.Node()
		pod.Injected = injected(cfg, ed.TemplateMeta(), ed.Injected())
		tl := budget.NewTimeline(ed.Fact.Workload.String(), pod, routes[ed.Fact.Workload])
		if classes := w.e.NodeClasses(); len(classes) > 0 {
			tl.AddNodeDeadlines(pod, budget.Sends(ed.Fact.Workload, all), deadline.Reaching(ed.Fact.Workload.Placement, pod.Grace, classes))
		}
		out = append(out, Workload{Timeline: tl, Notes: nameNotes(node, pod), Errors: ed.Errors(),
			CannotStart: cannotStart(cfg, ed.PodSpec(), pod)})
	}
	return out, nil
}

// Run reads a ResourceList from r and writes the explanation to w.
func Run(r io.Reader, w io.Writer, format Format) error {
	in, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("reading input: %w", err)
	}
	workloads, err := Explain(in)
	if err != nil {
		return err
	}
	return write(w, workloads, format)
}

// RunPlain reads a plain multi-document YAML stream from r, with the
// config cfgNode (nil for the defaults), and writes the explanation to w.
func RunPlain(cfgNode *yaml.RNode, r io.Reader, w io.Writer, format Format) error {
	workloads, err := Plain(cfgNode, r)
	if err != nil {
		return err
	}
	return write(w, workloads, format)
}

func write(w io.Writer, workloads []Workload, format Format) error {
	if format == Markdown {
		return writeMarkdown(w, workloads)
	}
	return writeText(w, workloads)
}
