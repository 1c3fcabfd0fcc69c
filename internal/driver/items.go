package driver

import (
	"fmt"
	"io"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
)

// PlainItems reads a plain multi-document YAML stream the way PlainStream
// does and returns its resources, in order, for a caller that reads them
// without writing the stream (--explain): every document but those with
// nothing but comments. A document that is not valid YAML, or not a
// mapping, is a one-line error that names it, as in PlainStream.
func PlainItems(r io.Reader) ([]*yaml.RNode, error) {
	docs, err := yamlio.ReadDocuments(yamlio.Text(r), yamlio.Options{MemoryLimit: spoolLimit})
	if err != nil {
		return nil, fmt.Errorf("reading input: %w", err)
	}
	defer docs.Close()
	var items []*yaml.RNode
	for i := range docs.Len() {
		d, err := readDocument(docs, i)
		if err != nil {
			return nil, err
		}
		if d.doc != nil {
			items = append(items, yaml.NewRNode(d.doc.Content[0]))
		}
	}
	return items, nil
}
