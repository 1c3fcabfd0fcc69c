package driver

import (
	"bytes"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/stream"
)

// untouched reports whether the run need not parse a plain stream
// document's body: stream.Scan reads it (its apiVersion and kind, no
// duplicate key, a metadata mapping), the engine neither edits, reads nor
// counts an item of that kind (see transformer.Engine.Untouched), and the
// document holds nothing else the run reads (the kpt package-path
// annotation). Such a document is written as it came, and costs a scan
// rather than a node tree, an edit and a check.
func untouched(e *transformer.Engine, body []byte) bool {
	if bytes.Contains(body, []byte(transformer.PackagePathAnnotation)) {
		return false
	}
	s, ok := stream.Scan(body)
	return ok && e.Untouched(s.APIVersion, s.Kind)
}
