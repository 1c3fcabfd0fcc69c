package yamlio

import (
	"bufio"
	"bytes"
	"io"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/spool"
)

// Documents is a plain multi-document YAML stream (what `helm template`,
// `kustomize build` and `kubectl get -o yaml` write) read in full into a
// Spool and split into documents, so that each document can be parsed,
// edited and encoded on its own while memory stays bounded by the documents
// in flight.
//
// Each document is three pieces of text that follow each other in the
// stream: its head, its body and its tail. The head is what comes before
// the document's content and is never re-encoded: the comments, blank
// lines and directives ("%YAML", "%TAG") before its "---" line, and that
// line when nothing but a comment follows the marker on it. The body is
// the content: from the line after such a "---" line, or from a "---" line
// that carries content (`--- &anchor`, `--- !!map`, `--- {kind: Pod}`), or
// from the first line of a document without a marker, up to the next
// marker. The tail is a "..." document end line. After a "..." line,
// comments, blank lines and directives belong to the head of the next
// document. A line that holds a line break of YAML other than LF and CRLF
// (a lone CR, NEL, LS, PS) is never in a head or a tail: the parser reads
// on after the break, so the line is the body's.
type Documents struct {
	spool *spool.Spool
	docs  []docSpan
	size  int64
	// Marked lists, in order, the documents with a body line for which
	// Options.Mark returned true; a line longer than the reader's buffer
	// (64 KiB) is shown to Mark in pieces of that size, and the text
	// around each cut between two pieces (64 bytes either side) on its
	// own, so that Mark sees a short word wherever it is. A document whose
	// body takes in a line of its head (see Documents) is listed too.
	Marked []int
}

// docSpan is where a document's head, body and tail start, and the stream
// line its head starts on; the next document's head ends the tail.
type docSpan struct {
	head, body, tail int64
	line             int
}

// ReadDocuments reads r to the end and splits it into documents (see
// Documents). A document larger than Options.MaxDocumentSize stops the
// read with a *LineError holding a *TooLargeError, before the rest of it
// is read. Any other error means r could not be read or spooled.
func ReadDocuments(r io.Reader, opts Options) (*Documents, error) {
	limit := opts.MemoryLimit
	if limit == 0 {
		limit = spool.MemoryLimit
	}
	s := &docSplitter{d: &Documents{spool: spool.New(limit)}, mark: opts.Mark, max: opts.maxDocumentSize()}
	s.start(0, 1)
	err := eachPiece(bufio.NewReaderSize(r, 1<<16), func(piece []byte, first bool) error {
		if _, err := s.d.spool.Write(piece); err != nil {
			return err
		}
		return s.add(piece, first)
	})
	if err == nil {
		err = s.d.spool.Flush()
	}
	if err != nil {
		s.d.Close()
		return nil, err
	}
	s.end()
	return s.d, nil
}

// eachPiece calls fn with every line of br, its line break included, in
// pieces of at most br's size, so that a line of any length costs no more
// memory; first is set for the first piece of a line. It stops at the
// first error of br or fn.
func eachPiece(br *bufio.Reader, fn func(piece []byte, first bool) error) error {
	first := true
	for {
		piece, err := br.ReadSlice('\n')
		if len(piece) > 0 {
			if ferr := fn(piece, first); ferr != nil {
				return ferr
			}
			first = piece[len(piece)-1] == '\n'
		}
		switch {
		case err == bufio.ErrBufferFull:
		case err == io.EOF:
			return nil
		case err != nil:
			return err
		}
	}
}

// seam is how many bytes of a piece's end and of the next piece's start
// the splitter reads together: more than a line break of YAML or a word
// Mark looks for is long.
const seam = 64

// lineRole is what a line outside a document's body is to the splitter.
type lineRole int

const (
	// bodyRole: a line of a body.
	bodyRole lineRole = iota
	// headRole: a line of a head.
	headRole
	// markerRole: a "---" line with nothing but a comment, in a head.
	markerRole
	// endRole: a "..." line, the tail.
	endRole
)

// docSplitter splits the stream line by line.
type docSplitter struct {
	d    *Documents
	mark func([]byte) bool
	max  int64
	// offset and line are where the next line starts; lineStart is where
	// the current one starts, role what it is.
	offset, lineStart int64
	line              int
	role              lineRole
	// last holds the end of the current line's last piece, at most seam
	// bytes, and joined the text around a cut.
	last, joined []byte
	// inBody is set once the current document's body has started.
	inBody, marked bool
	// afterMarker is set on a "---" line with nothing but a comment: the
	// body starts after it; afterEnd on a "..." line: the next document
	// starts after it.
	afterMarker, afterEnd bool
}

// start begins a document whose head starts at offset, on line.
func (s *docSplitter) start(offset int64, line int) {
	s.d.docs = append(s.d.docs, docSpan{head: offset, body: -1, tail: -1, line: line})
	s.inBody, s.marked, s.afterMarker, s.afterEnd = false, false, false, false
}

// cur is the current document.
func (s *docSplitter) cur() *docSpan { return &s.d.docs[len(s.d.docs)-1] }

// add takes the next piece of a line (see eachPiece). The first piece of
// a line says what the line is: a line longer than a piece is a long
// scalar, flow collection or comment, which its start tells apart.
//
// A line the splitter keeps out of a body (a comment, a directive, a "---"
// line with a comment, a "..." line) that holds a line break of YAML other
// than LF and CRLF is taken into the body, where the parser reads what
// follows the break (see intoBody).
func (s *docSplitter) add(piece []byte, first bool) error {
	end := s.offset + int64(len(piece))
	if first {
		s.lineStart, s.last = s.offset, s.last[:0]
		s.role = s.classify(piece)
	}
	cut := s.acrossCut(piece, first)
	if s.role != bodyRole && (otherBreak(piece) || otherBreak(cut)) {
		s.intoBody(first)
	}
	if s.inBody && s.mark != nil && !s.marked && (s.mark(piece) || len(cut) > 0 && s.mark(cut)) {
		s.markDocument()
	}
	s.offset = end
	if piece[len(piece)-1] == '\n' {
		s.line++
		if s.afterMarker {
			s.cur().body, s.afterMarker = end, false
		}
		if s.afterEnd {
			s.start(end, s.line+1)
		}
	}
	if s.max > 0 && end-s.cur().head > s.max {
		return &LineError{Line: s.cur().line, Err: &TooLargeError{What: "the document", Limit: s.max}}
	}
	return nil
}

// markDocument lists the current document in Documents.Marked.
func (s *docSplitter) markDocument() {
	s.d.Marked = append(s.d.Marked, len(s.d.docs)-1)
	s.marked = true
}

// acrossCut is the text around the cut before piece, when it goes on a
// line: the end of the line's last piece and the start of this one. It
// keeps the end of piece for the next cut.
func (s *docSplitter) acrossCut(piece []byte, first bool) []byte {
	var cut []byte
	if !first {
		s.joined = append(append(s.joined[:0], s.last...), piece[:min(len(piece), seam)]...)
		cut = s.joined
	}
	if len(piece) >= seam {
		s.last = append(s.last[:0], piece[len(piece)-seam:]...)
	} else {
		s.last = append(s.last, piece...)
		s.last = s.last[max(0, len(s.last)-seam):]
	}
	return cut
}

// otherBreak reports whether text holds a line break of YAML other than LF
// and CRLF: a CR before anything but LF (one that ends text may be
// followed by an LF next), NEL (U+0085), LS (U+2028) or PS (U+2029).
func otherBreak(text []byte) bool {
	for i, c := range text {
		switch {
		case c == '\r' && i+1 < len(text) && text[i+1] != '\n':
			return true
		case c == 0xC2 && i+1 < len(text) && text[i+1] == 0x85:
			return true
		case c == 0xE2 && i+2 < len(text) && text[i+1] == 0x80 && (text[i+2] == 0xA8 || text[i+2] == 0xA9):
			return true
		}
	}
	return false
}

// intoBody takes the current line, kept out of a body, into one: the
// parser reads on after a line break the splitter does not see. A head
// line starts the body, a "---" line's body starts with it rather than
// after it, and a "..." line does not end the body. The document is
// marked, since Mark did not see the pieces of the line before this one.
func (s *docSplitter) intoBody(first bool) {
	switch s.role {
	case headRole:
		s.inBody = true
		s.cur().body = s.lineStart
	case markerRole:
		s.afterMarker = false
	case endRole:
		s.cur().tail = -1
		s.inBody, s.afterEnd = true, false
	}
	s.role = bodyRole
	if s.mark != nil && !s.marked && !first {
		s.markDocument()
	}
}

// classify takes the start of a line: it may start a document, its body
// or its tail. It returns what the line is.
func (s *docSplitter) classify(text []byte) lineRole {
	marker, separate := documentMarker(text)
	switch {
	case marker:
		if s.inBody {
			s.closeBody()
			s.start(s.offset, s.line+1)
		}
		s.inBody = true
		s.cur().body = s.offset
		s.afterMarker = separate
		if separate {
			return markerRole
		}
	case documentEnd(text):
		if !s.inBody {
			return headRole
		}
		s.cur().tail = s.offset
		s.inBody, s.afterEnd = false, true
		return endRole
	case s.inBody:
	case headLine(text):
		return headRole
	default:
		s.inBody = true
		s.cur().body = s.offset
	}
	return bodyRole
}

// closeBody ends the current document's body where the next line starts.
func (s *docSplitter) closeBody() {
	c := s.cur()
	if c.body < 0 {
		c.body = s.offset
	}
	if c.tail < 0 {
		c.tail = s.offset
	}
}

// end is called at the end of the input: a last document with nothing in
// it is dropped.
func (s *docSplitter) end() {
	if s.afterMarker {
		s.cur().body = s.offset
	}
	if c := s.cur(); c.head == s.offset && c.body < 0 {
		s.d.docs = s.d.docs[:len(s.d.docs)-1]
	} else {
		s.closeBody()
	}
	s.d.size = s.offset
}

// documentMarker reports whether line starts a document, and whether the
// line holds nothing else than the marker and a comment.
func documentMarker(line []byte) (marker, separate bool) {
	rest, ok := afterIndicator(line, "---")
	if !ok {
		return false, false
	}
	return true, len(rest) == 0 || rest[0] == '#'
}

// documentEnd reports whether line is a "..." document end marker, with
// nothing but a comment after it.
func documentEnd(line []byte) bool {
	rest, ok := afterIndicator(line, "...")
	return ok && (len(rest) == 0 || rest[0] == '#')
}

// afterIndicator reports whether line starts with the three-character
// indicator followed by the end of the line, a space or a tab, and returns
// what follows it, without the blanks around it and the line break.
func afterIndicator(line []byte, indicator string) ([]byte, bool) {
	if !bytes.HasPrefix(line, []byte(indicator)) {
		return nil, false
	}
	rest := line[3:]
	if len(rest) > 0 && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '\n' && rest[0] != '\r' {
		return nil, false
	}
	return bytes.TrimSpace(rest), true
}

// headLine reports whether a line before a document's content belongs to
// its head: a blank line, a comment or a directive.
func headLine(line []byte) bool {
	text := bytes.TrimLeft(line, " \t")
	return len(bytes.TrimRight(text, "\r\n")) == 0 || text[0] == '#' || line[0] == '%'
}

// Len is the number of documents.
func (d *Documents) Len() int { return len(d.docs) }

// Line is the stream line, from 1, that document i's head starts on.
func (d *Documents) Line(i int) int { return d.docs[i].line }

// Head returns the text of document i before its content (see Documents).
func (d *Documents) Head(i int) ([]byte, error) {
	return d.read(d.docs[i].head, d.docs[i].body)
}

// Body returns the content of document i.
func (d *Documents) Body(i int) ([]byte, error) {
	return d.read(d.docs[i].body, d.docs[i].tail)
}

// Tail returns the "..." line that ends document i, or nothing.
func (d *Documents) Tail(i int) ([]byte, error) {
	end := d.size
	if i+1 < len(d.docs) {
		end = d.docs[i+1].head
	}
	return d.read(d.docs[i].tail, end)
}

func (d *Documents) read(start, end int64) ([]byte, error) {
	b := make([]byte, end-start)
	if len(b) == 0 {
		return b, nil
	}
	if _, err := d.spool.ReadAt(b, start); err != nil && !(err == io.EOF && len(b) > 0) {
		return nil, err
	}
	return b, nil
}

// Close releases the spooled stream.
func (d *Documents) Close() error { return d.spool.Close() }

// ParseHead is a document's head as the parser must read it before the
// body: its "%TAG" directives and its "---" marker, every other line and
// the comment after the marker left blank, so that the body's lines keep their numbers and the head's
// comments stay out of the node the body parses to. "%YAML" directives are
// left out too: the parser reads YAML 1.1 only, and reads a YAML 1.2
// stream just as well without it.
func ParseHead(head []byte) []byte {
	out := make([]byte, 0, len(head))
	for len(head) > 0 {
		n := bytes.IndexByte(head, '\n') + 1
		if n == 0 {
			n = len(head)
		}
		line := head[:n]
		head = head[n:]
		if marker, _ := documentMarker(line); marker {
			out = append(out, "---\n"...) // without its comment, which the head keeps
		} else if bytes.HasPrefix(line, []byte("%TAG")) {
			out = append(out, line...)
		} else if line[len(line)-1] == '\n' {
			out = append(out, '\n')
		}
	}
	return out
}
