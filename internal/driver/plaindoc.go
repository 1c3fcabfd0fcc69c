package driver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
)

// parsedDocument is one document of a plain stream: its text, in the three
// pieces yamlio.Documents cuts it into, and its content parsed.
type parsedDocument struct {
	head, body, tail []byte
	// line is the stream line the head starts on.
	line int
	// doc is the parsed document, nil when it holds no content.
	doc *yaml.Node
}

// readDocument reads and parses document i. It returns a *yamlio.LineError
// for content that is not one YAML mapping.
func readDocument(docs *yamlio.Documents, i int) (parsedDocument, error) {
	d, err := readText(docs, i)
	if err != nil {
		return parsedDocument{}, err
	}
	d.doc, err = d.parse()
	return d, err
}

// readText reads the pieces of document i, without parsing it.
func readText(docs *yamlio.Documents, i int) (parsedDocument, error) {
	d := parsedDocument{line: docs.Line(i)}
	var err error
	if d.head, err = docs.Head(i); err == nil {
		if d.body, err = docs.Body(i); err == nil {
			d.tail, err = docs.Tail(i)
		}
	}
	if err != nil {
		return parsedDocument{}, fmt.Errorf("reading input: %w", err)
	}
	return d, nil
}

// parse parses the document's content after the directives and the marker
// of its head, so that its tags and its lines are as in the stream. It
// returns nil for a document with nothing but comments and blank lines, or
// a null.
func (d parsedDocument) parse() (*yaml.Node, error) {
	doc, err := yamlio.DecodeOne(io.MultiReader(bytes.NewReader(yamlio.ParseHead(d.head)), bytes.NewReader(d.body)))
	switch {
	case err == io.EOF:
		return nil, nil
	case err == yamlio.ErrMoreDocuments:
		return nil, &yamlio.LineError{Line: d.line, Err: errors.New("this document holds another one the splitter did not see: put \"---\" on a line of its own between them")}
	case err != nil:
		return nil, d.yamlError(err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.ShortTag() == yaml.NodeTagNull {
		return nil, nil // a "---" with nothing after it, or a null: nothing to edit
	}
	if root.Kind != yaml.MappingNode {
		return nil, &yamlio.LineError{Line: d.line + root.Line - 1, Err: fmt.Errorf("expected a Kubernetes resource (a mapping), found %s", report.Found(root))}
	}
	if err := checkItem(root); err != nil {
		return nil, &yamlio.LineError{Line: d.line + root.Line - 1, Err: errors.New(strings.TrimPrefix(err.Error(), "."))}
	}
	return doc, nil
}

// yamlLine finds "line N" in the parser's messages.
var yamlLine = regexp.MustCompile(`\bline ([0-9]+)`)

// yamlError is the parser's error with its lines counted in the stream,
// at the line it names, else at the document's first line.
func (d parsedDocument) yamlError(err error) error {
	last := lineCount(string(yamlio.ParseHead(d.head)) + string(d.body))
	n, msg := yamlProblem(strings.TrimPrefix(err.Error(), "yaml: "), last)
	line := d.line
	if n > 0 {
		line = d.line + n - 1
	}
	msg = yamlLine.ReplaceAllStringFunc(msg, func(s string) string {
		n, _ := strconv.Atoi(s[len("line "):])
		return "line " + strconv.Itoa(d.line+n-1)
	})
	return &yamlio.LineError{Line: line, Err: errors.New("not valid YAML: " + msg)}
}

// contentLine is the stream line the document's content starts on.
func (d parsedDocument) contentLine() int { return d.line + d.doc.Content[0].Line - 1 }

// text is the document as it came, in pieces.
func (d parsedDocument) text() [][]byte { return d.textWith(d.body) }

// textWith is the document with body in place of its content.
func (d parsedDocument) textWith(body []byte) [][]byte { return [][]byte{d.head, body, d.tail} }
