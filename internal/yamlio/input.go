// Package yamlio is the drivers' entry to the YAML text of the function's
// input and output. It splits the input, textually: a ResourceList at the
// top-level entries of its items list, and a plain stream into its
// documents, so that the items can be parsed, edited and encoded one by one
// on every core while memory stays bounded by the items in flight. It
// scans an item or document the run need not parse (Input.ScanItem,
// ScanDocument: package scan), reduces a large workload (Input.Elide:
// package elide) and holds the output until the run is done (Output:
// package spool); package emit writes each piece of the output as
// kio.ByteWriter does.
//
// The splitter accepts only layouts it understands with certainty and says
// so otherwise: the caller then runs the whole-list path. In YAML that is
// the layout kustomize and kpt write, and the usual hand-written variants: a
// block mapping at column 0 with a plain "items:" key, a non-empty block
// sequence of items all at one column, LF or CRLF line breaks, a byte order
// mark and a "---" before the first key, blank lines and comments between
// the items and after them; no lone CRs or control characters, no tabs
// but on an item's own lines (see lineSplitter.itemLine),
// no other document marker, no comments at the items' column after a
// last item that ends in a comment, does not start with a plain key or
// keeps its final line breaks (see lineSplitter: between items, such
// comments join the items around them, which are parsed together). In JSON
// it is an object with one "items" array of objects and nothing but JSON in
// it (see jsonSplitter). The caller also checks what the splitter cannot
// see: that the parser finds the items key where the splitter did
// (Layout.ItemsLine) and that each item parses alone (Input.ParseItem): a
// quoted scalar spanning the cut is mended (Input.Merge); an item that
// uses an earlier item's anchor is parsed with it (see
// lineSplitter.aliases); any other surprise ends in the whole-list path.
package yamlio

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/spool"
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

	// groups holds the parses of the groups whose items ParseItemOnce
	// has not all handed out yet, by their first item.
	groupsMu sync.Mutex
	groups   map[int]*groupParse
}

// groupParse is a group's items, parsed together, until each was handed
// out once.
type groupParse struct {
	items []*yaml.RNode
	err   error
	left  int
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
	// of what follows it (see parseEntries). An item not in it is parsed alone.
	follow map[int]follower
	// joined holds the items parsed with the item after them: the parser
	// may attach the comments at the end of such an item, or after it,
	// otherwise when the item is parsed alone (a flow mapping, a block
	// scalar that keeps its final line breaks), so the items from the
	// first to the last of a run of joined items, a group, are parsed
	// together, where they sit in the list, and each takes its entry.
	joined map[int]bool
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

// Joined reports whether item i is parsed with a neighbour: its text alone
// does not say what the parser attaches to it.
func (l *Layout) Joined(i int) bool {
	return l.joined[i] || i > 0 && l.joined[i-1]
}

// Group is the first and the last item of item i's group: the items
// parsed together with it (see Layout.joined).
func (l *Layout) Group(i int) (first, last int) {
	first, last = i, i
	for first > 0 && l.joined[first-1] {
		first--
	}
	for l.joined[last] {
		last++
	}
	return first, last
}

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
// ParseItem, parseItemAfter and ParseJSON). Text that does not parse
// alone is a *ParseError; any other error is the input's read error.
func (in *Input) ParseItem(i int) (*yaml.RNode, error) {
	text, err := in.Item(i)
	if err != nil {
		return nil, err
	}
	return in.ParseItemText(i, text)
}

// ParseItemText is ParseItem for item i's text, read with Item. An item
// joined to its neighbours is parsed with them (see Layout.joined).
func (in *Input) ParseItemText(i int, text []byte) (*yaml.RNode, error) {
	var (
		item *yaml.RNode
		err  error
	)
	switch first, last := in.Layout.Group(i); {
	case in.Layout.JSON:
		item, err = ParseJSON(text)
	case first < last:
		item, err = in.parseGroup(first, last, i)
	default:
		item, err = in.parseSpan(i, i, text)
	}
	if err != nil {
		return nil, &ParseError{Item: i, Err: err}
	}
	return item, nil
}

// ParseItemOnce is ParseItemText for a pass that parses each item once:
// the items of a group (see Layout.joined) are parsed together once, and
// each item's node is handed out once, so that one edited is never handed
// out again; ParseItemText parses the group anew.
func (in *Input) ParseItemOnce(i int, text []byte) (*yaml.RNode, error) {
	first, last := in.Layout.Group(i)
	if in.Layout.JSON || first == last {
		return in.ParseItemText(i, text)
	}
	in.groupsMu.Lock()
	g := in.groups[first]
	if g == nil {
		g = &groupParse{left: last - first + 1}
		text, err := in.text(first, last)
		if err == nil {
			g.items, err = in.parseGroupText(first, last, text)
		}
		g.err = err
		if in.groups == nil {
			in.groups = map[int]*groupParse{}
		}
		in.groups[first] = g
	}
	var item *yaml.RNode
	if g.items != nil {
		item, g.items[i-first] = g.items[i-first], nil
	}
	if g.left--; g.left == 0 {
		delete(in.groups, first)
	}
	in.groupsMu.Unlock()
	switch {
	case g.err != nil:
		return nil, &ParseError{Item: i, Err: g.err}
	case item == nil:
		return in.ParseItemText(i, text) // handed out already
	}
	return item, nil
}

// parseSpan parses text, the items from first to last, as one entry where it
// sits in the list.
func (in *Input) parseSpan(first, last int, text []byte) (*yaml.RNode, error) {
	head, entries := in.head(first, text)
	items, err := parseEntries(head, text, entries, 1, in.Layout.follow[last], in.Layout.dash)
	if err != nil {
		return nil, err
	}
	return items[0], nil
}

// parseGroup parses the items from first to last together and returns item
// i's entry.
func (in *Input) parseGroup(first, last, i int) (*yaml.RNode, error) {
	text, err := in.text(first, last)
	if err != nil {
		return nil, err
	}
	items, err := in.parseGroupText(first, last, text)
	if err != nil {
		return nil, err
	}
	return items[i-first], nil
}

// parseGroupText parses text, the items from first to last, together.
func (in *Input) parseGroupText(first, last int, text []byte) ([]*yaml.RNode, error) {
	head, entries := in.head(first, text)
	if first > 0 {
		// The parser attaches a comment at the end of a flow mapping
		// otherwise when the mapping is the first entry.
		head, entries = afterItem(in.Layout.dash), 1
	}
	return parseEntries(head, text, entries, last-first+1, in.Layout.follow[last], in.Layout.dash)
}

// head is the head under which the text starting with item first is
// parsed, and the number of entries it holds (see afterItem).
func (in *Input) head(first int, text []byte) (string, int) {
	if first > 0 && startsWithComment(text) {
		return afterItem(in.Layout.dash), 1
	}
	return "items:\n", 0
}

// text is the text of the items from first to last.
func (in *Input) text(first, last int) ([]byte, error) {
	start, end := in.Layout.items[first].start, in.Layout.items[last].end
	b := make([]byte, end-start)
	if _, err := in.data.ReadAt(b, start); err != nil && !(err == io.EOF && len(b) > 0) {
		return nil, err
	}
	return b, nil
}

// Merge tries to mend a split at item i, which does not parse alone, nor
// with its neighbours: when the items of its group (see Layout.joined) but
// the last, then the text of the last to item j, for the first j up to
// maxMerge items on, parse, those last items become one (a quoted scalar
// held a line the splitter took for an item's start). It returns the
// item they became, and reports whether it did.
func (in *Input) Merge(i int) (int, bool) {
	if in.Layout.JSON {
		return 0, false
	}
	first, last := in.Layout.Group(i)
	for j := last + 1; j < in.Layout.Len() && j <= last+maxMerge; j++ {
		l := in.Layout.clone()
		l.merge(last, j)
		try := Input{data: in.data, size: in.size, Layout: l}
		if _, err := try.ParseItem(first); err == nil {
			in.Layout = l
			in.groupsMu.Lock()
			in.groups = nil
			in.groupsMu.Unlock()
			return last, true
		}
	}
	return 0, false
}

// maxMerge is how many items after one that does not parse alone Merge
// tries to take with it.
const maxMerge = 8

// clone is a copy of l that merge may change.
func (l *Layout) clone() *Layout {
	c := *l
	c.items = append([]span(nil), l.items...)
	c.Marked = append([]int(nil), l.Marked...)
	return &c
}

// merge makes the items from i to j one item.
func (l *Layout) merge(i, j int) {
	n := j - i
	l.items[i].end = l.items[j].end
	l.items = append(l.items[:i+1], l.items[j+1:]...)
	shift := func(k int) int {
		switch {
		case k > j:
			return k - n
		case k > i:
			return i
		}
		return k
	}
	follow := map[int]follower{}
	for k, f := range l.follow {
		if k < i || k >= j {
			follow[shift(k)] = f
		}
	}
	l.follow = follow
	joined := map[int]bool{}
	for k := range l.joined {
		if k < i || k >= j {
			joined[shift(k)] = true
		}
	}
	l.joined = joined
	var marked []int
	for _, k := range l.Marked {
		if k = shift(k); len(marked) == 0 || marked[len(marked)-1] != k {
			marked = append(marked, k)
		}
	}
	l.Marked = marked
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
