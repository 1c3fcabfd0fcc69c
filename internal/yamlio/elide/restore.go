package elide

import (
	"bytes"
	"strconv"
)

// Restore puts the elided blocks back into the encoded text of the item
// Text parses to (after any edit): each line "<indent>[- ]<key>:
// <placeholder>" becomes "<indent>[- ]<key>:" and the block's lines,
// moved by the change of the key's column. It returns false, and nothing
// else, unless every placeholder is found exactly once, alone on its
// key's line, and the encoded text holds the placeholders' prefix nowhere
// else: the caller then parses the item's own text instead.
func (it *Item) Restore(encoded []byte) ([]byte, bool) {
	size := len(encoded)
	for _, b := range it.blocks {
		size += len(b.lines)
	}
	out := make([]byte, 0, size)
	seen := make([]bool, len(it.blocks))
	prev := 0
	for {
		n := bytes.Index(encoded[prev:], it.prefix)
		if n < 0 {
			break
		}
		at := prev + n
		i, next, ok := it.placeholder(encoded, at, seen)
		if !ok {
			return nil, false
		}
		b := it.blocks[i]
		start := bytes.LastIndexByte(encoded[:at], '\n') + 1
		col, ok := keyColumn(encoded[start:at], b.key)
		if !ok {
			return nil, false
		}
		seen[i] = true
		out = append(out, encoded[prev:at-1]...) // up to the key's ":"
		out = append(out, '\n')
		out = appendMoved(out, b.lines, col-b.col)
		prev = next
	}
	for _, s := range seen {
		if !s {
			return nil, false
		}
	}
	return append(out, encoded[prev:]...), true
}

// placeholder reads the placeholder at at: the index of a block not seen
// yet, and the offset past its line break.
func (it *Item) placeholder(encoded []byte, at int, seen []bool) (int, int, bool) {
	digits := at + len(it.prefix)
	end := digits
	for end < len(encoded) && encoded[end] >= '0' && encoded[end] <= '9' {
		end++
	}
	if end == digits || end == len(encoded) || encoded[end] != '\n' {
		return 0, 0, false
	}
	i, err := strconv.Atoi(string(encoded[digits:end]))
	if err != nil || i >= len(it.blocks) || seen[i] || strconv.Itoa(i) != string(encoded[digits:end]) {
		return 0, 0, false
	}
	return i, end + 1, true
}

// keyColumn reads the start of a line up to a placeholder, which must be
// the key and ": " after spaces, or after spaces and a "- ", and returns
// the key's column.
func keyColumn(line []byte, key string) (int, bool) {
	col := indent(line, 0)
	if dashAt(line, col) {
		col += 2
	}
	return col, string(line[col:]) == key+": "
}

// appendMoved appends lines, each moved right by delta columns (left for a
// negative delta); blank lines stay blank.
func appendMoved(out, lines []byte, delta int) []byte {
	if delta == 0 {
		return append(out, lines...)
	}
	for i := 0; i < len(lines); {
		end := lineEnd(lines, i)
		line := lines[i:end]
		switch {
		case line[0] == '\n':
		case delta > 0:
			out = append(out, bytes.Repeat([]byte(" "), delta)...)
		default:
			line = line[-delta:]
		}
		out = append(out, line...)
		i = end
	}
	return out
}
