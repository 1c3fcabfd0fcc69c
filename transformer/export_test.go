package transformer

import (
	"fmt"
	"io"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/stream"
)

// RunWholeList runs the whole-list path only.
func RunWholeList(r io.Reader, w io.Writer) error {
	in, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("reading input: %w", err)
	}
	return runWhole(in, w, new([]Diagnostic))
}

// RunStreamOnly runs the streaming path only. It reports streamed=false,
// with why, when the path declines the input and would hand it to the
// whole-list path.
func RunStreamOnly(r io.Reader, w io.Writer) (streamed bool, why string, err error) {
	in, err := stream.Read(r, stream.Options{Mark: mayNameNamespace, MemoryLimit: spoolLimit})
	if err != nil {
		return false, "", fmt.Errorf("reading input: %w", err)
	}
	defer in.Close()
	if in.Layout == nil {
		return false, in.Declined, nil
	}
	done, err := runStream(in, w, new([]Diagnostic))
	if !done {
		return false, "the streaming path declined a split input", nil
	}
	return true, "", err
}

// SetSpoolLimit sets how much the streaming path keeps in memory before it
// moves to temporary files, and returns a function that restores it.
func SetSpoolLimit(limit int64) (restore func()) {
	old := spoolLimit
	spoolLimit = limit
	return func() { spoolLimit = old }
}
