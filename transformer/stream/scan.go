package stream

import (
	"bytes"
	"unicode/utf8"
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
// digits and "_./-"; values that are plain or quoted scalars on their
// line (plain ones may go on, indented, on the next lines), block scalars
// ("|", ">", with a chomping indicator) or the block mappings and
// sequences under them; comments; spaces for indentation; printable
// characters. It gives the top-level apiVersion and kind, each a plain
// word, and checks what every item is checked for: no mapping holds a key
// twice, and metadata, when present and not null, is a mapping. Anything
// else (an anchor, an alias, a tag, a flow collection, a quoted key, a
// scalar quoted over several lines, a duplicate key, a bad indentation) is
// not ok: the document must be parsed.
func Scan(body []byte) (Scanned, bool) {
	if !printable(body) {
		return Scanned{}, false
	}
	s := scanner{ok: true, open: -1, inside: -1, frames: make([]frame, 0, 8)}
	for len(body) > 0 && s.ok {
		n := bytes.IndexByte(body, '\n') + 1
		if n == 0 {
			n = len(body)
		}
		s.line(bytes.TrimSuffix(bytes.TrimSuffix(body[:n], []byte("\n")), []byte("\r")))
		body = body[n:]
	}
	if !s.ok || s.kinds != 1 || s.apiVersions != 1 || s.kind == "" || s.apiVersion == "" {
		return Scanned{}, false
	}
	return Scanned{APIVersion: s.apiVersion, Kind: s.kind}, true
}

// printable reports whether text holds only what YAML allows in a stream
// and no line break but LF and CRLF.
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
		if r == utf8.RuneError || r != 0x85 && r < 0xa0 || r >= 0xd800 && r < 0xe000 || r == 0xfffe || r == 0xffff {
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
	ok     bool
	frames []frame
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
	// stopWord: the plain scalar is the top-level apiVersion or kind,
	// which may not go on.
	stopWord bool

	apiVersion, kind   string
	apiVersions, kinds int
}

func (s *scanner) line(line []byte) {
	content := bytes.TrimLeft(line, " ")
	col := len(line) - len(content)
	if s.inside >= 0 {
		if s.continues(col, content) {
			return
		}
		s.inside = -1
	}
	if len(bytes.TrimSpace(content)) == 0 || content[0] == '#' {
		return
	}
	if content[0] == '-' && (len(content) == 1 || content[1] == ' ') {
		s.dash(col, content)
		return
	}
	s.key(col, content)
}

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
			return true
		case col <= s.inside:
			return false
		case s.blockStart == 0:
			s.blockStart = col
			s.ok = s.ok && s.blankMax <= col
		case col < s.blockStart:
			s.ok = false
		}
		return true
	}
	switch {
	case blank:
		return true
	case col <= s.inside:
		return false
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
	switch {
	case len(rest) == 0 || rest[0] == '#':
		s.open, s.openDash = col, true
	case rest[0] == '-':
		s.ok = false
	default:
		if _, _, isKey := splitKey(rest); isKey {
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
	name, value, isKey := splitKey(content)
	open := s.open
	s.open, s.openMeta = -1, false
	if !isKey || len(name) > 1000 {
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
		s.open, s.openDash, s.openMeta = col, false, topLevel && string(name) == "metadata"
		return
	}
	if topLevel && string(name) == "metadata" {
		s.ok = false // a scalar: checkItem refuses it
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
		if rest := bytes.TrimLeft(header, " \t"); len(rest) > 0 && (rest[0] != '#' || len(rest) == len(header)) {
			s.ok = false // an indentation indicator, or text after the header
			return
		}
		s.inside, s.block, s.blockStart, s.blankMax = col, true, 0, 0
	case '"', '\'':
		s.ok = s.ok && quotedOnLine(value)
	case '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '%', '@', '`':
		if value[0] != '-' || len(value) == 1 || value[1] == ' ' || value[1] == '\t' {
			s.ok = false
			return
		}
		fallthrough
	default:
		text := value
		if i := commentStart(text); i >= 0 {
			text = text[:i]
		}
		text = bytes.TrimRight(text, " \t")
		if bytes.Contains(text, []byte(": ")) || bytes.Contains(text, []byte(":\t")) || bytes.HasSuffix(text, []byte(":")) {
			s.ok = false
			return
		}
		s.inside, s.block, s.stopWord = col, false, word
	}
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

// quotedOnLine reports whether a quoted scalar ends on its line, with
// nothing after it but blanks and a comment.
func quotedOnLine(value []byte) bool {
	q := value[0]
	i := 1
	for ; i < len(value); i++ {
		c := value[i]
		if q == '"' && c == '\\' {
			n := escapeLen(value[i+1:])
			if n == 0 {
				return false
			}
			i += n
			continue
		}
		if c == q {
			if q == '\'' && i+1 < len(value) && value[i+1] == '\'' {
				i++
				continue
			}
			break
		}
	}
	if i >= len(value) {
		return false
	}
	rest := value[i+1:]
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
		if bytes.IndexByte([]byte("0abt\tnvfre \"/\\N_LP"), text[0]) < 0 {
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
	for i < len(line) && isWordByte(line[i]) {
		i++
	}
	if i == 0 || i == len(line) || line[i] != ':' || line[0] == '-' || line[0] == '.' {
		return nil, nil, false
	}
	rest := line[i+1:]
	if len(rest) > 0 && rest[0] != ' ' && rest[0] != '\t' {
		return nil, nil, false
	}
	return line[:i], bytes.TrimSpace(rest), true
}

// plainWord is a value that is one plain word of letters, digits and
// "_./-", with a comment or nothing after it, or "".
func plainWord(value []byte) string {
	i := 0
	for i < len(value) && isWordByte(value[i]) {
		i++
	}
	rest := bytes.TrimLeft(value[i:], " \t")
	if i == 0 || value[0] == '-' || value[0] == '.' || len(rest) > 0 && (rest[0] != '#' || len(rest) == len(value[i:])) {
		return ""
	}
	return string(value[:i])
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '/' || c == '-'
}
