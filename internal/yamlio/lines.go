package yamlio

import (
	"bytes"
	"fmt"
)

// where the splitter is in the ResourceList.
type section int

const (
	beforeItems section = iota
	inItems
	afterItems
)

// lineSplitter finds the items of a ResourceList in YAML line by line.
//
// Comment lines at the items' column (or left of it) and the blank lines
// around them, between two items, belong to the item after them: the item's
// text starts with them, and Input.ParseItem parses it after an item like
// the one before, so that the parser attaches them as it does in the whole
// list. Such lines after the last item go to the skeleton: the whole list
// attaches them to the items key, which the output does not keep.
//
// An item that starts with a plain key, or is the last, and whose last
// line (but for blank lines) is more indented than its "-" and starts with
// "#" (a comment, or a line of a block scalar) is parsed before a stand-in
// for what follows it in the list: the parser attaches a comment at the
// end of a mapping to another key when the input ends there (see
// Layout.follow).
type lineSplitter struct {
	mark func([]byte) bool

	offset  int64
	line    int
	section section
	// prefix and suffix are the lines before and after the items.
	prefix, suffix bytes.Buffer
	// sawKey is set once a top-level key, or a document start, was read.
	sawKey    bool
	itemsLine int
	// nextKey is set when a top-level key follows the items.
	nextKey bool
	// dash is the column of the items' "-", or -1 before the first item.
	dash   int
	starts []int64
	// startLines are the lines the items' "-" are on.
	startLines []int
	marked     []int
	comment    bool // the last non-blank line of the current item is a comment
	// ended is set when the item before the current line ended with such a
	// line, until what follows it is known.
	ended bool
	// follow holds what follows each item that ended so (see Layout.follow).
	follow map[int]follower
	// joined holds the items parsed with the item after them (see
	// Layout.joined).
	joined map[int]bool
	// anchors is the last item whose text defines each anchor name (see
	// aliases).
	anchors map[string]int
	// block is set when the current item starts with "- key:", or with
	// "-" and a comment, then "key:" on the next line (firstKey is set
	// until that line is read); keep when one of its lines may start a
	// block scalar that keeps its final line breaks.
	block, firstKey, keep bool
	// gap holds the blank lines and the comments at the items' column
	// since lastEnd, the end of the last line of an item.
	gap        bytes.Buffer
	gapLines   int
	gapComment bool
	// gapIndented is set when one of those comments is not at column 0;
	// gapUnbroken when the last of those lines has no line break (the
	// input's end).
	gapIndented, gapUnbroken bool
	lastEnd                  int64
	// movedLines is the number of lines after the last item that went to
	// the skeleton.
	movedLines int
	declined   string
}

func (s *lineSplitter) decline(format string, args ...any) {
	if s.declined == "" {
		s.declined = fmt.Sprintf("line %d: ", s.line) + fmt.Sprintf(format, args...)
	}
}

// add takes the next line, with its line break.
func (s *lineSplitter) add(line []byte) {
	s.line++
	if s.declined == "" {
		s.take(line)
	}
	s.offset += int64(len(line))
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// lineText is line without its line break, LF or CRLF, and without the
// byte order mark that may start the input.
func lineText(line []byte, first bool) []byte {
	if first {
		line = bytes.TrimPrefix(line, bom)
	}
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
		if n > 1 && line[n-2] == '\r' {
			line = line[:n-2]
		}
	}
	return line
}

// plain reports whether text holds only bytes the splitter can reason
// about: no control characters but tabs, no byte order mark, and none of
// the line breaks YAML knows besides LF and CRLF (CR alone, NEL, LS, PS).
func plain(text []byte) bool {
	for i, b := range text {
		switch {
		case b < 0x20 && b != '\t' || b == 0x7F:
			return false
		case b == 0xC2:
			if i+1 < len(text) && text[i+1] == 0x85 {
				return false
			}
		case b == 0xE2:
			if i+2 < len(text) && text[i+1] == 0x80 && (text[i+2] == 0xA8 || text[i+2] == 0xA9) {
				return false
			}
		case b == 0xEF:
			if bytes.HasPrefix(text[i:], bom) {
				return false
			}
		}
	}
	return true
}

// indentOf counts the leading spaces; blank is true for a line of spaces.
func indentOf(text []byte) (n int, blank bool) {
	for n < len(text) && text[n] == ' ' {
		n++
	}
	return n, n == len(text)
}

// keyOf returns the key of a "key:" or "key: value" line with a plain key
// made of letters, digits and "_.-/", or "".
func keyOf(text []byte) string {
	for i, b := range text {
		switch {
		case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9',
			i > 0 && (b == '_' || b == '.' || b == '-' || b == '/'):
		case b == ':' && i > 0:
			if i+1 == len(text) || text[i+1] == ' ' {
				return string(text[:i])
			}
			return ""
		default:
			return ""
		}
	}
	return ""
}

// isEntry is a "-" that starts a sequence entry.
func isEntry(text []byte, indent int) bool {
	rest := text[indent:]
	return len(rest) > 0 && rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ')
}

// mayKeep reports whether text may hold the header of a block scalar that
// keeps its final line breaks ("|+", ">2+", "|+2").
func mayKeep(text []byte) bool {
	for i, b := range text {
		if b != '|' && b != '>' {
			continue
		}
		j := i + 1
		if j < len(text) && text[j] >= '1' && text[j] <= '9' {
			j++
		}
		if j < len(text) && text[j] == '+' {
			return true
		}
	}
	return false
}

// itemLine reports whether a line at indent goes on with the current item
// whatever else it holds: it is more indented than the item's "-", and
// not blank. A tab there (in a block scalar, in a quoted scalar, after a
// value) is the item's, and the item's parse reads it as the list's
// does; a tab anywhere else may be indentation the splitter cannot place.
func (s *lineSplitter) itemLine(indent int, blank bool) bool {
	return s.section == inItems && s.dash >= 0 && indent > s.dash && !blank
}

// entryLine reports whether a line at indent starts an item: a "-" and a
// space at the items' column. A tab after them is the item's.
func (s *lineSplitter) entryLine(text []byte, indent int) bool {
	return s.section == inItems && isEntry(text, indent) && (s.dash < 0 || indent == s.dash)
}

// take classifies one line.
func (s *lineSplitter) take(line []byte) {
	text := lineText(line, s.line == 1)
	if !plain(text) {
		s.decline("a lone CR, control character, byte order mark or Unicode line break")
		return
	}
	indent, blank := indentOf(text)
	if !s.itemLine(indent, blank) && !s.entryLine(text, indent) && bytes.IndexByte(text, '\t') >= 0 {
		s.decline("a tab outside the lines of an item")
		return
	}
	if s.section != inItems {
		s.outside(line, text, indent, blank)
		return
	}
	low := !blank && text[indent] == '#' && (s.dash < 0 || indent <= s.dash)
	switch {
	case blank || low:
		s.gap.Write(line)
		s.gapLines++
		s.gapComment = s.gapComment || low
		s.gapIndented = s.gapIndented || low && indent > 0
		s.gapUnbroken = len(line) == 0 || line[len(line)-1] != '\n'
		return
	case indent > s.dash && s.dash >= 0:
		s.comment = text[indent] == '#'
		s.keep = s.keep || mayKeep(text)
		if s.firstKey && !s.comment {
			s.block = indent == s.dash+2 && keyOf(text[indent:]) != ""
			s.firstKey = false
		}
	case s.entryLine(text, indent):
		s.endItem(true)
		start := s.offset
		if s.gapComment {
			start = s.lastEnd
		}
		s.starts = append(s.starts, start)
		s.startLines = append(s.startLines, s.line)
		s.dash = indent
		after := bytes.TrimLeft(text[indent+1:], " ")
		s.block = keyOf(after) != "" && len(text)-len(after) == indent+2
		if s.ended {
			s.followBy(len(s.starts)-2, followItem)
		}
		s.firstKey = len(after) == 0 || after[0] == '#'
		s.keep = mayKeep(text)
	case indent == 0 && keyOf(text) != "":
		s.endItems()
		if s.ended {
			s.followBy(len(s.starts)-1, followKey)
		}
		s.section = afterItems
		s.nextKey = true
		s.outside(line, text, indent, blank)
		return
	default:
		s.decline("a line the items list does not continue with")
		return
	}
	s.aliases(text[indent:])
	s.gap.Reset()
	s.gapLines, s.gapComment, s.gapIndented = 0, false, false
	s.lastEnd = s.offset + int64(len(line))
	if s.mark != nil && len(s.starts) > 0 && s.mark(line) {
		if i := len(s.starts) - 1; len(s.marked) == 0 || s.marked[len(s.marked)-1] != i {
			s.marked = append(s.marked, i)
		}
	}
}

// outside handles a line before or after the items.
func (s *lineSplitter) outside(line, text []byte, indent int, blank bool) {
	buf := &s.prefix
	if s.section == afterItems {
		buf = &s.suffix
	}
	if !blank && indent == 0 {
		switch {
		case string(text) == "items:" && s.section == beforeItems:
			s.section = inItems
			s.itemsLine = s.line
			s.lastEnd = s.offset + int64(len(line))
			return
		case string(text) == "---" && s.section == beforeItems && !s.sawKey:
			s.sawKey = true // a second "---" starts another document
		case len(text) >= 3 && (string(text[:3]) == "---" || string(text[:3]) == "..."):
			s.decline("a document marker")
			return
		case text[0] == '#', text[0] == '-':
		case keyOf(text) == "":
			s.decline("a top-level line that is not a plain key")
			return
		case keyOf(text) == "items":
			s.decline("an items key the splitter does not take")
			return
		default:
			s.sawKey = true
		}
	}
	buf.Write(line)
}

// tooLarge is a *LineError holding a *TooLargeError when the current
// item, the list without its items, or the list the splitter declined, is
// larger than max (0: no limit).
func (s *lineSplitter) tooLarge(max int64) error {
	if max <= 0 {
		return nil
	}
	return s.tooLargeWith(max, 0)
}

// longLine is the *LineError for a line, starting with start, that is
// longer than max: it starts an item, or makes the current one too large.
func (s *lineSplitter) longLine(start []byte, max int64) error {
	if text := lineText(start, s.line == 0); s.section == inItems && s.declined == "" {
		if indent, _ := indentOf(text); isEntry(text, indent) && (s.dash < 0 || indent == s.dash) {
			return &LineError{Line: s.line + 1, Err: &TooLargeError{What: fmt.Sprintf("ResourceList items[%d]", len(s.starts)), Limit: max}}
		}
	}
	return s.tooLargeWith(max, max+1)
}

// tooLargeWith is tooLarge with pending more bytes not yet taken.
func (s *lineSplitter) tooLargeWith(max, pending int64) error {
	end := s.offset + pending
	switch {
	case s.declined != "" && end > max:
		return &LineError{Line: 1, Err: &TooLargeError{What: fmt.Sprintf("the ResourceList (not split into its items: %s)", s.declined), Limit: max}}
	case s.declined != "":
	case s.section == inItems && len(s.starts) > 0 && end-s.starts[len(s.starts)-1] > max:
		i := len(s.starts) - 1
		return &LineError{Line: s.startLines[i], Err: &TooLargeError{What: fmt.Sprintf("ResourceList items[%d]", i), Limit: max}}
	case int64(s.prefix.Len()+s.suffix.Len())+pending > max:
		return &LineError{Line: 1, Err: &TooLargeError{What: "the ResourceList without its items", Limit: max}}
	}
	return nil
}

// followBy records what follows item i, which ended with a comment line.
func (s *lineSplitter) followBy(i int, f follower) {
	if s.follow == nil {
		s.follow = map[int]follower{}
	}
	s.follow[i] = f
	s.ended = false
}

// endItem checks the end of the current item, before another item when
// next is set. An item whose end, or the comments after it, the parser may
// attach otherwise when the item is parsed alone is joined to the next item
// (see Layout.joined). The last item cannot be: the split is declined,
// but for a comment at its end with no comment after it.
func (s *lineSplitter) endItem(next bool) {
	var why string
	switch {
	case s.comment && !s.block && !(next || s.gapComment):
		// The last item, which a plain key at column 0 or the end of the
		// input follows: parsed before a stand-in for that, like an item
		// that starts with a plain key (see Layout.follow).
	case s.comment && !s.block:
		why = "a comment at the end of an item that does not start with a plain key"
	case s.comment && s.gapComment:
		why = "a comment at the end of an item, then comments before the next"
	case s.gapComment && len(s.starts) > 0 && !s.block:
		why = "a comment after an item that does not start with a plain key"
	case s.gapComment && len(s.starts) > 0 && s.keep:
		why = "a comment after an item with a block scalar that may keep its final line breaks"
	}
	s.ended = s.comment && why == ""
	switch {
	case why != "" && next:
		s.join(len(s.starts) - 1)
	case why != "":
		s.decline("%s, and it is the last item", why)
	}
	s.comment = false
}

// maxAliasSpan is how many items before its alias an anchor may be for
// the items from the anchor's to the alias's to be parsed together; an
// anchor further back sends the list to the whole-list path.
const maxAliasSpan = 64

// aliases notes the anchors a line of the current item defines and joins
// the item to the items back to the last one that defined an anchor the
// line uses (see Layout.joined): the parser resolves an alias only in the
// document where its anchor stands. It reads "&name" and "*name" wherever
// a node may start (at the line's start, after a blank, "[", "{" or ","),
// in scalars and comments too: a join too many costs a parse of the items
// together, one too few sends the list whole when the item does not parse.
func (s *lineSplitter) aliases(text []byte) {
	if bytes.IndexAny(text, "&*") < 0 {
		return
	}
	item := len(s.starts) - 1
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '&' && c != '*' || i > 0 && bytes.IndexByte([]byte(" [{,"), text[i-1]) < 0 {
			continue
		}
		end := i + 1
		for end < len(text) && bytes.IndexByte([]byte(" ,[]{}"), text[end]) < 0 {
			end++
		}
		if end == i+1 {
			continue
		}
		name := string(text[i+1 : end])
		if c == '&' {
			if s.anchors == nil {
				s.anchors = map[string]int{}
			}
			s.anchors[name] = item
			continue
		}
		k, ok := s.anchors[name]
		switch {
		case !ok || k == item:
		case item-k > maxAliasSpan:
			s.decline("an alias to an anchor more than %d items before it", maxAliasSpan)
			return
		default:
			for j := k; j < item; j++ {
				s.join(j)
			}
		}
	}
}

// join records that item i is parsed with the item after it.
func (s *lineSplitter) join(i int) {
	if s.joined == nil {
		s.joined = map[int]bool{}
	}
	s.joined[i] = true
}

// endItems is called after the last item: comments after it go to the
// skeleton. Only at column 0: the parser attaches an indented one to the
// last item when a top-level key follows.
func (s *lineSplitter) endItems() {
	s.endItem(false)
	switch {
	case s.gapIndented:
		s.decline("a comment after the last item that is not at column 0")
	case s.gapComment && s.gapUnbroken:
		// The parser attaches a comment at the end of the input to the
		// last item when no line break ends it.
		s.decline("a comment after the last item with no line break after it")
	}
	if s.gapComment {
		s.suffix.Write(s.gap.Bytes())
		s.movedLines = s.gapLines
	}
	s.gap.Reset()
}

// end is called at the end of the input.
func (s *lineSplitter) end() {
	if s.section == inItems {
		s.endItems()
	}
	if s.section == beforeItems {
		s.decline("no items key at column 0")
	}
}

// layout returns the split, or why there is none.
func (s *lineSplitter) layout() (*Layout, string) {
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
	l := &Layout{Skeleton: skeleton.Bytes(), ItemsLine: s.itemsLine, Marked: s.marked, dash: s.dash, follow: s.follow, joined: s.joined}
	if s.nextKey {
		// The items took the lines between the items key and the next one,
		// but for the comments after the last item, which the skeleton kept.
		l.NextKeyLine = s.itemsLine + 1 + s.movedLines
	}
	itemsEnd := s.offset - int64(s.suffix.Len())
	for i, start := range s.starts {
		end := itemsEnd
		if i+1 < len(s.starts) {
			end = s.starts[i+1]
		}
		l.items = append(l.items, span{start, end})
	}
	return l, ""
}
