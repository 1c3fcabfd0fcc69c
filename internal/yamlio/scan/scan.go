// Package scan reads what a run needs of a YAML document or ResourceList
// item (its apiVersion and kind, whether it is already as the writer writes
// it) from its lines, without a parse; it answers only where it decides as
// the parser does, and declines everything else.
package scan

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
)

// Scanned is what Scan reads of a document: its top-level apiVersion and
// kind.
type Scanned struct {
	APIVersion, Kind string
}

// maxScanDepth is the nesting Scan follows; deeper documents are parsed.
const maxScanDepth = 64

// Scan reads a document's body (see Documents) without building a node
// tree, for a driver that writes a document it does not read as it came.
// It answers (ok) only for text in a subset of block YAML that it reads
// the way the parser does: a block mapping at column 0; keys of letters,
// digits and "_./-", and below the top level keys in quotes (see
// splitAnyKey); values that are plain or quoted scalars starting on their
// line (both may go on, indented, on the next lines: see quotedLine),
// block scalars ("|", ">", with a chomping indicator) or the block
// mappings and sequences under them; flow collections on one line as the
// writer writes them (see flowCollection), on their key's line or the next,
// but as the top-level metadata; comments; spaces for indentation;
// printable characters. It gives the top-level apiVersion and kind, each a
// plain word, and checks what every item is checked for: no mapping holds
// a key twice, and metadata, when present and not null, is a mapping.
// Anything else (an anchor, an alias, a tag, another flow collection,
// another quoted key, a duplicate key, a bad indentation) is not ok: the
// document must be parsed.
func Scan(body []byte) (Scanned, bool) {
	if !printable(body) {
		return Scanned{}, false
	}
	return scan(body, false)
}

// ScanItem is Scan for the text of a ResourceList item as Input.Item gives
// it in a YAML list: a "- " line at column 0 and the lines under it, two
// spaces more indented. It answers only for text that is already what
// ItemText writes for the item it parses to, so that the text can be
// written in its place: printable UTF-8 with no byte order mark, LF line
// breaks, no comment but the lines right before a key or an entry at its
// column (see headComment) and those before the first key, no blank line
// but in a literal block scalar, no blank at the end of a line, one space
// after every ":" and "-", mappings two spaces under their key and
// sequences at their key's column, no null written as nothing, literal
// block scalars ("|", "|-") two spaces under their key with no blank line
// first or last, or with the indentation indicator the writer writes for
// a value that starts with a space or a line break ("|2", "|2-"), quoted
// scalars with no escape but those the writer writes (see writerEscapes), no plain "<<" (the merge
// tag, which ItemText writes "!!merge <<"), keys of at most 128
// characters, and an annotations key only with a mapping with entries
// under it (ItemText drops metadata.annotations of any other value). It
// also reads "{}" and "[]", an empty mapping and sequence, as a whole
// value, the flow collections Scan reads, which the writer writes as they
// came (kio.ByteWriter keeps flow style), and comment lines before the
// first key, the first after the "- " (the "# Source:" line of a rendered
// chart, as kio.ByteWriter writes it).
func ScanItem(text []byte) (Scanned, bool) {
	if !bytes.HasPrefix(text, []byte("- ")) || !bytes.HasSuffix(text, []byte("\n")) || bytes.Contains(text, []byte(" \n")) {
		return Scanned{}, false
	}
	ascii := true
	for _, c := range text {
		if c < 0x20 && c != '\n' || c == 0x7f {
			return Scanned{}, false
		}
		ascii = ascii && c < utf8.RuneSelf
	}
	if !ascii && (!printable(text) || bytes.Contains(text, []byte("\uFEFF"))) {
		return Scanned{}, false // the writer escapes a byte order mark
	}
	return scan(text, true)
}

// scan is Scan on printable text, and with canonical set ScanItem on an
// item's text, each of whose lines it reads without the item's "- " or
// two spaces, in place.
func scan(body []byte, canonical bool) (Scanned, bool) {
	s := scanner{ok: true, canonical: canonical, lead: true, open: -1, inside: -1, comment: -1, frames: make([]frame, 0, 8)}
	for first := true; len(body) > 0 && s.ok; first = false {
		n := bytes.IndexByte(body, '\n') + 1
		if n == 0 {
			n = len(body)
		}
		line := bytes.TrimSuffix(bytes.TrimSuffix(body[:n], []byte("\n")), []byte("\r"))
		body = body[n:]
		if canonical {
			switch {
			case first:
				line = line[2:]
			case len(line) == 0:
			case bytes.HasPrefix(line, []byte("  ")):
				line = line[2:]
			default:
				return Scanned{}, false
			}
		}
		s.line(line)
	}
	if s.quoted != 0 || s.canonical && (s.open >= 0 || s.comment >= 0 || s.inside >= 0 && s.block && !s.blockEnds()) {
		return Scanned{}, false // a quote not closed: the parser's error
	}
	if !s.ok || s.kinds != 1 || s.apiVersions != 1 || s.kind == "" || s.apiVersion == "" {
		return Scanned{}, false
	}
	return Scanned{APIVersion: s.apiVersion, Kind: s.kind}, true
}

// printable reports whether text holds only what YAML allows in a stream
// and no line break but LF and CRLF: no lone CR, NEL (U+0085), LS (U+2028)
// or PS (U+2029), at which the parser breaks a line wherever they are.
func printable(text []byte) bool {
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\r' && (i+1 == len(text) || text[i+1] != '\n'):
				return false
			case c < 0x20 && c != '\t' && c != '\n' && c != '\r', c == 0x7f:
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(text[i:])
		if r == utf8.RuneError || r < 0xa0 || r == 0x2028 || r == 0x2029 || r >= 0xd800 && r < 0xe000 || r == 0xfffe || r == 0xffff {
			return false
		}
		i += size
	}
	return true
}

// frame is one open block collection: a mapping with its keys, or a
// sequence, at a column.
type frame struct {
	col  int
	seq  bool
	keys map[string]bool
}

// scanner is Scan's state between lines.
type scanner struct {
	ok bool
	// canonical: see ScanItem.
	canonical bool
	// lead is set until the first line that is not a comment: the comment
	// lines of an item before its first key.
	lead bool
	// blockBlank: the last line of the block scalar was blank.
	blockBlank bool
	frames     []frame
	// open is the column of a key with no value on its line, or of a "-"
	// with nothing after it: a block collection may start on the next
	// line (openDash: after a "-"). It is -1 when none is open.
	open     int
	openDash bool
	// openMeta: the open key is the top-level metadata.
	openMeta bool
	// inside is the column of the key or "-" whose multi-line scalar the
	// next lines may continue: more indented lines belong to it. It is -1
	// outside one; block is set for a block scalar, whose content lines
	// are not read, plain for a plain scalar.
	inside     int
	block      bool
	blockStart int // the first content line's indentation, 0 before it
	blankMax   int // the most spaces of a blank line before it
	// hinted: the block scalar has the writer's indentation indicator
	// ("|2", "|2-"), which it writes for a value that starts with a space.
	hinted bool
	// hintFirst: no line of the hinted block scalar was read yet; the
	// first must be blank or start with a space.
	hintFirst bool
	// stopWord: the plain scalar may not go on: the top-level apiVersion
	// or kind, or a scalar a comment ends.
	stopWord bool
	// comment is the column of the comment lines before the current line
	// (ScanItem only: see line), -1 when there are none.
	comment int
	// quoted is the quote of a quoted scalar that goes on past its line
	// (Scan only: ItemText writes every scalar on one line), 0 outside
	// one; inside is the column of its key or "-".
	quoted byte

	apiVersion, kind   string
	apiVersions, kinds int
}

func (s *scanner) line(line []byte) {
	if s.quoted != 0 {
		s.quotedLine(line)
		return
	}
	content := bytes.TrimLeft(line, " ")
	col := len(line) - len(content)
	if s.canonical && len(line) > 0 && line[len(line)-1] == ' ' ||
		len(content) > 0 && content[0] == '\t' && !(s.inside >= 0 && s.block && s.blockStart > 0 && col >= s.blockStart) {
		s.ok = false // a tab in the indentation: parsed
		return
	}
	afterBlock := false
	if s.inside >= 0 {
		if s.continues(col, content) {
			return
		}
		if s.canonical && s.block && !s.blockEnds() {
			s.ok = false
			return
		}
		s.inside, afterBlock = -1, s.block
	}
	if len(bytes.TrimSpace(content)) == 0 || content[0] == '#' {
		s.ok = s.ok && (!s.canonical || len(content) > 0 && content[0] == '#' && (s.lead && col == 0 || s.headComment(col, afterBlock)))
		return
	}
	if s.canonical && s.comment >= 0 && s.comment != col {
		s.ok = false // comments that are not the head of the key or entry after them
		return
	}
	s.lead, s.comment = false, -1
	dash := content[0] == '-' && (len(content) == 1 || content[1] == ' ')
	if s.canonical && s.open >= 0 && !s.openDash && !(col == s.open+2 && !dash || col == s.open && dash) {
		s.ok = false // a null written as nothing, or not where ItemText puts what is under a key
		return
	}
	if dash {
		s.dash(col, content)
		return
	}
	if !s.canonical && s.open >= 0 && col > s.open && (content[0] == '{' || content[0] == '[') {
		s.flowLine(content)
		return
	}
	s.key(col, content)
}

// flowLine takes a flow collection on the line under an open key or "-",
// as its value: "key:" then "  {}" on the next line (Scan only).
func (s *scanner) flowLine(content []byte) {
	s.ok = s.ok && !s.openMeta && flowCollection(bytes.TrimRight(content, " "))
	s.open, s.openMeta = -1, false
}

// quotedLine takes a line of a quoted scalar that started on an earlier
// line. The parser reads any indentation there; the scan reads lines
// more indented than the scalar's key or "-" with no tab, and declines
// a document marker (which the parser refuses inside a scalar), an
// escape it does not read (a "\" that ends the line among them) and
// anything after the closing quote but a comment.
func (s *scanner) quotedLine(line []byte) {
	content := bytes.TrimLeft(line, " ")
	if len(content) == 0 {
		return // a blank line: a line break in the value
	}
	if len(line)-len(content) <= s.inside || bytes.IndexByte(line, '\t') >= 0 {
		s.ok = false
		return
	}
	end, ok := quotedRun(content, s.quoted)
	switch {
	case !ok:
		s.ok = false
	case end >= 0:
		s.ok = s.ok && commentOnly(content[end+1:])
		s.quoted, s.inside = 0, -1
	}
}

// headComment takes a comment line at col in an item's text (ScanItem),
// after its first key: the writer writes it as it came when it is one of
// the lines right before a key or entry at its column, which the parser
// makes that node's head comment, and not right after a block scalar.
func (s *scanner) headComment(col int, afterBlock bool) bool {
	if s.lead || afterBlock || s.comment >= 0 && s.comment != col {
		return false
	}
	s.comment = col
	return true
}

// blockEnds reports whether the block scalar that ends here is as
// ItemText writes it: some content, no blank line last.
func (s *scanner) blockEnds() bool { return s.blockStart > 0 && !s.blockBlank && !s.hintFirst }

// continues reports whether a line at col belongs to the multi-line
// scalar the scanner is inside, and checks it.
func (s *scanner) continues(col int, content []byte) bool {
	blank := len(bytes.TrimRight(content, " \t")) == 0
	if s.block {
		switch {
		case blank:
			if s.blockStart == 0 && col > s.blankMax {
				s.blankMax = col
			}
			s.blockBlank, s.hintFirst = true, false
			s.ok = s.ok && !(s.canonical && s.blockStart == 0) && bytes.IndexByte(content, '\t') < 0
			return true
		case col <= s.inside:
			return false
		case s.hinted && s.hintFirst:
			s.ok = s.ok && col > s.blockStart && content[0] != '\t'
			s.hintFirst = false
		case s.blockStart == 0:
			s.blockStart = col
			s.ok = s.ok && s.blankMax <= col && content[0] != '\t' && !(s.canonical && col != s.inside+2)
		case col < s.blockStart:
			s.ok = false
		}
		s.blockBlank = false
		return true
	}
	switch {
	case blank:
		s.ok = s.ok && !s.canonical
		return true
	case col <= s.inside:
		return false
	case s.canonical:
		s.ok = false // ItemText writes a plain scalar on one line
		return true
	}
	// A more indented line goes on with the plain scalar: it must not
	// read as anything else.
	if s.stopWord || bytes.IndexByte([]byte("#-?:\t"), content[0]) >= 0 || bytes.Contains(content, []byte(": ")) ||
		bytes.Contains(content, []byte(":\t")) || bytes.HasSuffix(content, []byte(":")) ||
		bytes.Contains(content, []byte(" #")) || bytes.Contains(content, []byte("\t#")) {
		s.ok = false
	}
	return true
}

// pop closes the collections more indented than col, and a sequence at
// col when the key at col continues the mapping it is in.
func (s *scanner) pop(col int, key bool) {
	for len(s.frames) > 0 {
		top := s.frames[len(s.frames)-1]
		if top.col > col || key && top.seq && top.col == col && len(s.frames) > 1 && s.frames[len(s.frames)-2].col == col {
			s.frames = s.frames[:len(s.frames)-1]
			continue
		}
		return
	}
}

// dash takes a sequence entry at col.
func (s *scanner) dash(col int, content []byte) {
	open, openDash, openMeta := s.open, s.openDash, s.openMeta
	s.open, s.openMeta = -1, false
	s.pop(col, false)
	top := len(s.frames) - 1
	switch {
	case top >= 0 && s.frames[top].seq && s.frames[top].col == col:
	case open >= 0 && !openMeta && (col > open || col == open && !openDash) && len(s.frames) < maxScanDepth:
		s.frames = append(s.frames, frame{col: col, seq: true})
	default:
		s.ok = false
		return
	}
	rest := bytes.TrimLeft(content[1:], " ")
	restCol := col + len(content) - len(rest)
	if s.canonical && (len(rest) == 0 || rest[0] == '#' || restCol != col+2) {
		s.ok = false
		return
	}
	switch {
	case len(rest) == 0 || rest[0] == '#':
		s.open, s.openDash = col, true
	case rest[0] == '\t', rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ' || rest[1] == '\t'):
		s.ok = false // a tab, or a sequence in the entry
	default:
		if _, _, _, isKey := splitAnyKey(rest, restCol); isKey {
			if len(s.frames) >= maxScanDepth {
				s.ok = false
				return
			}
			s.frames = append(s.frames, frame{col: restCol, keys: make(map[string]bool, 8)})
			s.key(restCol, rest) // the first key of the entry's mapping
			return
		}
		s.value(col, rest, false)
	}
}

// key takes a mapping key at col, with what follows it.
func (s *scanner) key(col int, content []byte) {
	name, raw, value, isKey := splitAnyKey(content, col)
	open := s.open
	s.open, s.openMeta = -1, false
	if !isKey || len(name) > 1000 || s.canonical && (len(name) > 128 || !oneSpaceAfter(content[raw+1:])) {
		s.ok = false
		return
	}
	s.pop(col, true)
	top := len(s.frames) - 1
	switch {
	case top >= 0 && !s.frames[top].seq && s.frames[top].col == col:
	case (top < 0 && col == 0 || open >= 0 && col > open) && len(s.frames) < maxScanDepth:
		s.frames = append(s.frames, frame{col: col, keys: make(map[string]bool, 8)})
		top++
	default:
		s.ok = false
		return
	}
	keys := s.frames[top].keys
	if keys[string(name)] {
		s.ok = false // a duplicate key: the parse reports it
		return
	}
	keys[string(name)] = true
	topLevel := top == 0
	if len(value) == 0 || value[0] == '#' {
		s.ok = s.ok && !(s.canonical && len(value) > 0)
		s.open, s.openDash, s.openMeta = col, false, topLevel && string(name) == "metadata"
		return
	}
	if topLevel && string(name) == "metadata" {
		s.ok = false // a scalar, which checkItem refuses, or {}, which ItemText drops
		return
	}
	if s.canonical && string(name) == "annotations" && (value[0] != '{' || string(value) == "{}") {
		s.ok = false // ItemText drops metadata.annotations but a mapping or sequence with entries
		return
	}
	word := topLevel && (string(name) == "kind" || string(name) == "apiVersion")
	s.value(col, value, word)
	if word && s.ok {
		w := plainWord(value)
		if string(name) == "kind" {
			s.kind, s.kinds = w, s.kinds+1
		} else {
			s.apiVersion, s.apiVersions = w, s.apiVersions+1
		}
	}
}

// value takes a scalar value on the line of its key or "-" at col.
func (s *scanner) value(col int, value []byte, word bool) {
	switch value[0] {
	case '|', '>':
		header := value[1:]
		if len(header) > 0 && (header[0] == '-' || header[0] == '+') {
			header = header[1:]
		}
		if s.canonical && len(header) > 0 && header[0] == '2' && value[0] == '|' {
			header = header[1:] // the writer's indentation indicator: see hinted
			if len(header) > 0 && header[0] == '-' {
				header = header[1:]
			}
		}
		if rest := bytes.TrimLeft(header, " \t"); len(rest) > 0 && (rest[0] != '#' || len(rest) == len(header)) {
			s.ok = false // an indentation indicator, or text after the header
			return
		}
		hinted := s.canonical && (string(value) == "|2" || string(value) == "|2-")
		if s.canonical && string(value) != "|" && string(value) != "|-" && !hinted {
			s.ok = false
			return
		}
		s.inside, s.block, s.blockStart, s.blankMax, s.blockBlank, s.hinted, s.hintFirst = col, true, 0, 0, false, hinted, hinted
		if hinted {
			s.blockStart = col + 2
		}
	case '"', '\'':
		if end, ok := quotedRun(value[1:], value[0]); ok && end < 0 && !s.canonical && !word {
			s.inside, s.quoted = col, value[0] // it goes on: see quotedLine
			return
		}
		end := quotedEnd(value)
		s.ok = s.ok && end > 0 && !(s.canonical && (end != len(value)-1 || value[0] == '"' && !writerEscapes(value[1:end])))
	case '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '%', '@', '`':
		if s.canonical && (string(value) == "{}" || string(value) == "[]") {
			return // an empty mapping or sequence, which ItemText writes so
		}
		if (value[0] == '{' || value[0] == '[') && flowCollection(value) {
			return
		}
		if value[0] != '-' || len(value) == 1 || value[1] == ' ' || value[1] == '\t' {
			s.ok = false
			return
		}
		fallthrough
	default:
		text, ends := value, word
		if i := commentStart(text); i >= 0 {
			text, ends = text[:i], true // a comment ends the scalar
			s.ok = s.ok && !s.canonical
		}
		if s.canonical && (bytes.HasPrefix(text, []byte("---")) || bytes.HasPrefix(text, []byte("..."))) {
			s.ok = false // a document marker: ItemText quotes it
			return
		}
		text = bytes.TrimRight(text, " \t")
		if s.canonical && string(text) == "<<" {
			s.ok = false // the merge tag, which ItemText writes "!!merge <<"
			return
		}
		if bytes.Contains(text, []byte(": ")) || bytes.Contains(text, []byte(":\t")) || bytes.HasSuffix(text, []byte(":")) {
			s.ok = false
			return
		}
		s.inside, s.block, s.stopWord = col, false, ends
	}
}

// writerEscapes reports whether the text of a double-quoted scalar, of
// printable ASCII, holds only escapes the writer writes for the
// character they stand for: "\n", "\"", "\\" and the other one-letter
// escapes of control characters, "\xHH" in capitals for the others. The
// writer writes every other character as it is (it folds no line).
func writerEscapes(text []byte) bool {
	for i := 0; i < len(text); i++ {
		if text[i] != '\\' {
			continue
		}
		if i+1 == len(text) {
			return false
		}
		i++
		switch c := text[i]; c {
		case '0', 'a', 'b', 't', 'n', 'v', 'f', 'r', 'e', '"', '\\':
		case 'x':
			if i+2 >= len(text) {
				return false
			}
			v, ok := upperHex(text[i+1 : i+3])
			if !ok || v >= 0x20 && v != 0x7f || bytes.IndexByte([]byte{0, 7, 8, 9, 10, 11, 12, 13, 0x1b}, v) >= 0 {
				return false
			}
			i += 2
		default:
			return false
		}
	}
	return true
}

// upperHex is the byte two hex digits in capitals write, or false.
func upperHex(d []byte) (byte, bool) {
	var v byte
	for _, c := range d {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | (c - '0')
		case c >= 'A' && c <= 'F':
			v = v<<4 | (c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return v, true
}

// oneSpaceAfter reports whether what follows a key's ":" is nothing, or one
// space and a value.
func oneSpaceAfter(rest []byte) bool {
	return len(rest) == 0 || len(rest) > 1 && rest[0] == ' ' && rest[1] != ' '
}

// commentStart is where a comment starts in a plain scalar's line: at a
// "#" after a blank, or -1.
func commentStart(text []byte) int {
	for i := 1; i < len(text); i++ {
		if text[i] == '#' && (text[i-1] == ' ' || text[i-1] == '\t') {
			return i
		}
	}
	return -1
}

// quotedEnd is where a quoted scalar that ends on its line ends, with
// nothing after it but blanks and a comment, or -1.
func quotedEnd(value []byte) int {
	end, ok := quotedRun(value[1:], value[0])
	if !ok || end < 0 || !commentOnly(value[end+2:]) {
		return -1
	}
	return end + 1
}

// quotedRun reads text inside a scalar quoted with q up to its closing
// quote and returns where that is, or -1 when the line ends first; ok is
// false at an escape escapeLen does not read.
func quotedRun(text []byte, q byte) (end int, ok bool) {
	for i := 0; i < len(text); i++ {
		c := text[i]
		if q == '"' && c == '\\' {
			n := escapeLen(text[i+1:])
			if n == 0 {
				return -1, false
			}
			i += n
			continue
		}
		if c == q {
			if q == '\'' && i+1 < len(text) && text[i+1] == '\'' {
				i++
				continue
			}
			return i, true
		}
	}
	return -1, true
}

// commentOnly reports whether what follows a closing quote on its line is
// nothing, blanks, or a comment after a blank.
func commentOnly(rest []byte) bool {
	trimmed := bytes.TrimLeft(rest, " \t")
	return len(trimmed) == 0 || trimmed[0] == '#' && len(trimmed) < len(rest)
}

// escapeLen is the length of a double-quoted scalar's escape after its
// backslash, or 0 for one the parser refuses or one that ends the line.
func escapeLen(text []byte) int {
	if len(text) == 0 {
		return 0
	}
	digits := map[byte]int{'x': 2}[text[0]] // \u and \U may name what is no character: parsed
	if digits == 0 {
		if bytes.IndexByte([]byte("0abt\tnvfre \"\\N_LP"), text[0]) < 0 {
			return 0
		}
		return 1
	}
	if len(text) <= digits {
		return 0
	}
	for _, c := range text[1 : 1+digits] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return 0
		}
	}
	return 1 + digits
}

// splitKey splits a line that starts with a plain key of letters, digits
// and "_./-" followed by ":" and a blank or the end of the line into the
// key and what follows it, without the blanks around it.
func splitKey(line []byte) (key, value []byte, ok bool) {
	i := 0
	for i < len(line) && tree.WordByte(line[i]) {
		i++
	}
	if i == 0 || i == len(line) || line[i] != ':' || line[0] == '-' || line[0] == '.' {
		return nil, nil, false
	}
	rest := line[i+1:]
	value = bytes.TrimLeft(rest, " ")
	if len(rest) > 0 && rest[0] != ' ' || len(value) > 0 && value[0] == '\t' {
		return nil, nil, false // a tab before the value: parsed
	}
	return line[:i], bytes.TrimRight(value, " \t"), true
}

// splitAnyKey is splitKey for a line at col that starts with a plain key,
// or, below the top level, with a key in quotes as the writer writes one:
// a double-quoted string of printable ASCII with no escape and no quote,
// or a single-quoted one that does not start or end with a space, of at
// most 100 characters, and none of the keys the scan reads or ItemText
// drops (kind, apiVersion, metadata, annotations), written plain. It also
// returns the length of the key's text, quotes included.
func splitAnyKey(line []byte, col int) (key []byte, raw int, value []byte, ok bool) {
	if key, value, ok = splitKey(line); ok || col == 0 || len(line) == 0 || line[0] != '"' && line[0] != '\'' {
		return key, len(key), value, ok
	}
	q := line[0]
	end := 1
	for ; end < len(line); end++ {
		if line[end] != q {
			continue
		}
		if q == '\'' && end+1 < len(line) && line[end+1] == '\'' {
			end++
			continue
		}
		break
	}
	if end >= len(line) || end+1 >= len(line) || line[end+1] != ':' {
		return nil, 0, nil, false
	}
	key = line[1:end]
	if q == '\'' {
		key = bytes.ReplaceAll(key, []byte("''"), []byte("'"))
	}
	rest := line[end+2:]
	value = bytes.TrimLeft(rest, " ")
	switch name := string(key); {
	case len(key) == 0 || len(key) > 100 || !tree.PrintableASCII(name),
		q == '"' && bytes.ContainsAny(key, `"\`),
		q == '\'' && (key[0] == ' ' || key[len(key)-1] == ' '),
		name == "kind" || name == "apiVersion" || name == "metadata" || name == "annotations",
		len(rest) > 0 && rest[0] != ' ' || len(value) > 0 && value[0] == '\t':
		return nil, 0, nil, false
	}
	return key, end + 1, bytes.TrimRight(value, " \t"), true
}

// plainWord is a value that is one plain word of letters, digits and
// "_./-", with a comment or nothing after it, or "".
func plainWord(value []byte) string {
	i := 0
	for i < len(value) && tree.WordByte(value[i]) {
		i++
	}
	rest := bytes.TrimLeft(value[i:], " \t")
	if i == 0 || value[0] == '-' || value[0] == '.' || len(rest) > 0 && (rest[0] != '#' || len(rest) == len(value[i:])) {
		return ""
	}
	return string(value[:i])
}

// flowCollection reports whether value is a flow mapping or sequence that
// opens and closes on its line, written as the writer writes one: "{k: v,
// k: v}" and "[v, v]", one space after every ":" and ",", none anywhere
// else; keys plain words the encoder writes as they are, each once in its
// mapping, never "annotations" with "{}" (which ItemText drops); values
// flow collections again, strings the encoder writes plain and as they are
// (with none of ",?[]{}:#"), decimal integers, true and false, and
// strings of printable ASCII in double quotes (with no escape) or single
// quotes. Such text parses to what it reads and encodes to itself; any
// other is parsed.
func flowCollection(value []byte) bool {
	rest, ok := flowNode(value, 0)
	return ok && len(rest) == 0
}

// flowNode reads one node of a flow collection (see flowCollection) at the
// start of text and returns the text after it.
func flowNode(text []byte, depth int) ([]byte, bool) {
	if len(text) == 0 {
		return nil, false
	}
	switch text[0] {
	case '{', '[':
		return flowEntries(text, depth)
	case '"':
		end := bytes.IndexByte(text[1:], '"') + 1
		if end == 0 || bytes.IndexByte(text[:end], '\\') >= 0 || !tree.PrintableASCII(string(text[1:end])) {
			return nil, false
		}
		return text[end+1:], true
	case '\'':
		i := 1
		for ; i < len(text); i++ {
			if text[i] == '\'' {
				if i+1 < len(text) && text[i+1] == '\'' {
					i++
					continue
				}
				break
			}
		}
		if i >= len(text) {
			return nil, false
		}
		v := text[1:i]
		if len(v) == 0 || v[0] == ' ' || v[len(v)-1] == ' ' || !tree.PrintableASCII(string(v)) {
			return nil, false
		}
		return text[i+1:], true
	}
	end := bytes.IndexAny(text, ",]}")
	if end < 0 {
		end = len(text)
	}
	v := string(text[:end])
	if strings.ContainsAny(v, ",?[]{}:#") || !(tree.PlainString(v) || Decimal(v) || v == "true" || v == "false") {
		return nil, false
	}
	return text[end:], true
}

// flowEntries reads a flow collection at the start of text, its entries
// at depth+1, and returns the text after it.
func flowEntries(text []byte, depth int) ([]byte, bool) {
	if depth >= maxScanDepth {
		return nil, false
	}
	mapping, end := text[0] == '{', byte(']')
	if mapping {
		end = '}'
	}
	text = text[1:]
	if len(text) > 0 && text[0] == end {
		return text[1:], true
	}
	var keys map[string]bool
	for {
		if mapping {
			i := 0
			for i < len(text) && tree.WordByte(text[i]) {
				i++
			}
			key := string(text[:i])
			if i == 0 || len(key) > 100 || !tree.PlainString(key) || !bytes.HasPrefix(text[i:], []byte(": ")) || keys[key] {
				return nil, false // not a plain key, or a duplicate: parsed
			}
			if keys == nil {
				keys = make(map[string]bool, 4)
			}
			keys[key] = true
			text = text[i+2:]
			if key == "annotations" && bytes.HasPrefix(text, []byte("{}")) {
				return nil, false
			}
		}
		var ok bool
		if text, ok = flowNode(text, depth+1); !ok || len(text) == 0 {
			return nil, false
		}
		switch {
		case text[0] == end:
			return text[1:], true
		case bytes.HasPrefix(text, []byte(", ")) && len(text) > 2 && text[2] != ' ':
			text = text[2:]
		default:
			return nil, false
		}
	}
}

// Decimal reports whether s is a decimal integer as YAML writes one: 0, or
// an optional minus and digits not starting with 0.
func Decimal(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	return strings.Trim(s, "0123456789") == ""
}
