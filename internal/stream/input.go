// Package stream splits the function's input, textually: a ResourceList at
// the top-level entries of its items list, and a plain stream into its
// documents, so that the items can be parsed, edited and encoded one by one
// on every core while memory stays bounded by the items in flight (package
// yamltext writes each piece of the output as kio.ByteWriter does; package
// scan spares the parse of items the run does not read).
//
// The splitter accepts only layouts it understands with certainty and says
// so otherwise: the caller then runs the whole-list path. In YAML that is
// the layout kustomize and kpt write, and the usual hand-written variants: a
// block mapping at column 0 with a plain "items:" key, a non-empty block
// sequence of items all at one column, LF or CRLF line breaks, a byte order
// mark and a "---" before the first key, blank lines and comments between
// the items and after them; no tabs, lone CRs or other control characters,
// no other document marker, no comment at the end of an item's own lines
// but after an item that starts with a plain key and before an item or a
// key (see lineSplitter). In JSON
// it is an object with one "items" array of objects and nothing but JSON in
// it (see jsonSplitter). The caller also checks what the splitter cannot
// see: that the parser finds the items key where the splitter did
// (Layout.ItemsLine) and that each item parses alone (Input.ParseItem), so
// an anchor used across items, a quoted scalar or flow collection spanning
// the cut, or any other surprise also ends in the whole-list path.
package stream

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/spool"
)

// Input is a ResourceList read in full, to memory, to a temporary file, or
// left in the regular file it came from, with its layout when the splitter
// understood it.
type Input struct {
	data  io.ReaderAt
	size  int64
	spool *spool.Spool

	// Layout is the input split at its items, or nil when the splitter
	// declined; Declined then says why.
	Layout *Layout
	// Declined says why the input was not split.
	Declined string
}

// Layout is a ResourceList split at its top-level items.
type Layout struct {
	// Skeleton is the ResourceList with every item removed: its items are
	// "items: []" on a line of their own in YAML, "[]" in JSON.
	Skeleton []byte
	// JSON is set when the input is JSON.
	JSON bool
	// ItemsLine is the 1-based line of "items: []" in Skeleton (YAML only).
	ItemsLine int
	// NextKeyLine is the line in Skeleton of the top-level key after items,
	// or 0 when items is the last key (YAML only).
	NextKeyLine int
	// Marked lists, in order, the items for which Options.Mark returned
	// true.
	Marked []int

	items []span
	// dash is the column of the items' "-" (YAML only).
	dash int
	// follow says, for each item whose last line is a comment (or a line of
	// a block scalar that starts with "#"), what follows it in the list: the
	// parser attaches such a comment to another key at the end of the input
	// than before an item or a key, so the item is parsed before a stand-in
	// of what follows it (see parseEntry). An item not in it is parsed alone.
	follow map[int]follower
}

// follower is what follows an item in the list.
type follower int

const (
	// followEnd: the end of the input, or of the items' text.
	followEnd follower = iota
	// followItem: an item. How it starts does not matter: the parser
	// attaches the comment at the end of an item before an item "- x: 0",
	// "- # c", "- {x: 0}", "-" or "- - x" and before a top-level key alike.
	followItem
	// followKey: a top-level key.
	followKey
)

// span is where an item is in the input.
type span struct{ start, end int64 }

// Len is the number of items.
func (l *Layout) Len() int { return len(l.items) }

// Options tune Read.
type Options struct {
	// Mark, when set, is called on every line of every YAML item, and on
	// every string of every JSON item (with its quotes and escapes); items
	// it returns true for are listed in Layout.Marked.
	Mark func(text []byte) bool
	// spool.MemoryLimit is how much of the input is kept in memory before it
	// moves to a temporary file; 0 means spool.MemoryLimit.
	MemoryLimit int64
	// MaxDocumentSize is the size above which a document, an item, or a
	// ResourceList the splitter does not take, is refused before it is
	// parsed; 0 means DefaultMaxDocumentSize, a negative value no limit.
	MaxDocumentSize int64
}

// Read reads r to the end and splits it. An error means r could not be read
// or kept; an input the splitter declines is not an error.
func Read(r io.Reader, opts Options) (*Input, error) {
	limit := opts.MemoryLimit
	if limit == 0 {
		limit = spool.MemoryLimit
	}
	in := &Input{}
	var sink io.Writer
	base := int64(-1)
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			if pos, err := f.Seek(0, io.SeekCurrent); err == nil {
				base = pos
			}
		}
	}
	if base < 0 {
		in.spool = spool.New(limit)
		sink = in.spool
	}
	br := bufio.NewReaderSize(r, 1<<16)
	var (
		size   int64
		err    error
		layout func() (*Layout, string)
	)
	max := opts.maxDocumentSize()
	if looksJSON(br) {
		s := &jsonSplitter{mark: opts.Mark}
		size, err = s.scan(br, sink, max)
		layout = s.layout
	} else {
		s := &lineSplitter{mark: opts.Mark, dash: -1}
		size, err = scanLines(br, sink, s, max)
		layout = s.layout
	}
	if err != nil {
		in.Close()
		return nil, err
	}
	in.size = size
	if in.spool != nil {
		if err := in.spool.Flush(); err != nil {
			in.Close()
			return nil, err
		}
		in.data = in.spool
	} else {
		in.data = io.NewSectionReader(r.(*os.File), base, size)
	}
	in.Layout, in.Declined = layout()
	return in, nil
}

// scanLines feeds every line of br to s and copies it to sink. It stops
// with a *LineError holding a *TooLargeError when an item, or the list
// when s declined it, grows larger than max (0: no limit).
func scanLines(br *bufio.Reader, sink io.Writer, s *lineSplitter, max int64) (int64, error) {
	err := eachLine(br, max, func(line []byte) error {
		if sink != nil {
			if _, err := sink.Write(line); err != nil {
				return err
			}
		}
		s.add(line)
		return s.tooLarge(max)
	})
	if start, ok := asLongLine(err); ok {
		err = s.longLine(start, max)
	}
	if err != nil {
		return 0, err
	}
	s.end()
	return s.offset, nil
}

// eachLine calls fn with every line of br, its line break included, however
// long the line up to max bytes (0: no limit); the slice is valid until fn
// returns. It stops at the first error of br or fn, and with a
// *longLineError at a line longer than max, before it holds more of it.
func eachLine(br *bufio.Reader, max int64, fn func(line []byte) error) error {
	var long []byte // a line longer than the reader's buffer
	for {
		chunk, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if max > 0 && int64(len(long)+len(chunk)) > max {
				line := append(long, chunk...)
				return &longLineError{start: line[:min(len(line), 64)]}
			}
			long = append(long, chunk...)
			continue
		}
		line := chunk
		if len(long) > 0 {
			long = append(long, chunk...)
			line = long
		}
		if len(line) > 0 {
			if ferr := fn(line); ferr != nil {
				return ferr
			}
		}
		long = long[:0]
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// Item returns the text of item i: in YAML its "- " line and the lines
// under it, after the comments that belong to it; in JSON the object.
func (in *Input) Item(i int) ([]byte, error) {
	s := in.Layout.items[i]
	b := make([]byte, s.end-s.start)
	if _, err := in.data.ReadAt(b, s.start); err != nil && !(err == io.EOF && len(b) > 0) {
		return nil, err
	}
	return b, nil
}

// ParseItem reads and parses item i where it sits in the list (see
// ParseItem, parseItemAfter and parseJSONItem). Text that does not parse
// alone is a *ParseError; any other error is the input's read error.
func (in *Input) ParseItem(i int) (*yaml.RNode, error) {
	text, err := in.Item(i)
	if err != nil {
		return nil, err
	}
	return in.ParseItemText(i, text)
}

// ParseItemText is ParseItem for item i's text, read with Item.
func (in *Input) ParseItemText(i int, text []byte) (*yaml.RNode, error) {
	var (
		item *yaml.RNode
		err  error
	)
	switch {
	case in.Layout.JSON:
		item, err = parseJSONItem(text)
	default:
		head, entries := "items:\n", 1
		if i > 0 && startsWithComment(text) {
			head, entries = afterItem(in.Layout.dash), 2
		}
		item, err = parseEntry(head, text, entries, in.Layout.follow[i], in.Layout.dash)
	}
	if err != nil {
		return nil, &ParseError{Item: i, Err: err}
	}
	return item, nil
}

// ParseError is an item whose text does not parse alone: only the whole
// list, parsed as one document, says what is wrong with it.
type ParseError struct {
	// Item is the item's index.
	Item int
	// Err is the parser's error.
	Err error
}

func (e *ParseError) Error() string { return fmt.Sprintf("item %d: %v", e.Item, e.Err) }

func (e *ParseError) Unwrap() error { return e.Err }

// startsWithComment reports whether an item's text starts with a blank or
// comment line rather than its "-".
func startsWithComment(text []byte) bool {
	n, blank := indentOf(text)
	return blank || text[n] == '#' || text[n] == '\n' || text[n] == '\r'
}

// Bytes returns the whole input.
func (in *Input) Bytes() ([]byte, error) {
	if in.spool != nil {
		return in.spool.Bytes()
	}
	b := make([]byte, in.size)
	if _, err := in.data.ReadAt(b, 0); err != nil && err != io.EOF {
		return nil, err
	}
	return b, nil
}

// Size is the input's length in bytes.
func (in *Input) Size() int64 { return in.size }

// Close releases the spooled input.
func (in *Input) Close() error {
	if in.spool == nil {
		return nil
	}
	return in.spool.Close()
}
