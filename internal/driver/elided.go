package driver

import (
	"bytes"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/elide"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/scan"
)

// elideFrom is the size of an item's text from which the streaming path
// parses a workload without the container fields the run does not read
// (see elide): below it, the node tree it would spare is small.
var elideFrom = 256 << 10

// editElided edits item i of a YAML list, whose text is given, with the
// container fields the run does not read elided: a workload of at least
// elideFrom bytes that scan.ScanItem finds as the writer writes it. It
// writes what the item's own text gives, byte for byte. It reports false
// when the item is not one to elide, or when anything on the way fails
// (a parse, the encoding, a placeholder not found once): the caller then
// edits the item's own text, which also gives the right error.
func editElided(in *yamlio.Input, e *engine.Engine, i int, text []byte) (encoded, bool) {
	it, ok := elided(in, e, text)
	if !ok || in.Layout.Joined(i) {
		return encoded{}, false
	}
	item, err := in.ParseItemText(i, it.Text)
	if err != nil || checkItem(item.YNode()) != nil {
		return encoded{}, false
	}
	enc, err := encode(e.Edit(item))
	if err != nil {
		return encoded{}, false
	}
	if enc.text, ok = it.Restore(enc.text); !ok {
		return encoded{}, false
	}
	return enc, true
}

// elided is the item's text with the container fields the run does not
// read elided, or false when it is not an item to elide.
func elided(in *yamlio.Input, e *engine.Engine, text []byte) (*elide.Item, bool) {
	if in.Layout.JSON || len(text) < elideFrom || !elidable(text) {
		return nil, false
	}
	s, ok := scan.ScanItem(text)
	if !ok {
		return nil, false
	}
	path, ok := e.PodSpecPath(s.APIVersion, s.Kind)
	if !ok {
		return nil, false
	}
	return elide.Reduce(text, path, e.MayBeSidecar)
}

// elidable reports whether an item's text keeps to the shapes the elision
// is held to (see TestElisionChangesNothing): ASCII, no escape, no block
// scalar with an indentation indicator, no sequence entry starting with
// "-", no line starting with "#" after the first key. ScanItem reads these
// too, for an item copied as it came.
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
