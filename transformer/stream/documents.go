package stream

import (
	"bufio"
	"bytes"
	"io"
)

// Documents is a plain multi-document YAML stream (what `helm template`,
// `kustomize build` and `kubectl get -o yaml` write) read in full into a
// Spool and split at its "---" lines, so that each document can be parsed,
// edited and encoded on its own while memory stays bounded by the documents
// in flight.
type Documents struct {
	spool *Spool
	// heads holds, per document, the offset of its "---" line (or of its
	// text when it has none); bodies the offset of its text; the end of the
	// last document closes both.
	heads, bodies []int64
	// Marked lists, in order, the documents with a line for which
	// Options.Mark returned true.
	Marked []int
}

// ReadDocuments reads r to the end and splits it into documents. A line
// that starts with "---" followed by the end of the line, a space or a tab
// starts a document; when nothing but a comment follows the marker on its
// line, that line is the document's separator and is kept apart from its
// text, otherwise (`--- |`, `--- !tag`) it is part of the text. An error
// means r could not be read or spooled.
func ReadDocuments(r io.Reader, opts Options) (*Documents, error) {
	limit := opts.MemoryLimit
	if limit == 0 {
		limit = MemoryLimit
	}
	d := &Documents{spool: NewSpool(limit)}
	br := bufio.NewReaderSize(r, 1<<16)
	var offset int64
	markedCurrent := false
	start := func(head, body int64) {
		d.heads = append(d.heads, head)
		d.bodies = append(d.bodies, body)
		markedCurrent = false
	}
	start(0, 0)
	err := eachLine(br, func(line []byte) error {
		if _, err := d.spool.Write(line); err != nil {
			return err
		}
		if marker, separate := documentMarker(line); marker {
			body := offset
			if separate {
				body += int64(len(line))
			}
			if offset == 0 {
				d.heads, d.bodies = d.heads[:0], d.bodies[:0]
			}
			start(offset, body)
		} else if opts.Mark != nil && !markedCurrent && opts.Mark(line) {
			d.Marked = append(d.Marked, len(d.heads)-1)
			markedCurrent = true
		}
		offset += int64(len(line))
		return nil
	})
	if err != nil {
		d.Close()
		return nil, err
	}
	if err := d.spool.Flush(); err != nil {
		d.Close()
		return nil, err
	}
	d.heads = append(d.heads, offset)
	return d, nil
}

// documentMarker reports whether line starts a document, and whether the
// line holds nothing else than the marker and a comment.
func documentMarker(line []byte) (marker, separate bool) {
	if !bytes.HasPrefix(line, []byte("---")) {
		return false, false
	}
	rest := line[3:]
	if len(rest) > 0 && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '\n' && rest[0] != '\r' {
		return false, false
	}
	rest = bytes.TrimLeft(rest, " \t")
	return true, len(bytes.TrimRight(rest, "\r\n")) == 0 || rest[0] == '#'
}

// Len is the number of documents; a stream that does not start with "---"
// counts the text before its first marker as a document.
func (d *Documents) Len() int { return len(d.heads) - 1 }

// Separator returns the "---" line before document i, or nothing.
func (d *Documents) Separator(i int) ([]byte, error) {
	return d.read(d.heads[i], d.bodies[i])
}

// Body returns the text of document i, without its separator.
func (d *Documents) Body(i int) ([]byte, error) {
	return d.read(d.bodies[i], d.heads[i+1])
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
