package transformer

import (
	"bytes"
	"fmt"
	"io"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/stream"
)

// RunPlain edits a plain multi-document YAML stream, the way Run edits a
// ResourceList: it reads r to the end, edits every document with the
// config, and writes the stream to w. Separators, comments and documents the
// function does not change are written as they came; a changed document is
// re-encoded with its own list indentation and line ends. Every warning and
// error result is passed to report as one line, in order. With any error result nothing
// is written and a *ResultsError is returned; with action validate the
// input is written unchanged when no workload needs a change.
//
// The documents are parsed, edited and encoded on every core, and the
// stream and the output are spooled like the ResourceList's, so memory is
// bounded by the documents in flight.
func RunPlain(cfgNode *yaml.RNode, r io.Reader, w io.Writer, report func(Diagnostic)) error {
	cfg, err := config.Load(cfgNode)
	if err != nil {
		diags := Diagnostics(ConfigResults(err))
		for _, d := range diags {
			report(d)
		}
		return resultsError(diags)
	}
	docs, err := stream.ReadDocuments(r, stream.Options{Mark: mayNameNamespace, MemoryLimit: spoolLimit})
	if err != nil {
		return fmt.Errorf("reading input: %w", err)
	}
	defer docs.Close()
	p := &plainRun{docs: docs, t: New(cfg), action: cfg.Spec.Action}
	if err := p.noteNamespaces(); err != nil {
		return err
	}
	out := stream.NewSpool(spoolLimit)
	defer out.Close()
	var diags []Diagnostic
	var lb budget.Collector
	failed := false
	err = stream.Map(docs.Len(), 64, p.document, func(_ int, d plainDocument) error {
		for _, diag := range d.diagnostics {
			report(diag)
		}
		diags = append(diags, d.diagnostics...)
		out.Write(d.text)
		lb.Add(d.fact)
		failed = failed || d.failed
		return nil
	})
	if err != nil {
		return err
	}
	if !failed {
		for _, diag := range Diagnostics(lb.Results(p.action)) {
			report(diag)
			diags = append(diags, diag)
		}
	}
	if err := resultsError(diags); err != nil {
		return err
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	if _, err := out.WriteTo(w); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

// plainRun is one run over a plain stream.
type plainRun struct {
	docs   *stream.Documents
	t      *Transformer
	action config.Action
}

// plainDocument is what one document adds to the output.
type plainDocument struct {
	text        []byte
	diagnostics []Diagnostic
	fact        budget.Fact
	failed      bool
}

// noteNamespaces reads the documents that may be Namespaces first, so that a
// Namespace annotated to skip its workloads counts wherever it stands.
func (p *plainRun) noteNamespaces() error {
	for _, i := range p.docs.Marked {
		body, err := p.docs.Body(i)
		if err != nil {
			return fmt.Errorf("reading input: %w", err)
		}
		if doc, err := parseDocument(i, body); err == nil && doc != nil {
			p.t.NoteNamespace(yaml.NewRNode(doc.Content[0]))
		}
	}
	return nil
}

// document edits document i and returns its separator and its text: the
// input text when nothing changed.
func (p *plainRun) document(i int) (plainDocument, error) {
	sep, err := p.docs.Separator(i)
	if err != nil {
		return plainDocument{}, fmt.Errorf("reading input: %w", err)
	}
	body, err := p.docs.Body(i)
	if err != nil {
		return plainDocument{}, fmt.Errorf("reading input: %w", err)
	}
	doc, err := parseDocument(i, body)
	if err != nil {
		return plainDocument{}, err
	}
	out := plainDocument{text: append(sep, body...)}
	if doc == nil {
		return out, nil
	}
	item := yaml.NewRNode(doc.Content[0])
	r := p.t.Item(item)
	out.diagnostics = Diagnostics(itemResults(item, r, p.action))
	out.fact, out.failed = p.t.Fact(r.Node, r.Outcome), r.Outcome == Failed
	if r.Node == item || r.Outcome == Failed || p.action == config.ActionValidate {
		return out, nil
	}
	text, err := encodeDocument(doc, r.Node, body)
	if err != nil {
		return plainDocument{}, fmt.Errorf("document %d: encoding: %w", i+1, err)
	}
	out.text = append(sep, text...)
	return out, nil
}

// parseDocument parses one document's text. It returns nil for a document
// with nothing but comments and blank lines, and an error for text that is
// not one YAML mapping.
func parseDocument(i int, body []byte) (*yaml.Node, error) {
	doc, err := stream.DecodeOne(bytes.NewReader(body))
	switch {
	case err == io.EOF:
		return nil, nil
	case err == stream.ErrMoreDocuments:
		return nil, fmt.Errorf("document %d: a document marker the splitter did not see; put \"---\" on a line of its own", i+1)
	case err != nil:
		return nil, fmt.Errorf("document %d is not valid YAML: %s", i+1, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, nil
	}
	if doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("document %d is not a mapping: expected Kubernetes resources", i+1)
	}
	return doc, nil
}

// encodeDocument encodes the edited mapping in place of the document's
// content, with the document's comments, its list indentation and its line
// ends.
func encodeDocument(doc *yaml.Node, edited *yaml.RNode, original []byte) ([]byte, error) {
	out := *doc
	out.Content = []*yaml.Node{edited.YNode()}
	var buf bytes.Buffer
	style := yaml.SequenceIndentStyle(yaml.DeriveSeqIndentStyle(string(original)))
	enc := yaml.NewEncoderWithOptions(&buf, &yaml.EncoderOptions{SeqIndent: style})
	if err := enc.Encode(&out); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	text := buf.Bytes()
	if bytes.Contains(original, []byte("\r\n")) {
		text = bytes.ReplaceAll(text, []byte("\n"), []byte("\r\n"))
	}
	return text, nil
}
