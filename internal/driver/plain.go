package driver

import (
	"fmt"
	"io"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/list"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
)

// PlainStream is PlainStreamWith with the default Options.
func PlainStream(cfgNode *yaml.RNode, r io.Reader, w io.Writer) (Report, error) {
	return PlainStreamWith(cfgNode, r, w, Options{})
}

// PlainStreamWith runs the function on a plain multi-document YAML stream
// (cfgNode: a SidecarLifecycle or ConfigMap node, nil for the defaults)
// and writes it to w: documents it does not change as they came, with
// everything around them; changed ones re-encoded in their own style
// (JSON as JSON). With an error result nothing is written; an error about
// a place in the input is a *yamlio.LineError. docs/performance.md says
// how it streams.
func PlainStreamWith(cfgNode *yaml.RNode, r io.Reader, w io.Writer, opts Options) (Report, error) {
	e := opts.start(engine.StartAs(cfgNode, opts.Action))
	if e.ConfigErr() != nil {
		return newReport(e.Close(), e, opts)
	}
	docs, err := yamlio.ReadDocuments(yamlio.Text(r), yamlio.Options{
		Mark: mayNameNoted, MemoryLimit: spoolLimit, MaxDocumentSize: opts.MaxDocumentSize,
	})
	if err != nil {
		return Report{}, fmt.Errorf("reading input: %w", err)
	}
	defer docs.Close()
	out, pass, closing, err := plainPass(docs, e, opts)
	if err != nil {
		return Report{}, err
	}
	defer out.Close()
	rep, err := newReport(append(pass.problems, closing...), e, opts)
	rep.Lines = append(pass.lines, pass.linesOf(opts.kept(closing))...)
	rep.SharedLines = pass.linesOf(rep.Shared)
	for i := range rep.Workloads {
		rep.Workloads[i].Line = pass.workloads[i]
	}
	if err != nil {
		return rep, err
	}
	if _, err := out.WriteTo(w); err != nil {
		return rep, fmt.Errorf("writing output: %w", err)
	}
	return rep, nil
}

// plainResults are the problems of one pass over the documents, with the
// line of each, and the line of every resource, by its resourceRef, for
// the closing results.
type plainResults struct {
	problems  fn.Results
	lines     []int
	opts      Options
	resources map[string]int
	// workloads is the line of each workload the engine counted, in its
	// order (see engine.Engine.Checked).
	workloads []int
}

// add takes the results a Report keeps of a document's (Options.kept),
// each at the line of its resource: the document's, or a List entry's.
func (p *plainResults) add(d plainDocument, results fn.Results) {
	for _, r := range p.opts.kept(results) {
		line := d.line
		if r.ResourceRef != nil {
			if l, ok := d.entries[refKey(r.ResourceRef.Kind, r.ResourceRef.Namespace, r.ResourceRef.Name)]; ok {
				line = l
			}
		}
		p.problems = append(p.problems, r)
		p.lines = append(p.lines, line)
	}
}

// addResources records the line of the document's resource, and of each
// of its entries when it is a List, for the closing results.
func (p *plainResults) addResources(d plainDocument) {
	if _, seen := p.resources[d.ref]; !seen {
		p.resources[d.ref] = d.line
	}
	for ref, line := range d.entries {
		if _, seen := p.resources[ref]; !seen {
			p.resources[ref] = line
		}
	}
}

// addWorkloads records the line of each workload the engine counted
// since the last document: the document's, or a List entry's.
func (p *plainResults) addWorkloads(d plainDocument, checked []engine.Checked) {
	for _, c := range checked[len(p.workloads):] {
		line := d.line
		if l, ok := d.entries[refKey(c.Ref.Kind, c.Ref.Namespace, c.Ref.Name)]; ok {
			line = l
		}
		p.workloads = append(p.workloads, line)
	}
}

// linesOf is the line of the resource each result is about, or 0.
func (p *plainResults) linesOf(results fn.Results) []int {
	lines := make([]int, len(results))
	for i, r := range results {
		if r.ResourceRef != nil {
			lines[i] = p.resources[refKey(r.ResourceRef.Kind, r.ResourceRef.Namespace, r.ResourceRef.Name)]
		}
	}
	return lines
}

// refKey is what identifies a resource in the results.
func refKey(kind, namespace, name string) string { return kind + "\x00" + namespace + "\x00" + name }

// resourceKey is the refKey of a resource's mapping, read with no
// assumption about its fields' kinds: the engine reports a bad field.
func resourceKey(root *yaml.Node) string {
	scalar := func(m *yaml.Node, key string) string {
		if m == nil || m.Kind != yaml.MappingNode {
			return ""
		}
		if v := fieldNode(m, key); v != nil && v.Kind == yaml.ScalarNode {
			return v.Value
		}
		return ""
	}
	meta := fieldNode(root, "metadata")
	return refKey(scalar(root, "kind"), scalar(meta, "namespace"), scalar(meta, "name"))
}

// plainPass edits and encodes every document in order, into a spool (see
// engine.Run), and returns it with the problems and the closing results.
// It stops at the first document that is not valid YAML. A run with a
// failed item writes nothing, so the documents written before it stay as
// they are in the spool, which is dropped.
func plainPass(docs *yamlio.Documents, e *engine.Engine, opts Options) (*yamlio.Output, *plainResults, fn.Results, error) {
	out := yamlio.NewOutput(spoolLimit)
	p := &plainResults{resources: map[string]int{}, opts: opts}
	closing, err := engine.Run(e, engine.Pass[plainDocument]{
		Len: docs.Len(), Window: 64,
		Marked: docs.Marked, ParseMarked: func(i int) (*yaml.RNode, error) { return mayBeNotedDocument(docs, i) },
		Prepare: func(i int) (plainDocument, *engine.Edit, error) {
			d, err := document(docs, e, i)
			return d, d.edit, err
		},
		Write: func(_ int, d plainDocument, w *engine.Written) error {
			if w != nil {
				p.add(d, w.Results)
				p.addResources(d)
				p.addWorkloads(d, e.Checked())
			}
			for _, piece := range d.text {
				if _, err := out.Write(piece); err != nil {
					return err
				}
			}
			return nil
		},
		Failed: func(int) error { return nil },
	})
	if err == nil {
		err = out.Flush()
	}
	if err != nil {
		out.Close()
		return nil, nil, nil, err
	}
	return out, p, closing, nil
}

// plainDocument is one document as the plain stream writes it: its text,
// in pieces, and for a resource the engine's edit, the line its content
// starts on and its refKey; for a List, the line of each entry's first
// resource of a refKey.
type plainDocument struct {
	text    [][]byte
	edit    *engine.Edit
	line    int
	ref     string
	entries map[string]int
}

// document edits document i and returns what to write for it: the input
// text when nothing changed, without parsing it when the run does not read
// it (see untouched).
func document(docs *yamlio.Documents, e *engine.Engine, i int) (plainDocument, error) {
	d, err := readText(docs, i)
	if err != nil {
		return plainDocument{}, err
	}
	out := plainDocument{text: d.text()}
	if untouched(e, d.body) {
		return out, nil
	}
	if d.doc, err = d.parse(); err != nil || d.doc == nil {
		return out, err
	}
	item := yaml.NewRNode(d.doc.Content[0])
	ed := e.Edit(item)
	out.edit, out.line = &ed, d.contentLine()
	out.ref = resourceKey(d.doc.Content[0])
	if entries, ok := list.Items(item); ok {
		out.entries = map[string]int{}
		for _, n := range entries {
			if k := resourceKey(n); n.Kind == yaml.MappingNode && out.entries[k] == 0 {
				out.entries[k] = d.line + n.Line - 1
			}
		}
	}
	if w := ed.Written; w.Changed {
		body, err := encodeDocument(d.doc, w.Node, d.body)
		if err != nil {
			return plainDocument{}, &yamlio.LineError{Line: out.line, Err: fmt.Errorf("encoding the edited document: %w", err)}
		}
		out.text = d.textWith(body)
	}
	return out, nil
}
