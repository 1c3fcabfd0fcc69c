package transformer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/stream"
)

// ErrResults is returned by Run when the output carries error results.
var ErrResults = errors.New("the function reported errors; see results")

// ResultsError is Run's error when the output carries error results: it
// lists them, because kustomize shows only stderr when a function fails.
type ResultsError struct {
	// Errors are the error results, one line each.
	Errors []string
}

// Error joins the error results.
func (e *ResultsError) Error() string { return strings.Join(e.Errors, "; ") }

// Is makes errors.Is(err, ErrResults) true.
func (e *ResultsError) Is(target error) bool { return target == ErrResults }

func resultsError(results fn.Results) error {
	return &ResultsError{Errors: errorLines(results)}
}

// errorLines are the error results, one line each.
func errorLines(results fn.Results) []string {
	var lines []string
	for _, r := range results {
		if r.Severity != fn.Error {
			continue
		}
		line := r.Message
		switch {
		case r.Field != nil && r.Field.Path != "":
			line = r.Field.Path + ": " + line
		case r.ResourceRef != nil:
			line = fmt.Sprintf("%s %s: %s", r.ResourceRef.Kind, qualifiedName(r.ResourceRef), line)
		}
		lines = append(lines, line)
	}
	return lines
}

func qualifiedName(r *fn.ResourceRef) string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}

// Process is the kpt function SDK processor: it loads the functionConfig,
// transforms the items and sets the results. It reports failure when any
// result is an error; the items are then left as they were.
func Process(rl *fn.ResourceList) (bool, error) {
	var cfgNode *yaml.RNode
	if rl.FunctionConfig != nil && !rl.FunctionConfig.IsEmpty() {
		cfgNode = rl.FunctionConfig.CopyToResourceNode()
	}
	cfg, err := config.Load(cfgNode)
	if err != nil {
		rl.Results = append(rl.Results, ConfigResults(err)...)
		return false, nil
	}
	items := make([]*yaml.RNode, len(rl.Items))
	for i, obj := range rl.Items {
		items[i] = obj.CopyToResourceNode()
	}
	out, results := New(cfg).Transform(items)
	rl.Results = append(rl.Results, results...)
	for i := range out {
		if out[i] != items[i] {
			rl.Items[i] = fn.MoveToKubeObject(out[i])
		}
	}
	for _, r := range results {
		if r.Severity == fn.Error {
			return false, nil
		}
	}
	return true, nil
}

// Run reads a ResourceList from r, transforms it and writes it to w. Input
// that is not a ResourceList is an error and nothing is written. Error
// results are written with the unchanged items and returned as ErrResults.
//
// Run streams: the items are split textually, then parsed, edited and
// encoded on every core (see runStream). Input the splitter does not take
// with certainty goes through the whole-list path; both write the same bytes.
// While it streams, Run raises the garbage collector's target for the whole
// process (stream.TuneGC) unless GOGC or GOMEMLIMIT is set; a program that
// embeds it and cares can set either.
func Run(r io.Reader, w io.Writer) error {
	in, err := stream.Read(r, stream.Options{Mark: mayNameNamespace, MemoryLimit: spoolLimit})
	if err != nil {
		return fmt.Errorf("reading input: %w", err)
	}
	defer in.Close()
	if done, err := runStream(in, w); done {
		return err
	}
	data, err := in.Bytes()
	if err != nil {
		return fmt.Errorf("reading input: %w", err)
	}
	return runWhole(data, w)
}

// runWhole is the whole-list path: it parses the ResourceList into one node
// tree, transforms it with Process and writes it with kio.ByteWriter.
func runWhole(in []byte, w io.Writer) (err error) {
	doc, err := ParseResourceList(in)
	if err != nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v", p)
		}
	}()
	rl := &fn.ResourceList{FunctionConfig: functionConfig(doc)}
	if items := doc.Field("items"); items != nil && !items.Value.IsNil() {
		for _, it := range items.Value.YNode().Content {
			rl.Items = append(rl.Items, fn.MoveToKubeObject(yaml.NewRNode(it)))
		}
	}
	ok, err := Process(rl)
	if err != nil {
		return err
	}
	if err := write(w, rl); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	if !ok {
		return resultsError(rl.Results)
	}
	return nil
}

// functionConfig is the ResourceList's functionConfig, or an empty object.
func functionConfig(doc *yaml.RNode) *fn.KubeObject {
	if fc := doc.Field("functionConfig"); fc != nil && !fc.Value.IsNil() {
		return fn.MoveToKubeObject(fc.Value)
	}
	return fn.NewEmptyKubeObject()
}

// write encodes the ResourceList with its results.
func write(w io.Writer, rl *fn.ResourceList) error {
	items := make([]*yaml.RNode, len(rl.Items))
	for i, obj := range rl.Items {
		items[i] = obj.MoveToResourceNode()
	}
	bw := kio.ByteWriter{
		Writer: w, KeepReaderAnnotations: true,
		WrappingKind: kio.ResourceListKind, WrappingAPIVersion: kio.ResourceListAPIVersion,
	}
	if !rl.FunctionConfig.IsEmpty() {
		bw.FunctionConfig = rl.FunctionConfig.MoveToResourceNode()
	}
	if len(rl.Results) > 0 {
		b, err := yaml.Marshal(rl.Results)
		if err != nil {
			return err
		}
		if bw.Results, err = yaml.Parse(string(b)); err != nil {
			return err
		}
	}
	return bw.Write(items)
}

// ParseResourceList parses the input and returns its ResourceList mapping. It
// returns an error unless the input is one YAML document that is a
// ResourceList whose items are mappings and whose functionConfig, if any, is
// a mapping.
func ParseResourceList(in []byte) (*yaml.RNode, error) {
	if len(bytes.TrimSpace(in)) == 0 {
		return nil, errors.New("no input: expected a ResourceList on stdin")
	}
	dec := yaml.NewDecoder(bytes.NewReader(in))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("input is not valid YAML: %v", firstLine(err.Error()))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		return nil, errors.New("input has more than one YAML document: expected one ResourceList")
	}
	rn := yaml.NewRNode(&doc)
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		rn = yaml.NewRNode(doc.Content[0])
	}
	if rn.YNode().Kind != yaml.MappingNode {
		return nil, errors.New("input is not a ResourceList: expected a mapping with kind: ResourceList")
	}
	if rn.GetKind() != kio.ResourceListKind {
		return nil, fmt.Errorf("input is a %q, not a ResourceList: run the function through kpt or kustomize, or wrap the resources in a config.kubernetes.io/v1 ResourceList", rn.GetKind())
	}
	if items := rn.Field("items"); items != nil && !items.Value.IsNil() {
		if items.Value.YNode().Kind != yaml.SequenceNode {
			return nil, errors.New("ResourceList items must be a list")
		}
		for i, it := range items.Value.YNode().Content {
			if it.Kind != yaml.MappingNode {
				return nil, fmt.Errorf("ResourceList items[%d] is not a mapping", i)
			}
		}
	}
	if fc := rn.Field("functionConfig"); fc != nil && !fc.Value.IsNil() && fc.Value.YNode().Kind != yaml.MappingNode {
		return nil, errors.New("ResourceList functionConfig must be a mapping")
	}
	return rn, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

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
	errors         []string
}

func (p *pass) close() {
	p.items.Close()
	p.results.Close()
}

// itemOutput is what one item adds to the output.
type itemOutput struct {
	text, results []byte
	errors        []string
	outcome       Outcome
	annotated     bool
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
// collector's target is raised while it runs (see stream.TuneGC).
func runStream(in *stream.Input, w io.Writer) (done bool, err error) {
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
	if err == errFailed {
		out, err = s.pass(true)
	}
	if err != nil {
		return false, nil
	}
	defer out.close()
	closing := fn.Results{{Message: out.summary.Message(s.action), Severity: fn.Info}}
	if cfgErr != nil {
		closing = ConfigResults(cfgErr)
		out.errors = errorLines(closing)
	}
	text, err := stream.ResultsText(closing)
	if err != nil {
		return false, nil
	}
	out.results.Write(text)
	if err := out.results.Flush(); err != nil {
		return false, nil
	}
	done = true
	list := stream.List{Items: out.items, Count: l.Len(), FunctionConfig: fcText, Results: out.results}
	if _, err := list.WriteTo(w); err != nil {
		return true, fmt.Errorf("writing output: %w", err)
	}
	if len(out.errors) > 0 {
		return true, &ResultsError{Errors: out.errors}
	}
	return true, nil
}

// splitAgrees reports whether the parser finds the skeleton's items key, and
// the key after it, on the lines where the splitter put them: then the
// items the splitter cut out are exactly the items of the list.
func splitAgrees(doc *yaml.RNode, l *stream.Layout) bool {
	c := doc.YNode().Content
	for i := 0; i+1 < len(c); i += 2 {
		if c[i].Value != "items" {
			continue
		}
		key, value := c[i], c[i+1]
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
		text, err := s.in.Item(marked[i])
		if err != nil {
			return nil, err
		}
		return stream.ParseItem(text)
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
		p.items.Write(o.text)
		p.results.Write(o.results)
		p.summary.AddItem(ItemResult{Outcome: o.outcome, Annotated: o.annotated})
		p.errors = append(p.errors, o.errors...)
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
	text, err := s.in.Item(i)
	if err != nil {
		return itemOutput{}, err
	}
	item, err := stream.ParseItem(text)
	if err != nil {
		return itemOutput{}, err
	}
	if s.cfgErr != nil {
		text, err := stream.ItemText(item)
		return itemOutput{text: text}, err
	}
	r := s.t.Item(item)
	if r.Outcome == Failed && !failed {
		return itemOutput{outcome: Failed}, nil
	}
	if failed && r.Outcome != Failed {
		r.Log.Changes = nil
	}
	results := itemResults(item, r, s.action)
	out := itemOutput{outcome: r.Outcome, annotated: r.Annotated, errors: errorLines(results)}
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
