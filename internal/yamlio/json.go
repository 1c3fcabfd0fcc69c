package yamlio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"sigs.k8s.io/kustomize/kyaml/yaml"
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

// AppendJSON appends node as compact JSON: mappings, sequences and
// aliases as they resolve, scalars as their YAML tags read.
func AppendJSON(b []byte, n *yaml.Node) ([]byte, error) {
	var err error
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return nil, fmt.Errorf("a document with %d nodes", len(n.Content))
		}
		return AppendJSON(b, n.Content[0])
	case yaml.AliasNode:
		return AppendJSON(b, n.Alias)
	case yaml.MappingNode:
		b = append(b, '{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b = append(b, ',')
			}
			key := n.Content[i]
			if key.Kind == yaml.AliasNode {
				key = key.Alias
			}
			if key.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("a key that is not a string cannot be written as JSON (line %d)", key.Line)
			}
			b = AppendJSONString(b, key.Value)
			b = append(b, ':')
			if b, err = AppendJSON(b, n.Content[i+1]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case yaml.SequenceNode:
		b = append(b, '[')
		for i, c := range n.Content {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = AppendJSON(b, c); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	return appendJSONScalar(b, n)
}

// appendJSONScalar appends a scalar as JSON: a null, a boolean or a number
// as YAML resolves it, anything else as a string.
func appendJSONScalar(b []byte, n *yaml.Node) ([]byte, error) {
	switch n.ShortTag() {
	case yaml.NodeTagNull:
		return append(b, "null"...), nil
	case yaml.NodeTagBool:
		switch n.Value { // the forms YAML 1.2's core schema reads as booleans
		case "true", "True", "TRUE":
			return append(b, "true"...), nil
		case "false", "False", "FALSE":
			return append(b, "false"...), nil
		}
		var v bool
		if err := n.Decode(&v); err != nil {
			return nil, err
		}
		return strconv.AppendBool(b, v), nil
	case yaml.NodeTagInt, yaml.NodeTagFloat:
		if v := n.Value; v != "" && (v[0] == '-' || v[0] >= '0' && v[0] <= '9') && json.Valid([]byte(v)) {
			return append(b, v...), nil // a JSON number already: as it was written
		}
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, err
		}
		text, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("the number %q cannot be written as JSON", n.Value)
		}
		return append(b, text...), nil
	}
	return AppendJSONString(b, n.Value), nil
}

// AppendJSONString appends s as a JSON string: as it is between quotes
// when nothing in it needs escaping, else as encoding/json escapes it.
func AppendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			text, _ := json.Marshal(s) // a string always marshals
			return append(b, text...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// DecodeJSON reads one JSON value into the node the YAML parser would make
// of it (flow mappings and sequences, scalars tagged as JSON types them),
// without the YAML parser: the webhook's admitted objects are JSON. The
// nodes, their lists and their strings are cut from a few large blocks,
// and a string without an escape shares the text's one copy.
func DecodeJSON(text []byte) (*yaml.Node, error) {
	return DecodeJSONLeaving(text)
}

// DecodeJSONLeaving is DecodeJSON leaving out the values at the paths of
// mapping keys given (from the top; "" for a list's item): they are read,
// so the text must be JSON there too, but no node is kept of them, nor
// their key.
func DecodeJSONLeaving(text []byte, leave ...[]string) (*yaml.Node, error) {
	r := &jsonReader{b: text, s: string(text), leave: leave}
	for _, p := range leave {
		r.deepest = max(r.deepest, len(p))
	}
	n, err := r.value(0)
	if err != nil {
		return nil, err
	}
	if r.space(); r.i != len(r.b) {
		return nil, r.fail("text after the value")
	}
	return n, nil
}

// maxJSONDepth bounds nesting, as encoding/json does.
const maxJSONDepth = 10000

// jsonReader reads JSON text from b (and s, the same text) at i.
type jsonReader struct {
	b []byte
	s string
	i int
	// nodes and lists are blocks the nodes and their Content are cut
	// from; stack holds the children of the containers being read.
	nodes []yaml.Node
	lists []*yaml.Node
	stack []*yaml.Node
	// leave are the paths to leave out; keys is the path being read;
	// discard is set while a value left out is read, whose nodes are all
	// scratch.
	leave   [][]string
	deepest int // the longest path's length: below it no path is tracked
	keys    []string
	discard int
	// text is where strings with escapes are unquoted.
	text    []byte
	scratch yaml.Node
}

// node returns a new node cut from the current block, its fields set one
// by one (cheaper for the collector than copying a whole node in).
func (r *jsonReader) node(kind yaml.Kind, tag, value string, style yaml.Style) *yaml.Node {
	if r.discard > 0 {
		return &r.scratch
	}
	if len(r.nodes) == 0 {
		r.nodes = make([]yaml.Node, min(256, max(16, len(r.b)/9))) // about a node per 10 bytes of compact JSON, in blocks of 38 KiB at most: what is left out takes none
	}
	n := &r.nodes[0]
	r.nodes = r.nodes[1:]
	n.Kind, n.Tag, n.Value, n.Style = kind, tag, value, style
	return n
}

// list moves the children read since mark off the stack into a list of
// their own, whose capacity is its length, so that an append to it
// never writes over its neighbour's.
func (r *jsonReader) list(mark int) []*yaml.Node {
	if r.discard > 0 {
		r.stack = r.stack[:mark]
		return nil
	}
	n := len(r.stack) - mark
	if n > cap(r.lists)-len(r.lists) {
		r.lists = make([]*yaml.Node, 0, max(n, min(1024, max(16, len(r.b)/9))))
	}
	start := len(r.lists)
	r.lists = append(r.lists, r.stack[mark:]...)
	r.stack = r.stack[:mark]
	return r.lists[start:len(r.lists):len(r.lists)]
}

func (r *jsonReader) fail(what string) error { return fmt.Errorf("JSON: %s at offset %d", what, r.i) }

func (r *jsonReader) space() {
	for r.i < len(r.b) && (r.b[r.i] == ' ' || r.b[r.i] == '\t' || r.b[r.i] == '\n' || r.b[r.i] == '\r') {
		r.i++
	}
}

// value reads the value at i, depth levels down.
func (r *jsonReader) value(depth int) (*yaml.Node, error) {
	if depth > maxJSONDepth {
		return nil, r.fail("nesting too deep")
	}
	r.space()
	if r.i == len(r.b) {
		return nil, r.fail("unexpected end")
	}
	switch c := r.b[r.i]; {
	case c == '{' || c == '[':
		return r.container(depth)
	case c == '"':
		s, err := r.string()
		return r.node(yaml.ScalarNode, yaml.NodeTagString, s, yaml.DoubleQuotedStyle), err
	case c == '-' || c >= '0' && c <= '9':
		start := r.i
		for r.i < len(r.b) && strings.IndexByte("+-.0123456789eE", r.b[r.i]) >= 0 {
			r.i++
		}
		num := r.b[start:r.i]
		if !json.Valid(num) {
			return nil, r.fail("bad number")
		}
		tag := yaml.NodeTagInt
		if bytes.ContainsAny(num, ".eE") {
			tag = yaml.NodeTagFloat
		}
		return r.node(yaml.ScalarNode, tag, r.s[start:r.i], 0), nil
	}
	for _, lit := range []struct{ text, tag string }{{"true", yaml.NodeTagBool}, {"false", yaml.NodeTagBool}, {"null", yaml.NodeTagNull}} {
		if strings.HasPrefix(r.s[r.i:], lit.text) {
			r.i += len(lit.text)
			return r.node(yaml.ScalarNode, lit.tag, lit.text, 0), nil
		}
	}
	return nil, r.fail("unexpected character")
}

// container reads an object or an array.
func (r *jsonReader) container(depth int) (*yaml.Node, error) {
	mapping := r.b[r.i] == '{'
	n := r.node(yaml.SequenceNode, yaml.NodeTagSeq, "", yaml.FlowStyle)
	end := byte(']')
	if mapping {
		n.Kind, n.Tag, end = yaml.MappingNode, yaml.NodeTagMap, '}'
	}
	r.i++
	mark := len(r.stack)
	for first := true; ; first = false {
		r.space()
		if r.i < len(r.b) && r.b[r.i] == end && first {
			r.i++
			return n, nil
		}
		var key *yaml.Node
		if mapping {
			if r.i == len(r.b) || r.b[r.i] != '"' {
				return nil, r.fail("expected a key")
			}
			k, err := r.string()
			if err != nil {
				return nil, err
			}
			key = r.node(yaml.ScalarNode, yaml.NodeTagString, k, 0)
			if r.space(); r.i == len(r.b) || r.b[r.i] != ':' {
				return nil, r.fail("expected ':'")
			}
			r.i++
		}
		v, kept, err := r.member(depth, key)
		if err != nil {
			return nil, err
		}
		if kept && key != nil {
			r.stack = append(r.stack, key)
		}
		if kept {
			r.stack = append(r.stack, v)
		}
		r.space()
		if r.i == len(r.b) {
			return nil, r.fail("unexpected end")
		}
		switch r.b[r.i] {
		case ',':
			r.i++
		case end:
			r.i++
			n.Content = r.list(mark)
			return n, nil
		default:
			return nil, r.fail("expected ',' or the container's end")
		}
	}
}

// member reads the value of a mapping's key (nil in a list) and says
// whether it is kept: one at a path to leave out is read, discarded.
func (r *jsonReader) member(depth int, key *yaml.Node) (*yaml.Node, bool, error) {
	if len(r.leave) == 0 || len(r.keys) >= r.deepest {
		v, err := r.value(depth + 1)
		return v, true, err
	}
	name := ""
	if key != nil {
		name = key.Value
	}
	r.keys = append(r.keys, name)
	leave := r.discard == 0 && slices.ContainsFunc(r.leave, func(p []string) bool { return slices.Equal(p, r.keys) })
	if leave {
		r.discard++
	}
	v, err := r.value(depth + 1)
	if leave {
		r.discard--
	}
	r.keys = r.keys[:len(r.keys)-1]
	return v, !leave, err
}

// string reads a quoted string: one with no escape, no control character
// and only UTF-8 is a part of the text's copy; the others are unquoted as
// encoding/json unquotes them (an invalid byte or surrogate becomes
// U+FFFD).
func (r *jsonReader) string() (string, error) {
	start := r.i
	escaped, ascii := false, true
	for r.i++; r.i < len(r.b) && r.b[r.i] != '"'; r.i++ {
		switch c := r.b[r.i]; {
		case c == '\\':
			escaped = true
			r.i++
		case c < 0x20:
			return "", r.fail("a control character in a string")
		case c >= 0x80:
			ascii = false
		}
	}
	if r.i >= len(r.b) {
		return "", r.fail("unterminated string")
	}
	r.i++
	body := r.b[start+1 : r.i-1]
	if !escaped && (ascii || utf8.Valid(body)) {
		return r.s[start+1 : r.i-1], nil
	}
	var ok bool
	r.text, ok = unquote(r.text[:0], body)
	switch {
	case !ok:
		return "", r.fail("bad string")
	case r.discard > 0:
		return "", nil // checked, not kept
	}
	return string(r.text), nil
}

// unquote appends the text of a JSON string between its quotes to out.
func unquote(out, b []byte) ([]byte, bool) {
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '\\':
			if i+1 == len(b) {
				return nil, false
			}
			i++
			switch e := b[i]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r1, ok := hex4(b[i+1:])
				if !ok {
					return nil, false
				}
				i += 4
				if utf16.IsSurrogate(r1) {
					if len(b) > i+2 && b[i+1] == '\\' && b[i+2] == 'u' {
						if r2, ok := hex4(b[i+3:]); ok {
							if d := utf16.DecodeRune(r1, r2); d != utf8.RuneError {
								out = utf8.AppendRune(out, d)
								i += 7
								continue
							}
						}
					}
					r1 = utf8.RuneError
				}
				out = utf8.AppendRune(out, r1)
			default:
				return nil, false
			}
			i++
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			out = utf8.AppendRune(out, r) // RuneError for an invalid byte
			i += size
		}
	}
	return out, true
}

// hex4 reads the four hex digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
