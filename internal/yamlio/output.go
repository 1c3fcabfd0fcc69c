package yamlio

import (
	"io"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/emit"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/spool"
)

// MemoryLimit is how much of the input, and of each part of the output,
// a streaming driver keeps in memory by default before it moves to a
// temporary file (see package spool).
const MemoryLimit = spool.MemoryLimit

// Output is what a streaming driver writes, held until its run is done:
// the entries of a ResourceList's items and of its results, or a plain
// stream's documents, each in memory up to a limit and in an unlinked
// temporary file beyond it. Nothing reaches the driver's writer before
// WriteList or WriteTo, so a failed run can drop what it wrote (Reset).
// A write that cannot move to the temporary file fails, and so do the
// writes after it.
type Output struct {
	limit          int64
	items, results *spool.Spool
}

// NewOutput is an empty Output that holds up to limit bytes of its items,
// and as many of its results, in memory.
func NewOutput(limit int64) *Output {
	return &Output{limit: limit, items: spool.New(limit), results: spool.New(limit)}
}

// Write appends an item's entry (see emit.ItemText), or a document's text.
func (o *Output) Write(p []byte) (int, error) { return o.items.Write(p) }

// WriteResults appends the entries of results (see emit.ResultsText).
func (o *Output) WriteResults(p []byte) (int, error) { return o.results.Write(p) }

// Flush writes what the items and results hold in buffers to their
// temporary files; it returns the first error any write met.
func (o *Output) Flush() error {
	if err := o.items.Flush(); err != nil {
		return err
	}
	return o.results.Flush()
}

// Reset drops everything written, for a run that writes its items again.
func (o *Output) Reset() {
	o.Close()
	o.items, o.results = spool.New(o.limit), spool.New(o.limit)
}

// WriteTo writes what Write took, as it took it: a plain stream.
func (o *Output) WriteTo(w io.Writer) (int64, error) { return o.items.WriteTo(w) }

// WriteList writes the ResourceList around the entries, as kio.ByteWriter
// would (see emit.List): count items, functionConfig (from
// emit.FunctionConfigText, or nil) and the results.
func (o *Output) WriteList(w io.Writer, count int, functionConfig []byte) (int64, error) {
	return emit.List{Items: o.items, Count: count, FunctionConfig: functionConfig, Results: o.results}.WriteTo(w)
}

// Close removes the temporary files.
func (o *Output) Close() {
	o.items.Close()
	o.results.Close()
}
