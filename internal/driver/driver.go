// Package driver reads the function's input forms, hands their items to one
// engine.Engine and writes what it returns: a ResourceList (streamed
// when its items can be cut out of the text, else parsed whole) and a plain
// multi-document YAML stream. Each entry point returns the same Report, and
// a *report.ResultsError when any result is an error.
package driver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// Report is what a run hands back besides its output.
type Report struct {
	// Problems are the warning and error results (with Options.Infos,
	// every result), in the order they were written: what the command line
	// prints on stderr.
	Problems fn.Results
	// Shown reports that the orchestrator shows the results itself (kpt fn
	// render marks its items; see engine.Engine.Shown).
	Shown bool
	// Lines holds, for a plain stream, the input line, from 1, of the
	// resource each of Problems is about (where its content starts), or 0
	// for a problem about no resource of the input. It is nil for a
	// ResourceList.
	Lines []int
	// Shared, with Options.Infos, is each warning said once of several
	// workloads (report.WorkloadsTag) once for each of them, and
	// SharedLines their lines in a plain stream: what a report lists.
	Shared      fn.Results
	SharedLines []int
	// Workloads are the workloads the run counted, in input order, each
	// with its line in a plain stream (0 in a ResourceList): what a
	// report lists, findings or none.
	Workloads []Workload
}

// Workload is a workload a run counted, and for a plain stream the input
// line, from 1, where it starts.
type Workload struct {
	engine.Checked
	// Line is the workload's line in the stream, or 0.
	Line int
}

// Options tune a run.
type Options struct {
	// MaxDocumentSize is the size above which a document of a plain
	// stream, an item of a ResourceList, or a ResourceList the streaming
	// path does not take, is refused with a *yamlio.TooLargeError before it
	// is read further: parsing costs several times the text in memory. 0
	// means yamlio.DefaultMaxDocumentSize; a negative value, no limit.
	MaxDocumentSize int64
	// Action, when set, replaces the config's spec.action: the command
	// line's validate verb.
	Action config.Action
	// Infos keeps the info results in Report.Problems too, in their
	// order: a report (SARIF, JUnit, JSON) lists them; stderr does not.
	Infos bool
	// Watch, when set, is handed each engine the run starts (a pass may
	// start again with a new one), before its first item: --explain
	// observes the run through it (engine.Engine.Observe).
	Watch func(*engine.Engine)
}

// kept are the results a Report keeps: the warnings and errors, and with
// Infos every result.
func (o Options) kept(results fn.Results) fn.Results {
	if o.Infos {
		return results
	}
	return report.Problems(results)
}

// start readies a run's engine for the options: a report lists a shared
// warning for each of its workloads (Engine.KeepSharedEach); a watcher
// is handed it.
func (o Options) start(e *engine.Engine) *engine.Engine {
	if o.Infos {
		e.KeepSharedEach()
	}
	if o.Watch != nil {
		o.Watch(e)
	}
	return e
}

// newReport is the Report of a run's results and the workloads its
// engine counted, with the error a run returns for them.
func newReport(results fn.Results, e *engine.Engine, opts Options) (Report, error) {
	rep := Report{Problems: opts.kept(results), Shown: e.Shown()}
	if opts.Infos {
		rep.Shared = e.SharedEach()
	}
	for _, c := range e.Checked() {
		rep.Workloads = append(rep.Workloads, Workload{Checked: c})
	}
	return rep, report.ErrorOf(results)
}

// ResourceList reads a ResourceList from r, runs the function on it and
// writes it, with its results, to w. Input that is not a ResourceList is an
// error and nothing is written. With an error result the items are written
// as they came and the error is a *report.ResultsError.
//
// The items are split textually, then parsed, edited and encoded on every
// core (see streamed); input the splitter does not take with certainty is
// parsed whole (see whole). Both write the same bytes.
func ResourceList(r io.Reader, w io.Writer) (Report, error) {
	return ResourceListWith(r, w, Options{})
}

// ResourceListWith is ResourceList with options.
func ResourceListWith(r io.Reader, w io.Writer, opts Options) (Report, error) {
	in, err := yamlio.Read(r, yamlio.Options{Mark: mayNameNoted, MemoryLimit: spoolLimit, MaxDocumentSize: opts.MaxDocumentSize})
	if err != nil {
		return Report{}, fmt.Errorf("reading input: %w", err)
	}
	defer in.Close()
	rep, err := streamed(in, w, opts)
	var d *declined
	if !errors.As(err, &d) {
		return rep, err
	}
	data, err := in.Bytes()
	if err != nil {
		return Report{}, fmt.Errorf("reading input: %w", err)
	}
	return whole(data, w, opts)
}

// mayNameNoted marks the item lines that could make an item a Namespace or
// a Node: the word Node (in Namespace too), or a backslash (a
// double-quoted escape could spell it). Such items are handed to
// Engine.Note before any item is edited.
func mayNameNoted(line []byte) bool {
	return bytes.Contains(line, []byte("Node")) || bytes.Contains(line, []byte("Namespace")) || bytes.IndexByte(line, '\\') >= 0
}

// mayBeNoted is the parse of the streaming path's pre-pass (see
// engine.Pass): it parses item i unless Input.ScanItem reads the item's
// kind, and that kind is neither Namespace, Node nor a List, whose entries
// may be either; it returns nil then. An item is marked for
// a backslash anywhere in it, and a workload's value may well hold one:
// a large workload would be parsed whole for nothing (see elide).
func mayBeNoted(in *yamlio.Input) func(i int) (*yaml.RNode, error) {
	return func(i int) (*yaml.RNode, error) {
		text, err := in.Item(i)
		if err != nil {
			return nil, err
		}
		if s, ok := in.ScanItem(text); ok && !notedKind(s.Kind) {
			return nil, nil
		}
		return in.ParseItemText(i, text)
	}
}

// mayBeNotedDocument is mayBeNoted for document i of a plain stream: it
// parses the document unless yamlio.ScanDocument reads its kind and that kind is
// not one notedKind names.
func mayBeNotedDocument(docs *yamlio.Documents, i int) (*yaml.RNode, error) {
	d, err := readText(docs, i)
	if err != nil {
		return nil, err
	}
	if s, ok := yamlio.ScanDocument(d.body); ok && !notedKind(s.Kind) {
		return nil, nil
	}
	if d.doc, err = d.parse(); err != nil || d.doc == nil {
		return nil, err
	}
	return yaml.NewRNode(d.doc.Content[0]), nil
}

// notedKind reports whether a resource of kind may be or hold what
// Engine.Note reads: a Namespace, a Node, or a List of anything.
func notedKind(kind string) bool {
	return kind == "Namespace" || kind == "Node" || strings.HasSuffix(kind, "List")
}

// spoolLimit is how much of the input, and of the output, the streaming
// paths keep in memory before they move to temporary files.
var spoolLimit int64 = yamlio.MemoryLimit
