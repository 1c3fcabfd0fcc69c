package driver

import (
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
)

// elideFrom is the size of an item's text from which the streaming path
// parses a workload without the container fields the run does not read
// (see yamlio.Input.Elide): below it, the node tree it would spare is
// small.
var elideFrom = 256 << 10

// editElided edits item i of a YAML list, whose text is given, with the
// container fields the run does not read elided (see yamlio.Input.Elide):
// a workload of at least elideFrom bytes, as the writer writes it. It
// writes what the item's own text gives, byte for byte. It reports false
// when the item is not one to elide, or when anything on the way fails
// (a parse, the encoding, a placeholder not found once): the caller then
// edits the item's own text, which also gives the right error.
func editElided(in *yamlio.Input, e *engine.Engine, i int, text []byte) (encoded, bool) {
	if len(text) < elideFrom || in.Layout.Joined(i) {
		return encoded{}, false
	}
	it, ok := in.Elide(text, e.PodSpecPath, e.MayBeSidecar)
	if !ok {
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
