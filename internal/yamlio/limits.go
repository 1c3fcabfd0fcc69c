package yamlio

import (
	"errors"
	"fmt"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/spool"
)

// DefaultMaxDocumentSize is the size above which a document of a plain
// stream, an item of a ResourceList, or a ResourceList the splitter does not
// take, is refused before it is parsed: parsing costs several times the
// text in memory.
const DefaultMaxDocumentSize = 256 << 20

// maxDocumentSize is the limit the options set: DefaultMaxDocumentSize for
// 0, none for a negative value.
func (o Options) maxDocumentSize() int64 {
	switch {
	case o.MaxDocumentSize == 0:
		return DefaultMaxDocumentSize
	case o.MaxDocumentSize < 0:
		return 0
	}
	return o.MaxDocumentSize
}

// TooLargeError is a document or an item larger than the limit.
type TooLargeError struct {
	// What is what is too large: "the document", "ResourceList items[3]".
	What string
	// Limit is the limit in bytes.
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s, the maximum document size; it was not read further", e.What, spool.FormatSize(e.Limit))
}

// LineError is an error about a place in the input.
type LineError struct {
	// Line is the line of the input, from 1.
	Line int
	// Err is what is wrong there.
	Err error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }

// longLineError is eachLine's error for a line longer than its limit.
type longLineError struct {
	// start is the line's first bytes.
	start []byte
}

func (e *longLineError) Error() string { return "a line longer than the maximum document size" }

// asLongLine returns the start of the line of a *longLineError.
func asLongLine(err error) (start []byte, ok bool) {
	var l *longLineError
	if errors.As(err, &l) {
		return l.start, true
	}
	return nil, false
}
