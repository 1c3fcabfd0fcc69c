// Package elide lets the streaming path parse a large workload without the
// parts of it the run never reads. The node tree of a YAML text costs
// about twelve times the text, and in a large workload most of the text
// is in its application containers' environment, mounts and resources,
// which no edit, check or report reads. Reduce replaces each such block
// value in the item's text by a placeholder scalar on its key's line; the
// driver parses, edits and encodes the reduced text as it would the item;
// Restore puts the blocks back in the encoded text, where their keys are
// then.
//
// It works on text that scan.ScanItem accepts: text that is already
// what emit.ItemText writes for the item it parses to, so every block
// is written back as it was, moved by its key's change of column.
package elide

import (
	"bytes"
	"slices"
	"strconv"
)

// keys are the container fields whose block values Reduce elides: in a
// container the run cannot take for a sidecar, nothing reads them.
var keys = []string{"env", "envFrom", "resources", "securityContext", "volumeMounts"}

// Item is an item's text with some block values replaced by placeholders.
type Item struct {
	// Text is the item's text where each elided block value is a
	// placeholder, a plain scalar on its key's line.
	Text []byte
	// prefix starts every placeholder, which is prefix and the block's
	// index; the item's text does not hold it.
	prefix []byte
	blocks []block
}

// block is one elided block value.
type block struct {
	key string
	// col is the column of the key in the item's text.
	col int
	// at is where the value's lines start in the item's text.
	at int
	// lines are the value's lines in the item's text, with their line
	// breaks.
	lines []byte
}

// Elided is the number of block values elided.
func (it *Item) Elided() int { return len(it.blocks) }

// Reduce elides, in the text of an item that scan.ScanItem accepts, the
// block values of keys in every mapping entry of containers and
// initContainers of the pod spec at specPath, in each container whose
// name and image sidecar reports false. It returns false when it elides
// nothing: the pod spec or its container lists are not block collections
// where specPath says, no container has such a block value, or no
// placeholder could be found that the text does not hold, or the text may
// hold a key in quotes, which the lines read here do not see (a container's
// "image" among them). A container whose name or image is not a scalar on
// its key's line is left whole.
func Reduce(text []byte, specPath []string, sidecar func(name, image string) bool) (*Item, bool) {
	if quotedKey(text) {
		return nil, false
	}
	spec, ok := podSpec(text, specPath)
	if !ok {
		return nil, false
	}
	var blocks []block
	for _, field := range []string{"initContainers", "containers"} {
		value, rest, ok := lookup(text, spec, field)
		if !ok || len(rest) > 0 {
			continue
		}
		list, _ := entries(text, value)
		for _, c := range list {
			blocks = append(blocks, containerBlocks(text, c, sidecar)...)
		}
	}
	if len(blocks) == 0 {
		return nil, false
	}
	prefix, ok := placeholderPrefix(text)
	if !ok {
		return nil, false
	}
	slices.SortFunc(blocks, func(a, b block) int { return a.at - b.at })
	return &Item{Text: reduced(text, blocks, prefix), prefix: prefix, blocks: blocks}, true
}

// podSpec is the pod spec mapping at path in the item's top-level mapping,
// whose keys sit at column 2 (after the item's "- ").
func podSpec(text []byte, path []string) (region, bool) {
	m := region{from: 0, to: len(text), col: 2}
	if len(path) == 0 || !dashAt(text, 0) {
		return region{}, false
	}
	for _, key := range path {
		value, rest, ok := lookup(text, m, key)
		if !ok || len(rest) > 0 {
			return region{}, false
		}
		if m, ok = mapping(text, value); !ok {
			return region{}, false
		}
	}
	return m, true
}

// containerBlocks are the block values of keys in one container, unless
// sidecar says the run may take it for a sidecar, or its name or image is
// not a scalar on its key's line.
func containerBlocks(text []byte, c region, sidecar func(name, image string) bool) []block {
	var (
		name, image         string
		hasName, unreadable bool
		blocks              []block
	)
	for i := c.from; i < c.to; i = lineEnd(text, i) {
		key, rest, ok := keyAt(text, i, c.col)
		if !ok {
			continue
		}
		switch k := string(key); {
		case k == "name":
			name, hasName = scalar(rest)
			unreadable = unreadable || !hasName
		case k == "image":
			var ok bool
			image, ok = scalar(rest)
			unreadable = unreadable || !ok
		case len(rest) == 0 && slices.Contains(keys, k):
			from := lineEnd(text, i)
			if to := blockEnd(text, from, c.to, c.col); to > from {
				blocks = append(blocks, block{key: k, col: c.col, at: from, lines: text[from:to]})
			}
		}
	}
	if !hasName || unreadable || sidecar(name, image) {
		return nil
	}
	return blocks
}

// placeholderPrefix is a prefix of placeholders that the text does not
// hold, or false when the few it tries all are in it.
func placeholderPrefix(text []byte) ([]byte, bool) {
	for _, p := range []string{"elided-", "elided-block-", "sidecar-lifecycle-elided-", "elided-value-of-key-"} {
		if !bytes.Contains(text, []byte(p)) {
			return []byte(p), true
		}
	}
	return nil, false
}

// reduced is the text with each block's lines dropped and a placeholder
// written after its key.
func reduced(text []byte, blocks []block, prefix []byte) []byte {
	size := len(text)
	for _, b := range blocks {
		size -= len(b.lines)
	}
	out := make([]byte, 0, size+len(blocks)*(len(prefix)+12))
	prev := 0
	for i, b := range blocks {
		out = append(out, text[prev:b.at-1]...) // the key's line without its line break
		out = append(out, ' ')
		out = append(out, prefix...)
		out = strconv.AppendInt(out, int64(i), 10)
		out = append(out, '\n')
		prev = b.at + len(b.lines)
	}
	return append(out, text[prev:]...)
}

// quotedKey reports whether text may hold a key in quotes: a quote
// followed by ":" and a blank or a line break.
func quotedKey(text []byte) bool {
	for _, q := range [][]byte{[]byte("\": "), []byte("\":\n"), []byte("': "), []byte("':\n")} {
		if bytes.Contains(text, q) {
			return true
		}
	}
	return false
}
