package driver

import (
	"bytes"
	"fmt"
	"io"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/elide"
)

// Run is ResourceList without the report.
func Run(r io.Reader, w io.Writer) error {
	_, err := ResourceList(r, w)
	return err
}

// RunWholeList runs the whole-list path only.
func RunWholeList(r io.Reader, w io.Writer) (Report, error) {
	in, err := io.ReadAll(r)
	if err != nil {
		return Report{}, fmt.Errorf("reading input: %w", err)
	}
	return whole(in, w, Options{})
}

// RunStreamOnly runs the streaming path only. It reports streamed=false,
// with why, when the path declines the input and would hand it to the
// whole-list path.
func RunStreamOnly(r io.Reader, w io.Writer) (taken bool, why string, rep Report, err error) {
	in, err := yamlio.Read(r, yamlio.Options{Mark: mayNameNoted, MemoryLimit: spoolLimit})
	if err != nil {
		return false, "", Report{}, fmt.Errorf("reading input: %w", err)
	}
	defer in.Close()
	rep, err = streamed(in, w, Options{})
	if d, ok := err.(*declined); ok {
		return false, d.why, Report{}, nil
	}
	return true, "", rep, err
}

// SetSpoolLimit sets how much the streaming paths keep in memory before
// they move to temporary files, and returns a function that restores it.
func SetSpoolLimit(limit int64) (restore func()) {
	old := spoolLimit
	spoolLimit = limit
	return func() { spoolLimit = old }
}

// SetElideFrom sets the item size from which the streaming path elides
// the container fields the run does not read, and returns a function that
// restores it.
func SetElideFrom(size int) (restore func()) {
	old := elideFrom
	elideFrom = size
	return func() { elideFrom = old }
}

// ElidedItems is the number of items of a ResourceList whose text the
// streaming path reduces before it parses it (see elided); 0 when it does
// not take the list.
func ElidedItems(rl []byte) (int, error) {
	in, err := yamlio.Read(bytes.NewReader(rl), yamlio.Options{Mark: mayNameNoted, MemoryLimit: spoolLimit})
	if err != nil {
		return 0, err
	}
	defer in.Close()
	if in.Layout == nil {
		return 0, nil
	}
	doc, err := ParseResourceList(in.Layout.Skeleton)
	if err != nil {
		return 0, nil
	}
	e := engine.Start(configNode(functionConfig(doc)))
	n := 0
	for i := 0; i < in.Layout.Len(); i++ {
		text, err := in.Item(i)
		if err != nil {
			return 0, err
		}
		if _, ok := elided(in, e, text); ok {
			n++
		}
	}
	return n, nil
}

// elided is the item's text as editElided elides it (see
// yamlio.Input.Elide), or false when it is not an item to elide: smaller
// than elideFrom, or one Elide declines.
func elided(in *yamlio.Input, e *engine.Engine, text []byte) (*elide.Item, bool) {
	if len(text) < elideFrom {
		return nil, false
	}
	return in.Elide(text, e.PodSpecPath, e.MayBeSidecar)
}
