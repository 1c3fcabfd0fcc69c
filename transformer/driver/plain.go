package driver

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/stream"
)

// PlainStream runs the function on a plain multi-document YAML stream, the
// way ResourceList runs it on a ResourceList: it reads r to the end, edits
// every document with the config (cfgNode: a SidecarLifecycle or ConfigMap
// node, nil for the defaults) and writes the stream to w. Separators,
// comments and documents the function does not change are written as they
// came; a changed document is re-encoded with its own list indentation and
// line ends. With any error result nothing is written and the error is a
// *report.ResultsError; with action validate the input is written
// unchanged when no workload needs a change.
//
// The documents are parsed, edited and encoded on every core, and the
// stream and the output are spooled like the ResourceList's, so memory is
// bounded by the documents in flight.
func PlainStream(cfgNode *yaml.RNode, r io.Reader, w io.Writer) (Report, error) {
	e := transformer.Start(cfgNode)
	if e.ConfigErr() != nil {
		return newReport(e.Close(), false)
	}
	docs, err := stream.ReadDocuments(r, stream.Options{Mark: mayNameNamespace, MemoryLimit: spoolLimit})
	if err != nil {
		return Report{}, fmt.Errorf("reading input: %w", err)
	}
	defer docs.Close()
	noteNamespaces(e, docs.Marked, func(i int) (*yaml.RNode, error) {
		body, err := docs.Body(i)
		if err != nil {
			return nil, err
		}
		doc, err := parseDocument(i, body)
		if err != nil || doc == nil {
			return nil, err
		}
		return yaml.NewRNode(doc.Content[0]), nil
	})
	out, problems, err := plainPass(docs, e)
	if errors.Is(err, transformer.ErrRestart) {
		out, problems, err = plainPass(docs, e)
	}
	if err != nil {
		return Report{}, err
	}
	defer out.Close()
	rep, err := newReport(append(problems, e.Close()...), e.Shown())
	if err != nil {
		return rep, err
	}
	if _, err := out.WriteTo(w); err != nil {
		return rep, fmt.Errorf("writing output: %w", err)
	}
	return rep, nil
}

// plainPass edits and encodes every document in order, into a spool. It
// stops with transformer.ErrRestart when the engine meets the run's first
// failed item, and at the first document that is not valid YAML.
func plainPass(docs *stream.Documents, e *transformer.Engine) (*stream.Spool, fn.Results, error) {
	out := stream.NewSpool(spoolLimit)
	var problems fn.Results
	err := stream.Map(docs.Len(), 64, func(i int) (plainDocument, error) {
		return document(docs, e, i)
	}, func(_ int, d plainDocument) error {
		if d.edit != nil {
			written, err := e.Add(*d.edit)
			if err != nil {
				return err
			}
			problems = append(problems, report.Problems(written.Results)...)
		}
		_, err := out.Write(d.text)
		return err
	})
	if err == nil {
		err = out.Flush()
	}
	if err != nil {
		out.Close()
		return nil, nil, err
	}
	return out, problems, nil
}

// plainDocument is one document as the plain stream writes it: its text,
// and the engine's edit when it is a resource.
type plainDocument struct {
	text []byte
	edit *transformer.Edit
}

// document edits document i and returns its separator and its text: the
// input text when nothing changed.
func document(docs *stream.Documents, e *transformer.Engine, i int) (plainDocument, error) {
	sep, err := docs.Separator(i)
	if err != nil {
		return plainDocument{}, fmt.Errorf("reading input: %w", err)
	}
	body, err := docs.Body(i)
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
	ed := e.Edit(item)
	out.edit = &ed
	if node := ed.Written().Node; node != item {
		text, err := encodeDocument(doc, node, body)
		if err != nil {
			return plainDocument{}, fmt.Errorf("document %d: encoding: %w", i+1, err)
		}
		out.text = append(sep, text...)
	}
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
