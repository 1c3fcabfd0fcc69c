// Package stream is the streaming path of the function: it splits a
// ResourceList at the top-level entries of its items list, textually, so
// that the items can be parsed, edited and encoded one by one on every core
// while memory stays bounded by the items in flight; and it encodes each
// piece of the output exactly as kio.ByteWriter encodes it inside the whole
// list, so that the streamed output is byte-identical to the whole-list one.
//
// The splitter accepts only a layout it understands with certainty (the one
// kustomize and kpt write: a block mapping at column 0 with a plain "items:"
// key, a non-empty block sequence of items all at one column, no tabs, CRs
// or other control characters, no document markers, no comment between or
// at the end of items) and says so otherwise: the caller then runs the
// whole-list path. The caller also checks what the splitter cannot see: that
// the parser finds the items key where the splitter did (Layout.ItemsLine)
// and that each item parses alone (ParseItem), so an anchor used across
// items, a quoted scalar or flow collection spanning the cut, or any other
// surprise also ends in the whole-list path.
package stream

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
)

// Input is a ResourceList read in full, to memory, to a temporary file, or
// left in the regular file it came from, with its layout when the splitter
// understood it.
type Input struct {
	data  io.ReaderAt
	size  int64
	spool *Spool

	// Layout is the input split at its items, or nil when the splitter
	// declined; Declined then says why.
	Layout *Layout
	// Declined says why the input was not split.
	Declined string
}

// Layout is a ResourceList split at its top-level items.
type Layout struct {
	// Skeleton is the ResourceList with every item removed: its items line
	// reads "items: []".
	Skeleton []byte
	// ItemsLine is the 1-based line of "items: []" in Skeleton.
	ItemsLine int
	// NextKeyLine is the line in Skeleton of the top-level key after items,
	// or 0 when items is the last key.
	NextKeyLine int
	// Marked lists, in order, the items with a line for which Options.Mark
	// returned true.
	Marked []int

	// starts holds the offset of each item, then the end of the last one.
	starts []int64
}

// Len is the number of items.
func (l *Layout) Len() int { return len(l.starts) - 1 }

// Options tune Read.
type Options struct {
	// Mark, when set, is called on every line of every item; items with a
	// line it returns true for are listed in Layout.Marked.
	Mark func(line []byte) bool
	// MemoryLimit is how much of the input is kept in memory before it
	// moves to a temporary file; 0 means MemoryLimit.
	MemoryLimit int64
}

// Read reads r to the end and splits it. An error means r could not be read;
// an input the splitter declines is not an error.
func Read(r io.Reader, opts Options) (*Input, error) {
	limit := opts.MemoryLimit
	if limit == 0 {
		limit = MemoryLimit
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
		in.spool = NewSpool(limit)
		sink = in.spool
	}
	s := &splitter{mark: opts.Mark, sink: sink}
	if err := s.scan(r); err != nil {
		in.Close()
		return nil, err
	}
	in.size = s.offset
	if in.spool != nil {
		if err := in.spool.Flush(); err != nil {
			in.Close()
			return nil, err
		}
		in.data = in.spool
	} else {
		in.data = io.NewSectionReader(r.(*os.File), base, s.offset)
	}
	in.Layout, in.Declined = s.layout()
	return in, nil
}

// Item returns the text of item i: its "- " line and the lines under it.
func (in *Input) Item(i int) ([]byte, error) {
	start, end := in.Layout.starts[i], in.Layout.starts[i+1]
	b := make([]byte, end-start)
	if _, err := in.data.ReadAt(b, start); err != nil && !(err == io.EOF && len(b) > 0) {
		return nil, err
	}
	return b, nil
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

// where the splitter is in the ResourceList.
type section int

const (
	beforeItems section = iota
	inItems
	afterItems
)

// splitter finds the items of a ResourceList line by line.
type splitter struct {
	mark func([]byte) bool
	sink io.Writer

	offset  int64
	line    int
	section section
	// prefix and suffix are the lines before and after the items.
	prefix, suffix bytes.Buffer
	itemsLine      int
	nextKeyLine    bool
	// dash is the column of the items' "-", or -1 before the first item.
	dash     int
	starts   []int64
	marked   []int
	comment  bool // the last non-blank line of the current item is a comment
	declined string
}

func (s *splitter) decline(format string, args ...any) {
	if s.declined == "" {
		s.declined = fmt.Sprintf("line %d: ", s.line) + fmt.Sprintf(format, args...)
	}
}

// scan reads every line; after a decline it only copies the input.
func (s *splitter) scan(r io.Reader) error {
	br := bufio.NewReaderSize(r, 1<<16)
	var long []byte // a line longer than the reader's buffer
	s.dash = -1
	for {
		chunk, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, chunk...)
			continue
		}
		line := chunk
		if len(long) > 0 {
			long = append(long, chunk...)
			line = long
		}
		if len(line) > 0 {
			if s.sink != nil {
				if _, werr := s.sink.Write(line); werr != nil {
					return werr
				}
			}
			s.line++
			if s.declined == "" {
				s.take(line)
			}
			s.offset += int64(len(line))
		}
		long = long[:0]
		if err == io.EOF {
			s.end()
			return nil
		}
		if err != nil {
			return err
		}
	}
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// plain reports whether line holds only bytes the splitter can reason about:
// no control characters but the final newline, no byte order mark, and none
// of the line breaks YAML knows besides LF (NEL, LS, PS).
func plain(line []byte) bool {
	for i, b := range line {
		switch {
		case b < 0x20:
			if b != '\n' || i != len(line)-1 {
				return false
			}
		case b == 0xC2:
			if i+1 < len(line) && line[i+1] == 0x85 {
				return false
			}
		case b == 0xE2:
			if i+2 < len(line) && line[i+1] == 0x80 && (line[i+2] == 0xA8 || line[i+2] == 0xA9) {
				return false
			}
		case b == 0xEF:
			if bytes.HasPrefix(line[i:], bom) {
				return false
			}
		}
	}
	return true
}

// indentOf counts the leading spaces; blank is true for a line of spaces.
func indentOf(line []byte) (n int, blank bool) {
	for n < len(line) && line[n] == ' ' {
		n++
	}
	return n, n == len(line) || line[n] == '\n'
}

// keyOf returns the key of a top-level "key:" or "key: value" line with a
// plain key made of letters, digits and "_.-/", or "".
func keyOf(line []byte) string {
	for i, b := range line {
		switch {
		case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9',
			i > 0 && (b == '_' || b == '.' || b == '-' || b == '/'):
		case b == ':' && i > 0:
			if i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\n' {
				return string(line[:i])
			}
			return ""
		default:
			return ""
		}
	}
	return ""
}

// isItemsLine is the only form of the items key the splitter takes.
func isItemsLine(line []byte) bool {
	return string(line) == "items:\n" || string(line) == "items:"
}

// take classifies one line.
func (s *splitter) take(line []byte) {
	if !plain(line) {
		s.decline("a tab, CR, control character, byte order mark or Unicode line break")
		return
	}
	indent, blank := indentOf(line)
	if s.section != inItems {
		s.outside(line, indent, blank)
		return
	}
	switch {
	case blank:
	case indent > s.dash && s.dash >= 0:
		s.comment = line[indent] == '#'
	case isEntry(line, indent) && (s.dash < 0 || indent == s.dash):
		s.endItem()
		s.dash = indent
		s.starts = append(s.starts, s.offset)
	case indent == 0 && keyOf(line) != "":
		s.endItem()
		s.section = afterItems
		s.nextKeyLine = true
		s.outside(line, indent, blank)
	default:
		s.decline("a line the items list does not continue with")
	}
	if s.mark != nil && len(s.starts) > 0 && s.section == inItems && s.mark(line) {
		if i := len(s.starts) - 1; len(s.marked) == 0 || s.marked[len(s.marked)-1] != i {
			s.marked = append(s.marked, i)
		}
	}
}

// isEntry is a "-" that starts a sequence entry.
func isEntry(line []byte, indent int) bool {
	rest := line[indent:]
	return len(rest) > 0 && rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ' || rest[1] == '\n')
}

// outside handles a line before or after the items.
func (s *splitter) outside(line []byte, indent int, blank bool) {
	buf := &s.prefix
	if s.section == afterItems {
		buf = &s.suffix
	}
	if !blank && indent == 0 {
		switch {
		case isItemsLine(line) && s.section == beforeItems:
			s.section = inItems
			s.itemsLine = s.line
			return
		case len(line) >= 3 && (string(line[:3]) == "---" || string(line[:3]) == "..."):
			s.decline("a document marker")
			return
		case line[0] == '#', line[0] == '-':
		case keyOf(line) == "":
			s.decline("a top-level line that is not a plain key")
			return
		case keyOf(line) == "items":
			s.decline("an items key the splitter does not take")
			return
		}
	}
	buf.Write(line)
}

// endItem checks the end of the current item.
func (s *splitter) endItem() {
	if s.comment {
		s.decline("a comment at the end of an item")
	}
	s.comment = false
}

// end is called at the end of the input.
func (s *splitter) end() {
	if s.section == inItems {
		s.endItem()
	}
	if s.section == beforeItems {
		s.decline("no items key at column 0")
	}
}

// layout returns the split, or why there is none.
func (s *splitter) layout() (*Layout, string) {
	if s.declined != "" {
		return nil, s.declined
	}
	if len(s.starts) == 0 {
		return nil, "no items: the whole-list path decides what an empty items key means"
	}
	var skeleton bytes.Buffer
	skeleton.Grow(s.prefix.Len() + len("items: []\n") + s.suffix.Len())
	skeleton.Write(s.prefix.Bytes())
	if n := skeleton.Len(); n > 0 && skeleton.Bytes()[n-1] != '\n' {
		return nil, "no newline before the items key"
	}
	skeleton.WriteString("items: []\n")
	skeleton.Write(s.suffix.Bytes())
	l := &Layout{Skeleton: skeleton.Bytes(), ItemsLine: s.itemsLine, Marked: s.marked}
	if s.nextKeyLine {
		l.NextKeyLine = s.itemsLine + 1
	}
	l.starts = append(s.starts, s.itemsEnd())
	return l, ""
}

// itemsEnd is the offset where the items end: the start of the suffix, or
// the end of the input.
func (s *splitter) itemsEnd() int64 {
	return s.offset - int64(s.suffix.Len())
}
