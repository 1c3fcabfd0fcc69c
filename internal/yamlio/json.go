package yamlio

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// looksJSON reports whether the input's first byte after a byte order mark
// and white space is "{": the input is then split as JSON.
func looksJSON(br *bufio.Reader) bool {
	head, _ := br.Peek(4096)
	head = bytes.TrimPrefix(head, bom)
	head = bytes.TrimLeft(head, " \t\r\n")
	return len(head) > 0 && head[0] == '{'
}

// jsonSplitter finds the items of a ResourceList written in JSON, byte by
// byte, in constant memory whatever the line lengths. It takes only JSON:
// outside strings nothing but structure, white space, numbers, true, false
// and null; inside strings no control character. So there is no comment,
// anchor, tag or YAML scalar for the cut to separate from what it means, and
// each item, a JSON object, means alone what it means in the list. Top-level
// keys must not be escaped, so that "items" is found as the parser finds it.
type jsonSplitter struct {
	mark func([]byte) bool

	offset   int64
	declined string
	// prefix is the input up to the items' "[", suffix from their "]".
	prefix, suffix bytes.Buffer
	section        section
	// open is the stack of open "{" and "[".
	open []byte
	// The string being read, and whether it is kept in str (a top-level
	// key, or a string inside an item when mark is set).
	inString, escaped, keep, isKey bool
	str                            []byte
	// At the top level: a key is expected, was read, or its ":" was.
	wantKey, haveKey, haveColon bool
	// scalar is set inside a number, true, false or null.
	scalar   bool
	key      string
	sawItems bool
	// In the items array: an item is expected (after "[" or ",") or just
	// ended.
	wantItem, afterItem bool
	itemStart           int64
	// line counts the line breaks read; itemLine is the line an item
	// starts on.
	line, itemLine int
	items          []span
	marked         []int
	// done is set once the top-level object is closed.
	done bool
	// the two bytes before the current one, for multi-byte sequences.
	p1, p2 byte
}

func (s *jsonSplitter) decline(format string, args ...any) {
	if s.declined == "" {
		s.declined = fmt.Sprintf("byte %d: ", s.offset) + fmt.Sprintf(format, args...)
	}
}

// scan reads br to the end, copies it to sink and splits it. It stops
// with a *LineError holding a *TooLargeError when an item, or the list
// when s declined it, grows larger than max (0: no limit).
func (s *jsonSplitter) scan(br *bufio.Reader, sink io.Writer, max int64) (int64, error) {
	buf := make([]byte, 1<<16)
	for {
		n, err := br.Read(buf)
		if n > 0 {
			if sink != nil {
				if _, werr := sink.Write(buf[:n]); werr != nil {
					return 0, werr
				}
			}
			for _, b := range buf[:n] {
				if s.declined == "" {
					s.take(b)
				}
				if b == '\n' {
					s.line++
				}
				s.offset++
			}
			if err := s.tooLarge(max); err != nil {
				return 0, err
			}
		}
		if err == io.EOF {
			s.end()
			return s.offset, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// take reads one byte.
func (s *jsonSplitter) take(b byte) {
	p1, p2 := s.p1, s.p2
	s.p2, s.p1 = p1, b
	switch {
	case p1 == 0xC2 && b == 0x85, p2 == 0xE2 && p1 == 0x80 && (b == 0xA8 || b == 0xA9):
		s.decline("a Unicode line break")
		return
	case p2 == 0xEF && p1 == 0xBB && b == 0xBF && s.offset > 2:
		s.decline("a byte order mark after the start")
		return
	}
	if s.section != inItems {
		buf := &s.prefix
		if s.section == afterItems {
			buf = &s.suffix
		}
		buf.WriteByte(b)
	}
	if s.inString {
		s.stringByte(b)
		return
	}
	switch b {
	case ' ', '\t', '\r', '\n':
		s.scalar = false
		return
	}
	switch {
	case s.done:
		s.decline("more after the ResourceList")
	case len(s.open) == 0:
		if s.offset < 3 && b >= 0x80 {
			return // the byte order mark
		}
		s.wantKey = true // looksJSON saw that b is "{"
		s.push(b)
	case len(s.open) == 1:
		s.top(b)
	case len(s.open) == 2 && s.section == inItems:
		s.array(b)
	default:
		s.value(b, s.mark != nil && s.section == inItems)
	}
}

// top reads a byte of the top-level object.
func (s *jsonSplitter) top(b byte) {
	switch {
	case s.haveColon:
		s.haveColon = false
		if s.key == "items" {
			if b != '[' || s.sawItems {
				s.decline("an items key the splitter does not take")
				return
			}
			s.sawItems, s.section, s.wantItem = true, inItems, true
			s.push(b)
			return
		}
		if b != '"' && b != '{' && b != '[' && !scalarByte(b) {
			s.decline("%q where a value should start", b)
			return
		}
		s.value(b, false)
	case b == '"' && s.wantKey:
		s.wantKey, s.isKey = false, true
		s.startString(true)
	case b == ':' && s.haveKey:
		s.haveKey, s.haveColon = false, true
	case b == ',' && !s.wantKey && !s.haveKey:
		s.wantKey, s.scalar = true, false
	case b == '}' && !s.haveKey:
		s.scalar = false
		s.pop(b)
	case scalarByte(b) && s.scalar:
	default:
		s.decline("%q where the top-level object does not take it", b)
	}
}

// array reads a byte of the items array, between the items.
func (s *jsonSplitter) array(b byte) {
	switch {
	case b == '{' && s.wantItem:
		s.wantItem, s.itemStart, s.itemLine = false, s.offset, s.line+1
		s.push(b)
	case b == ',' && s.afterItem:
		s.afterItem, s.wantItem = false, true
	case b == ']' && s.afterItem:
		s.pop(b)
	default:
		s.decline("an items list the splitter does not take: %q between the items", b)
	}
}

// value reads a byte of a value below the top level, outside strings; keep
// says whether a string it starts is passed to mark.
func (s *jsonSplitter) value(b byte, keep bool) {
	switch {
	case b == '"':
		s.startString(keep)
	case b == '{', b == '[':
		s.push(b)
	case b == '}', b == ']':
		s.pop(b)
	case scalarByte(b):
		s.scalar = true
	case b == ':', b == ',':
		s.scalar = false
	default:
		s.decline("%q, which is not JSON", b)
	}
}

// scalarByte is a byte of a JSON number, true, false or null.
func scalarByte(b byte) bool {
	if b >= '0' && b <= '9' {
		return true
	}
	switch b {
	case '-', '+', '.', 'e', 'E', 't', 'r', 'u', 'f', 'a', 'l', 's', 'n':
		return true
	}
	return false
}

func (s *jsonSplitter) startString(keep bool) {
	s.inString, s.keep = true, keep
	if keep {
		s.str = append(s.str[:0], '"')
	}
}

// stringByte reads a byte inside a string.
func (s *jsonSplitter) stringByte(b byte) {
	if s.keep {
		s.str = append(s.str, b)
	}
	switch {
	case s.escaped:
		s.escaped = false
	case b == '\\':
		s.escaped = true
	case b == '"':
		s.inString = false
		s.endString()
	case b < 0x20:
		s.decline("a control character in a string")
	}
}

// endString uses the string just read.
func (s *jsonSplitter) endString() {
	switch {
	case s.isKey:
		s.isKey = false
		if bytes.IndexByte(s.str, '\\') >= 0 {
			s.decline("an escaped top-level key")
		}
		s.key = string(s.str[1 : len(s.str)-1])
		s.haveKey = true
	case s.keep && s.mark(s.str):
		if i := len(s.items); len(s.marked) == 0 || s.marked[len(s.marked)-1] != i {
			s.marked = append(s.marked, i)
		}
	}
	s.keep = false
}

func (s *jsonSplitter) push(b byte) {
	s.scalar = false
	s.open = append(s.open, b)
}

func (s *jsonSplitter) pop(b byte) {
	depth := len(s.open)
	if depth == 0 || s.open[depth-1] != b-2 { // "{" is "}"-2, "[" is "]"-2
		s.decline("an unbalanced %q", b)
		return
	}
	s.open = s.open[:depth-1]
	s.scalar = false
	switch {
	case depth == 3 && s.section == inItems:
		s.items = append(s.items, span{s.itemStart, s.offset + 1})
		s.afterItem = true
	case depth == 2 && s.section == inItems:
		s.section = afterItems
		s.suffix.WriteByte(b)
	case depth == 1:
		s.done = true
	}
}

// tooLarge is a *LineError holding a *TooLargeError when the item being
// read, the list without its items, or the list the splitter declined, is
// larger than max (0: no limit).
func (s *jsonSplitter) tooLarge(max int64) error {
	switch {
	case max <= 0:
	case s.declined != "" && s.offset > max:
		return &LineError{Line: 1, Err: &TooLargeError{What: fmt.Sprintf("the ResourceList (not split into its items: %s)", s.declined), Limit: max}}
	case s.declined != "":
	case s.section == inItems && !s.wantItem && !s.afterItem && s.offset-s.itemStart > max:
		return &LineError{Line: s.itemLine, Err: &TooLargeError{What: fmt.Sprintf("ResourceList items[%d]", len(s.items)), Limit: max}}
	case int64(s.prefix.Len()+s.suffix.Len()) > max:
		return &LineError{Line: 1, Err: &TooLargeError{What: "the ResourceList without its items", Limit: max}}
	}
	return nil
}

// end is called at the end of the input.
func (s *jsonSplitter) end() {
	switch {
	case len(s.open) > 0 || s.inString || !s.done:
		s.decline("the JSON object does not end")
	case !s.sawItems:
		s.decline("no items key")
	}
}

// layout returns the split, or why there is none.
func (s *jsonSplitter) layout() (*Layout, string) {
	if s.declined != "" {
		return nil, s.declined
	}
	skeleton := make([]byte, 0, s.prefix.Len()+s.suffix.Len())
	skeleton = append(skeleton, s.prefix.Bytes()...)
	skeleton = append(skeleton, s.suffix.Bytes()...)
	return &Layout{Skeleton: skeleton, JSON: true, Marked: s.marked, items: s.items}, ""
}
