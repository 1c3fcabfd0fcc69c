package elide

import (
	"bytes"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
)

// region is a block collection in an item's text: the lines [from, to)
// hold it, and its keys, or its entries' "-", sit at col.
type region struct {
	from, to, col int
}

// lineEnd is the offset just past the line break of the line at i, or the
// text's end.
func lineEnd(text []byte, i int) int {
	if n := bytes.IndexByte(text[i:], '\n'); n >= 0 {
		return i + n + 1
	}
	return len(text)
}

// indent is the number of spaces the line at i starts with.
func indent(text []byte, i int) int {
	n := 0
	for i+n < len(text) && text[i+n] == ' ' {
		n++
	}
	return n
}

// blank reports whether the line at i has nothing on it: ItemText writes
// such a line only inside a literal block scalar.
func blank(text []byte, i int) bool { return text[i] == '\n' }

// dashAt reports whether the text at i is a sequence entry's "- ".
func dashAt(text []byte, i int) bool {
	return i+1 < len(text) && text[i] == '-' && text[i+1] == ' '
}

// keyAt reads the line at i as a mapping key at col: the key at col
// itself, or after the "- " at col-2 that opens a sequence entry whose
// mapping's first key it is. It returns the key and what follows its ": "
// up to the line break (empty for a block value on the lines under it).
func keyAt(text []byte, i, col int) (key, rest []byte, ok bool) {
	ind := indent(text, i)
	switch {
	case ind == col && !dashAt(text, i+ind):
	case ind == col-2 && dashAt(text, i+ind):
	default:
		return nil, nil, false
	}
	line := text[i+col : lineEnd(text, i)]
	line = bytes.TrimSuffix(line, []byte("\n"))
	n := 0
	for n < len(line) && tree.WordByte(line[n]) {
		n++
	}
	if n == 0 || n == len(line) || line[n] != ':' {
		return nil, nil, false
	}
	rest = line[n+1:]
	switch {
	case len(rest) == 0:
	case len(rest) > 1 && rest[0] == ' ':
		rest = rest[1:]
	default:
		return nil, nil, false
	}
	return line[:n], rest, true
}

// blockEnd is where the block value that starts on the line at from, under
// a key at col, ends, at to at the latest: at the first line that is
// neither blank, more indented than col, nor a sequence entry at col (a
// sequence sits at its key's column).
func blockEnd(text []byte, from, to, col int) int {
	i := from
	for i < to {
		if !blank(text, i) {
			ind := indent(text, i)
			if ind < col || ind == col && !dashAt(text, i+ind) {
				return i
			}
		}
		i = lineEnd(text, i)
	}
	return to
}

// lookup finds the key in the mapping r and returns the lines of its block
// value, or, for a value on the key's line, that value.
func lookup(text []byte, r region, key string) (value region, rest []byte, ok bool) {
	for i := r.from; i < r.to; i = lineEnd(text, i) {
		k, rest, isKey := keyAt(text, i, r.col)
		if !isKey || string(k) != key {
			continue
		}
		from := lineEnd(text, i)
		if len(rest) > 0 {
			return region{from: from, to: from, col: r.col}, rest, true
		}
		return region{from: from, to: blockEnd(text, from, r.to, r.col), col: r.col}, nil, true
	}
	return region{}, nil, false
}

// mapping is the block mapping the value holds, its keys two columns
// under the key's, or false.
func mapping(text []byte, value region) (region, bool) {
	if value.from == value.to {
		return region{}, false
	}
	col := value.col + 2
	if _, _, ok := keyAt(text, value.from, col); !ok || indent(text, value.from) != col {
		return region{}, false
	}
	return region{from: value.from, to: value.to, col: col}, true
}

// entries are the mappings of a block sequence value at its key's
// column; ok is false when the value is not such a sequence. An entry
// that is not a mapping (its "- " has no key after it) is left out.
func entries(text []byte, value region) (out []region, ok bool) {
	if value.from == value.to || indent(text, value.from) != value.col || !dashAt(text, value.from+value.col) {
		return nil, false
	}
	start := -1
	for i := value.from; i < value.to; i = lineEnd(text, i) {
		if blank(text, i) || indent(text, i) != value.col || !dashAt(text, i+value.col) {
			continue
		}
		if start >= 0 {
			out = appendEntry(text, out, region{from: start, to: i, col: value.col + 2})
		}
		start = i
	}
	return appendEntry(text, out, region{from: start, to: value.to, col: value.col + 2}), true
}

// appendEntry appends a sequence entry that is a mapping.
func appendEntry(text []byte, out []region, entry region) []region {
	if _, _, ok := keyAt(text, entry.from, entry.col); !ok {
		return out
	}
	return append(out, entry)
}

// scalar is the value of a scalar written on its key's line as ItemText
// writes one (plain, or quoted without escapes), as the parser reads it;
// false for anything else.
func scalar(rest []byte) (string, bool) {
	if len(rest) == 0 {
		return "", false
	}
	switch rest[0] {
	case '|', '>', '[', '{', '&', '*', '!':
		return "", false
	case '"':
		if len(rest) < 2 || rest[len(rest)-1] != '"' || bytes.IndexByte(rest, '\\') >= 0 {
			return "", false
		}
		return string(rest[1 : len(rest)-1]), true
	case '\'':
		if len(rest) < 2 || rest[len(rest)-1] != '\'' {
			return "", false
		}
		return string(bytes.ReplaceAll(rest[1:len(rest)-1], []byte("''"), []byte("'"))), true
	}
	return string(rest), true
}
