package yamlio

import (
	"bytes"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/elide"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/scan"
)

// ScanDocument reads a plain stream document's body (see Documents.Body)
// without a parse: its top-level apiVersion and kind, when it is in the
// subset of YAML the scan reads as the parser does and holds nothing
// every item is checked for (see scan.Scan). A driver writes a document
// it need not read as it came.
func ScanDocument(body []byte) (scan.Scanned, bool) {
	return scan.Scan(body)
}

// ScanItem reads the text of an item of the list (see Input.Item) without
// a parse: its top-level apiVersion and kind, when the text is in YAML and
// already what the writer writes for the item it parses to (see
// scan.ScanItem). A driver may write such text in the item's place.
func (in *Input) ScanItem(text []byte) (scan.Scanned, bool) {
	if in.Layout != nil && in.Layout.JSON {
		return scan.Scanned{}, false
	}
	return scan.ScanItem(text)
}

// Elide is the text of an item of the list with the container fields the
// run does not read elided (see package elide), for the driver to parse,
// edit and encode, then Restore: podSpec gives the pod spec path of the
// item's apiVersion and kind, false for a kind with none, and sidecar
// reports the containers the run may take for a sidecar, which are kept.
// It reports false for an item that is not one to elide: in JSON, not
// what the writer writes (ScanItem), not a workload, or outside the
// shapes the elision is held to (see elidable).
func (in *Input) Elide(text []byte, podSpec func(apiVersion, kind string) ([]string, bool), sidecar func(name, image string) bool) (*elide.Item, bool) {
	if in.Layout != nil && in.Layout.JSON || !elidable(text) {
		return nil, false
	}
	s, ok := scan.ScanItem(text)
	if !ok {
		return nil, false
	}
	path, ok := podSpec(s.APIVersion, s.Kind)
	if !ok {
		return nil, false
	}
	return elide.Reduce(text, path, sidecar)
}

// elidable reports whether an item's text keeps to the shapes the elision
// is held to (see the driver's TestElisionChangesNothing): ASCII, no
// escape, no block scalar with an indentation indicator, no sequence entry
// starting with "-", no line starting with "#" after the first key.
// ScanItem reads these too, for an item copied as it came.
func elidable(text []byte) bool {
	for _, c := range text {
		if c >= 0x80 || c == '\\' {
			return false
		}
	}
	return !bytes.Contains(text, []byte("- -")) && !bytes.Contains(text, []byte("|2")) && !commentAfterKey(text)
}

// commentAfterKey reports whether a line of an item's text after its first
// key starts with "#": a comment, or a line of a block scalar.
func commentAfterKey(text []byte) bool {
	key := false
	for len(text) > 0 {
		line, rest, _ := bytes.Cut(text, []byte("\n"))
		content := bytes.TrimLeft(bytes.TrimPrefix(line, []byte("- ")), " ")
		switch {
		case len(content) > 0 && content[0] == '#':
			if key {
				return true
			}
		case len(content) > 0:
			key = true
		}
		text = rest
	}
	return false
}
