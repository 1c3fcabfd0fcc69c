package driver

import (
	"bytes"
	"fmt"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
)

// untouched reports whether the run need not parse a plain stream
// document's body: yamlio.ScanDocument reads it (its apiVersion and kind, no
// duplicate key, a metadata mapping), the engine neither edits, reads nor
// counts an item of that kind (see engine.Engine.Untouched), and the
// document holds nothing else the run reads (the kpt package-path
// annotation). Such a document is written as it came, and costs a scan
// rather than a node tree, an edit and a check.
func untouched(e *engine.Engine, body []byte) bool {
	if bytes.Contains(body, []byte(engine.PackagePathAnnotation)) {
		return false
	}
	s, ok := yamlio.ScanDocument(body)
	return ok && e.Untouched(s.APIVersion, s.Kind)
}

// untouchedItem reads item i of a YAML ResourceList and reports whether the
// streaming path may write its text in its place without parsing it: the
// run does not read it (as untouched says for a plain document), and
// Input.ScanItem finds it already as the writer writes it. An item joined to
// its neighbours (see yamlio.Layout.Joined) is always parsed: its own text
// does not say where the parser attaches its comments.
func untouchedItem(in *yamlio.Input, e *engine.Engine, i int) ([]byte, bool, error) {
	if in.Layout.JSON {
		return nil, false, nil
	}
	text, err := in.Item(i)
	if err != nil {
		return nil, false, fmt.Errorf("reading input: %w", err)
	}
	if in.Layout.Joined(i) || bytes.Contains(text, []byte(engine.PackagePathAnnotation)) || e.MayRead(itemKind(text)) {
		return text, false, nil
	}
	s, ok := in.ScanItem(text)
	return text, ok && e.Untouched(s.APIVersion, s.Kind), nil
}

// itemKind is the kind a quick look finds in an item's text: the word
// after the first "kind: " at the item's top level, as ScanItem reads it,
// or "". Only ScanItem says what the kind is; itemKind spares the scan of
// a workload.
func itemKind(text []byte) string {
	i := 0
	if !bytes.HasPrefix(text, []byte("- kind: ")) {
		if i = bytes.Index(text, []byte("\n  kind: ")); i < 0 {
			return ""
		}
		i++
	}
	word := text[i+len("- kind: "):]
	if end := bytes.IndexAny(word, " \n"); end >= 0 {
		word = word[:end]
	}
	return string(word)
}
