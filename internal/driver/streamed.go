package driver

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/emit"
)

// declined is the streaming path's answer for a ResourceList it cannot
// write exactly as the whole-list path does: nothing was written, and the
// whole-list path, which also gives the right error for bad input, runs
// instead.
type declined struct{ why string }

func (d *declined) Error() string { return "the streaming path declined the input: " + d.why }

// streamed is the streaming path: the skeleton (the list without its
// items) gives the functionConfig, then every item is parsed, edited and
// encoded on every core into spools that reach w only at the end (see
// engine.Run). It returns a *declined error, having written nothing, for
// input it cannot write exactly as the whole-list path does.
func streamed(in *yamlio.Input, w io.Writer, opts Options) (Report, error) {
	l := in.Layout
	if l == nil {
		return Report{}, &declined{in.Declined}
	}
	doc, err := ParseResourceList(l.Skeleton)
	if err != nil {
		return Report{}, &declined{"the list without its items does not parse: " + err.Error()}
	}
	if !splitAgrees(doc, l) {
		return Report{}, &declined{"the parser finds the items key elsewhere than the splitter"}
	}
	fc := functionConfig(doc)
	var fcText []byte
	if configNode(fc) != nil { // as write leaves out an empty one

		if fcText, err = emit.FunctionConfigText(fc); err != nil {
			return Report{}, &declined{"the functionConfig does not encode alone: " + err.Error()}
		}
	}
	out, closing, e, err := mendedPass(in, configNode(fc), opts)
	if err != nil {
		return Report{}, err
	}
	defer out.close()
	text, err := emit.ResultsText(report.Untagged(closing))
	if err != nil {
		return Report{}, fmt.Errorf("encoding the results: %w", err)
	}
	if _, err := out.output.WriteResults(text); err != nil {
		return Report{}, err
	}
	if err := out.output.Flush(); err != nil {
		return Report{}, err
	}
	if _, err := out.output.WriteList(w, l.Len(), fcText); err != nil {
		return Report{}, fmt.Errorf("writing output: %w", err)
	}
	return newReport(append(out.problems, closing...), e, opts)
}

// splitAgrees reports whether the parser finds the skeleton's items key, and
// the key after it, on the lines where the splitter put them (in JSON: one
// items key, with an empty list): then the items the splitter cut out are
// exactly the items of the list.
func splitAgrees(doc *yaml.RNode, l *yamlio.Layout) bool {
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

// mendedPass runs streamPass with a new engine for config. Items that do
// not parse alone, where the splitter cut inside a quoted scalar, are each
// merged with the items after them when their text parses as one (see
// yamlio.Input.Merge), and the pass runs again from the start, which no
// output has reached yet: up to maxMended times, then it declines, as it
// does for an item no merge mends.
func mendedPass(in *yamlio.Input, config *yaml.RNode, opts Options) (*pass, fn.Results, *engine.Engine, error) {
	for mended := 0; ; mended++ {
		e := opts.start(engine.Start(config))
		out, closing, err := streamPass(in, e, opts)
		var u *unparsed
		if !errors.As(err, &u) {
			return out, closing, e, err
		}
		if mended == maxMended || !mend(in, u.items) {
			return nil, nil, nil, &declined{u.first.Error()}
		}
	}
}

// maxMended is how many passes mendedPass mends before it hands the list
// to the whole-list path.
const maxMended = 4

// mend merges each of items, in order, with the items after it (see
// yamlio.Input.Merge); it reports false when one cannot be.
func mend(in *yamlio.Input, items []int) bool {
	sort.Ints(items)
	gone, last := 0, -1 // items merged away before the next one
	for _, i := range items {
		if i <= last {
			continue // merged into an item before it already
		}
		before := in.Layout.Len()
		into, ok := in.Merge(i - gone)
		if !ok {
			return false
		}
		n := before - in.Layout.Len()
		last = into + gone + n
		gone += n
	}
	return true
}

// unparsed is the error of a pass with items that do not parse where they
// sit (see yamlio.ParseError): the pass went on to find them all.
type unparsed struct {
	items []int
	first error
}

func (u *unparsed) Error() string { return u.first.Error() }

// pass is the output of one pass over the items: the encoded items and
// results, and the results a Report keeps (Options.kept).
type pass struct {
	output   *yamlio.Output
	problems fn.Results
	opts     Options
	// mu guards unparsed, the items that did not parse (see unparsed),
	// and failed, the first of their errors.
	mu       sync.Mutex
	unparsed []int
	failed   error
	// aliases is the group being written (see aliasGroup).
	aliases aliasGroup
}

// unparse notes that item i does not parse where it sits when err is a
// *yamlio.ParseError, and returns err otherwise.
func (p *pass) unparse(err error) error {
	var parseErr *yamlio.ParseError
	if !errors.As(err, &parseErr) {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.unparsed = append(p.unparsed, parseErr.Item)
	if p.failed == nil {
		p.failed = err
	}
	return nil
}

// mending reports whether an item did not parse: the pass then only looks
// for the others.
func (p *pass) mending() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failed != nil
}

func (p *pass) close() { p.output.Close() }

// encoded is one item as the streaming path writes it: its edit, unless
// it is written as it came without being read (see untouchedItem).
type encoded struct {
	edit          engine.Edit
	text, results []byte
	// input is the item as parsed, for an item parsed with its
	// neighbours (see aliasGroup).
	input *yaml.RNode
}

// streamPass edits and encodes every item in order (see engine.Run) and
// returns them with the closing results. An item that does not parse
// where it sits makes it go on only to find the others, and return them
// as an *unparsed error; it stops at any read or spool error.
func streamPass(in *yamlio.Input, e *engine.Engine, opts Options) (*pass, fn.Results, error) {
	p := &pass{output: yamlio.NewOutput(spoolLimit), opts: opts}
	closing, err := engine.Run(e, engine.Pass[encoded]{
		Len: in.Layout.Len(), Window: 32,
		Marked: in.Layout.Marked, ParseMarked: mayBeNoted(in),
		Prepare: func(i int) (encoded, *engine.Edit, error) {
			text, ok, err := untouchedItem(in, e, i)
			if err != nil || ok {
				return encoded{text: text}, nil, err
			}
			if p.mending() {
				_, err := in.ParseItemOnce(i, text)
				return encoded{}, nil, p.unparse(err)
			}
			enc, ok := editElided(in, e, i, text)
			if !ok {
				enc, err = editItem(in, e, i, text)
			}
			if err != nil {
				return encoded{}, nil, p.unparse(err)
			}
			return enc, &enc.edit, nil
		},
		Write: func(i int, enc encoded, w *engine.Written) error {
			return p.unparse(p.write(in, e, i, enc, w))
		},
		Failed: func(k int) error { return p.unparse(p.rewrite(in, e, k)) },
	})
	if err == nil && p.failed != nil {
		err = &unparsed{items: p.unparsed, first: p.failed}
	}
	if err == nil {
		err = p.output.Flush()
	}
	if err != nil {
		p.close()
		return nil, nil, err
	}
	return p, closing, nil
}

// write writes item i as the engine says (w; nil for an item passed
// through unread): the text Prepare encoded, or, when the run learnt of a
// failed item since, the item as it came with its results in a failed
// run.
func (p *pass) write(in *yamlio.Input, e *engine.Engine, i int, enc encoded, w *engine.Written) error {
	if w == nil {
		_, err := p.output.Write(enc.text)
		return err
	}
	var err error
	if prepared := enc.edit.Written; prepared.Node != w.Node || len(prepared.Results) != len(w.Results) {
		if enc.text, err = asItCame(in, e, i); err != nil {
			return err
		}
		if enc.results, err = resultsText(w.Results); err != nil {
			return err
		}
	} else if enc.input != nil {
		if enc.text, err = p.aliases.keep(in, i, enc.input, w.Node, enc.text); err != nil {
			return err
		}
	}
	if _, err := p.output.Write(enc.text); err != nil {
		return err
	}
	if _, err := p.output.WriteResults(enc.results); err != nil {
		return err
	}
	p.problems = append(p.problems, p.opts.kept(w.Results)...)
	return nil
}

// rewrite writes the k items written so far again as they came, with their
// results in a failed run: their warnings and errors, all of which
// p.problems holds (an info said a change the run no longer writes).
func (p *pass) rewrite(in *yamlio.Input, e *engine.Engine, k int) error {
	p.output.Reset()
	for i := range k {
		text, err := asItCame(in, e, i)
		if err != nil {
			return err
		}
		if _, err := p.output.Write(text); err != nil {
			return err
		}
	}
	text, err := resultsText(report.Problems(p.problems))
	if err != nil {
		return err
	}
	_, err = p.output.WriteResults(text)
	return err
}

// asItCame is item i's text as the streaming path writes an item it does
// not change: its own text when the writer writes it so (see
// untouchedItem), else the encoding of its parse.
func asItCame(in *yamlio.Input, e *engine.Engine, i int) ([]byte, error) {
	text, ok, err := untouchedItem(in, e, i)
	if err != nil || ok {
		return text, err
	}
	var item *yaml.RNode
	if text != nil {
		item, err = in.ParseItemText(i, text)
	} else {
		item, err = in.ParseItem(i)
	}
	if err != nil {
		return nil, err
	}
	return entryText(item)
}

// entryText is an item's text as the list's entry (emit.ItemText),
// with the blank line the writer puts after an entry that holds a comment
// of its own at its end (a flow mapping followed by comments: the parser
// attaches them to the entry) when anything follows it: another entry, or
// the results every list ends with.
func entryText(item *yaml.RNode) ([]byte, error) {
	text, err := emit.ItemText(item)
	if err != nil || item.YNode().FootComment == "" || len(text) == 0 {
		return text, err
	}
	return append(text, '\n'), nil
}

// resultsText is the results' entries as the list writes them, or nothing
// for no results.
func resultsText(results fn.Results) ([]byte, error) {
	if len(results) == 0 {
		return nil, nil
	}
	text, err := emit.ResultsText(report.Untagged(results))
	if err != nil {
		return nil, fmt.Errorf("encoding the results: %w", err)
	}
	return text, nil
}

// editItem parses, checks, edits and encodes item i, whose text is given
// when it was read already.
func editItem(in *yamlio.Input, e *engine.Engine, i int, text []byte) (encoded, error) {
	var (
		item *yaml.RNode
		err  error
	)
	if text != nil {
		item, err = in.ParseItemOnce(i, text)
	} else {
		item, err = in.ParseItem(i)
	}
	var parseErr *yamlio.ParseError
	if err != nil && !errors.As(err, &parseErr) {
		return encoded{}, fmt.Errorf("reading input: %w", err)
	}
	if err != nil {
		return encoded{}, err
	}
	if err := checkItem(item.YNode()); err != nil {
		return encoded{}, fmt.Errorf("ResourceList items[%d]%s", i, err) // as ParseResourceList says it
	}
	ed := e.Edit(item)
	if w := ed.Written; !w.Changed && text != nil && !in.Layout.Joined(i) && asWritten(in, text) {
		results, err := resultsText(w.Results)
		return encoded{edit: ed, text: text, results: results}, err
	}
	enc, err := encode(ed)
	if in.Layout.Joined(i) {
		enc.input = item
	}
	return enc, err
}

// asWritten reports whether an item's text is what the writer writes for
// it (see yamlio.Input.ScanItem): an item the run does not change is then
// written as its text, which spares its encoding.
func asWritten(in *yamlio.Input, text []byte) bool {
	_, ok := in.ScanItem(text)
	return ok
}

// encode encodes what the engine writes for an edit: the item's text and
// its results' entries.
func encode(ed engine.Edit) (encoded, error) {
	w := ed.Written
	out := encoded{edit: ed}
	var err error
	if out.results, err = resultsText(w.Results); err != nil {
		return encoded{}, err
	}
	if out.text, err = entryText(w.Node); err != nil {
		return encoded{}, fmt.Errorf("encoding an item: %w", err)
	}
	return out, nil
}
