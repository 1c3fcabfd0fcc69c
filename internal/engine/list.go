package engine

import (
	"github.com/kptdev/krm-functions-sdk/go/fn"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/item"
)

// writeEntries sets what the run writes for each entry of a List and
// returns their results, in order. An entry's results name the entry; they
// carry the List's file, as the entry has none of its own.
func (e *Engine) writeEntries(ed *item.Edit) fn.Results {
	if !ed.List {
		return nil
	}
	_, file := item.Ref(ed.Input)
	var out fn.Results
	for i := range ed.Entries {
		e.write(&ed.Entries[i])
		for _, r := range ed.Entries[i].Written.Results {
			if r.File == nil {
				r.File = file
			}
			out = append(out, r)
		}
	}
	return out
}
