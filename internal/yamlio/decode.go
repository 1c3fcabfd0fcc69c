package yamlio

import (
	"errors"
	"io"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// ErrMoreDocuments is DecodeOne's error for text that holds a second YAML
// document.
var ErrMoreDocuments = errors.New("more than one YAML document")

// DecodeOne parses text that must hold one YAML document. It returns io.EOF
// for text with no document (nothing but comments and blank lines),
// ErrMoreDocuments when another document follows, and otherwise the
// parser's error cut to its first line, so that it fits a one-line message.
func DecodeOne(r io.Reader) (*yaml.Node, error) {
	dec := yaml.NewDecoder(r)
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, errors.New(firstLine(err.Error()))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, ErrMoreDocuments
	}
	return &doc, nil
}

// firstLine is the first line of s.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
