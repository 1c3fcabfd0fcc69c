// Package explain prints, for each workload of a ResourceList, the
// start-up order and the shutdown timeline of its containers and load
// balancers, as the function writes the workload with action mutate: as a
// text table, or as Markdown with a Mermaid gantt chart.
package explain

import (
	"fmt"
	"io"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
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

// Explain reads a ResourceList and returns the explanation of every
// workload the function handles, in input order.
func Explain(in []byte) ([]Workload, error) {
	doc, err := driver.ParseResourceList(in)
	if err != nil {
		return nil, err
	}
	var cfgNode *yaml.RNode
	if fc := doc.Field("functionConfig"); fc != nil && !fc.Value.IsNil() {
		cfgNode = fc.Value
	}
	cfg, err := config.Load(cfgNode)
	if err != nil {
		return nil, fmt.Errorf("functionConfig: %w", err)
	}
	var items []*yaml.RNode
	if f := doc.Field("items"); f != nil && !f.Value.IsNil() {
		for _, n := range f.Value.YNode().Content {
			items = append(items, yaml.NewRNode(n))
		}
	}
	return explain(cfg, items), nil
}

// Plain reads a plain multi-document YAML stream as the function reads it
// with --config, and returns the explanation of every workload the
// function handles, in input order. cfgNode is the config: a
// SidecarLifecycle or a ConfigMap node, nil for the defaults.
func Plain(cfgNode *yaml.RNode, r io.Reader) ([]Workload, error) {
	cfg, err := config.Load(cfgNode)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	items, err := driver.PlainItems(r)
	if err != nil {
		return nil, err
	}
	return explain(cfg, items), nil
}

// explain explains the items with the config: each workload as the
// function writes it with action mutate, whatever another item does.
func explain(cfg *config.SidecarLifecycle, items []*yaml.RNode) []Workload {
	e := engine.New(cfg).Start()
	for _, item := range items {
		e.Note(item)
	}
	e.Settle()
	var lb budget.Collector
	type written struct {
		edit   engine.Edit
		fact   *budget.Workload
		errors []string
	}
	var workloads []written
	for _, item := range items {
		// As action mutate writes it, whatever another item does; a List's
		// entries one by one.
		for _, ed := range e.Edit(item).Entries() {
			f := ed.Fact()
			lb.Add(f)
			if f.Workload != nil {
				workloads = append(workloads, written{edit: ed, fact: f.Workload, errors: ed.Errors()})
			}
		}
	}
	routes := map[*budget.Workload][]budget.Route{}
	for _, r := range lb.Routes() {
		routes[r.Workload] = append(routes[r.Workload], r.Route)
	}
	out := make([]Workload, 0, len(workloads))
	for _, w := range workloads {
		pod, ok := e.ReadPod(w.edit)
		if !ok {
			continue
		}
		node := w.edit.Node()
		pod.Injected = injected(cfg, node, w.edit.Injected())
		out = append(out, Workload{Timeline: budget.NewTimeline(w.fact.String(), pod, routes[w.fact]), Notes: nameNotes(node, pod), Errors: w.errors,
			CannotStart: cannotStart(cfg, node, pod)})
	}
	return out
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
