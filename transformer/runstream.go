package transformer

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/stream"
)

// mayNameNamespace marks the item lines that could make an item a Namespace:
// the word itself, or a backslash (a double-quoted escape could spell it).
// Such items are read before any item is edited, for NoteNamespace.
func mayNameNamespace(line []byte) bool {
	return bytes.Contains(line, []byte("Namespace")) || bytes.IndexByte(line, '\\') >= 0
}

// spoolLimit is how much of the input, and of the output, the streaming
// path keeps in memory before it moves to temporary files.
var spoolLimit int64 = stream.MemoryLimit

// errFailed stops the first pass of the streaming path at the first item
// that fails: the list is then written again with the input items.
var errFailed = errors.New("an item failed")

// streamRun is one run of the streaming path.
type streamRun struct {
	in     *stream.Input
	cfgErr error
	t      *Transformer
	action config.Action
}

// pass is the output of one pass over the items.
type pass struct {
	items, results *stream.Spool
	summary        Summary
	diagnostics    []Diagnostic
	shown          bool // the orchestrator shows the results (shownByOrchestrator)
	budget         budget.Collector
}

func (p *pass) close() {
	p.items.Close()
	p.results.Close()
}

// itemOutput is what one item adds to the output.
type itemOutput struct {
	text, results []byte
	diagnostics   []Diagnostic
	shown         bool
	outcome       Outcome
	annotated     bool
	fact          budget.Fact
}

// runStream is the streaming path. It reports done=false, having written
// nothing, when the input is not one it can write exactly as the
// whole-list path does: the caller then runs that path, which also
// produces the right error for bad input.
//
// The skeleton (the list without its items) gives the functionConfig, so
// the config is loaded before any item is edited, wherever the
// functionConfig sits. Items that may be Namespaces are read first. Then
// every item is parsed, edited and encoded concurrently and appended, in
// order, to a spool; the results go to another. Output reaches w only at the
// end, because an item that fails means every item must be written as it
// came in: the first pass then stops and a second one encodes the input
// items, with the results the whole-list path gives on failure. The
// collector's target is raised while it runs (see stream.TuneGC). The
// warnings and errors are added to diags. A spool that cannot move to its
// temporary file is an error, with nothing written: the whole-list path
// would hold everything in memory.
func runStream(in *stream.Input, w io.Writer, diags *[]Diagnostic) (done bool, err error) {
	l := in.Layout
	if l == nil {
		return false, nil
	}
	doc, err := ParseResourceList(l.Skeleton)
	if err != nil || !splitAgrees(doc, l) {
		return false, nil
	}
	defer stream.TuneGC()()
	defer func() {
		if p := recover(); p != nil {
			if !done {
				done, err = false, nil // the whole-list path reports it
				return
			}
			err = fmt.Errorf("internal error: %v", p)
		}
	}()
	fc := functionConfig(doc)
	var fcText []byte
	var cfgNode *yaml.RNode
	if !fc.IsEmpty() {
		cfgNode = fc.CopyToResourceNode()
		if fcText, err = stream.FunctionConfigText(fc.MoveToResourceNode()); err != nil {
			return false, nil
		}
	}
	s := &streamRun{in: in}
	cfg, cfgErr := config.Load(cfgNode)
	if cfgErr != nil {
		s.cfgErr = cfgErr
	} else {
		s.t, s.action = New(cfg), cfg.Spec.Action
		if err := s.noteNamespaces(); err != nil {
			return false, nil
		}
	}
	out, err := s.pass(false)
	failed := err == errFailed
	if failed {
		out, err = s.pass(true)
	}
	var spoolErr *stream.SpoolError
	if errors.As(err, &spoolErr) {
		return true, err // the whole-list path would need all of it in memory
	}
	if err != nil {
		return false, nil
	}
	defer out.close()
	var closing fn.Results
	if !failed && cfgErr == nil {
		closing = out.budget.Results(s.action)
		out.diagnostics = append(out.diagnostics, diagnostics(closing, out.shown)...)
	}
	closing = append(closing, &fn.Result{Message: out.summary.Message(s.action), Severity: fn.Info})
	if cfgErr != nil {
		closing = ConfigResults(cfgErr)
		out.diagnostics = diagnostics(closing, out.shown)
	}
	text, err := stream.ResultsText(closing)
	if err != nil {
		return false, nil
	}
	out.results.Write(text)
	if err := out.results.Flush(); err != nil {
		return true, err
	}
	done = true
	list := stream.List{Items: out.items, Count: l.Len(), FunctionConfig: fcText, Results: out.results}
	if _, err := list.WriteTo(w); err != nil {
		return true, fmt.Errorf("writing output: %w", err)
	}
	*diags = out.diagnostics
	return true, resultsError(out.diagnostics)
}

// splitAgrees reports whether the parser finds the skeleton's items key, and
// the key after it, on the lines where the splitter put them (in JSON: one
// items key, with an empty list): then the items the splitter cut out are
// exactly the items of the list.
func splitAgrees(doc *yaml.RNode, l *stream.Layout) bool {
	c := doc.YNode().Content
	for i := 0; i+1 < len(c); i += 2 {
		if c[i].Value != "items" {
			continue
		}
		key, value := c[i], c[i+1]
		if l.JSON {
			return value.Kind == yaml.SequenceNode && len(value.Content) == 0
		}
		if key.Line != l.ItemsLine || key.Column != 1 || key.Kind != yaml.ScalarNode ||
			value.Kind != yaml.SequenceNode || len(value.Content) != 0 {
			return false
		}
		if l.NextKeyLine == 0 {
			return i+2 == len(c)
		}
		return i+2 < len(c) && c[i+2].Line == l.NextKeyLine && c[i+2].Column == 1
	}
	return false
}

// noteNamespaces reads the items marked as possible Namespaces.
func (s *streamRun) noteNamespaces() error {
	marked := s.in.Layout.Marked
	return stream.Map(len(marked), 64, func(i int) (*yaml.RNode, error) {
		return s.in.ParseItem(marked[i])
	}, func(_ int, item *yaml.RNode) error {
		s.t.NoteNamespace(item)
		return nil
	})
}

// pass encodes every item. With failed false it writes the edited items and
// returns errFailed at the first item that fails; with failed true it
// writes the input items, as Transform does when an item failed.
func (s *streamRun) pass(failed bool) (*pass, error) {
	p := &pass{items: stream.NewSpool(spoolLimit), results: stream.NewSpool(spoolLimit)}
	err := stream.Map(s.in.Layout.Len(), 64, func(i int) (itemOutput, error) {
		return s.item(i, failed)
	}, func(_ int, o itemOutput) error {
		if o.outcome == Failed && !failed {
			return errFailed
		}
		if _, err := p.items.Write(o.text); err != nil {
			return err
		}
		if _, err := p.results.Write(o.results); err != nil {
			return err
		}
		p.summary.AddItem(ItemResult{Outcome: o.outcome, Annotated: o.annotated})
		p.budget.Add(o.fact)
		p.diagnostics = append(p.diagnostics, o.diagnostics...)
		p.shown = p.shown || o.shown
		return nil
	})
	if err == nil {
		err = p.items.Flush()
	}
	if err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// item parses, edits and encodes item i, as Transform and write do.
func (s *streamRun) item(i int, failed bool) (itemOutput, error) {
	item, err := s.in.ParseItem(i)
	if err != nil {
		return itemOutput{}, err
	}
	shown := shownByOrchestrator(item)
	if s.cfgErr != nil {
		text, err := stream.ItemText(item)
		return itemOutput{text: text, shown: shown}, err
	}
	r := s.t.Item(item)
	if r.Outcome == Failed && !failed {
		return itemOutput{outcome: Failed}, nil
	}
	if failed && r.Outcome != Failed {
		r.Log.Changes = nil
	}
	results := itemResults(item, r, s.action)
	out := itemOutput{outcome: r.Outcome, annotated: r.Annotated, diagnostics: diagnostics(results, shown), shown: shown, fact: s.t.Fact(r.Node, r.Outcome)}
	if len(results) > 0 {
		if out.results, err = stream.ResultsText(results); err != nil {
			return itemOutput{}, err
		}
	}
	write := r.Node
	if failed || s.action == config.ActionValidate {
		write = item
	}
	out.text, err = stream.ItemText(write)
	return out, err
}
