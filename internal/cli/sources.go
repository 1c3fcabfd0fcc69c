package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
)

// sources are the inputs of a plain stream, stdin or files, joined into
// one stream, with what it takes to name the file and the line of a line
// of the stream.
type sources struct {
	list []*source
}

// source is one input: stdin (no name) or a file, with its text as it is
// read, counted.
type source struct {
	name string
	r    io.Reader
	file *os.File
	// lines counts the line breaks read, last is the last byte read.
	lines int
	last  byte
}

// Read reads the source's text, counting its lines; an error is a
// *fileError naming the file.
func (s *source) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	for _, b := range p[:n] {
		if b == '\n' {
			s.lines++
		}
	}
	if n > 0 {
		s.last = p[n-1]
	}
	if err != nil && err != io.EOF {
		err = &fileError{name: s.name, err: err}
	}
	return n, err
}

// partial reports whether the source ends inside a line: the stream then
// gets a line break after it.
func (s *source) partial() bool { return s.last != '\n' && s.last != 0 }

// fileError is an error reading a file.
type fileError struct {
	name string
	err  error
}

func (e *fileError) Error() string { return fmt.Sprintf("reading %s: %v", quotePath(e.name), e.err) }

func (e *fileError) Unwrap() error { return e.err }

// concatenate opens the files and joins them into one stream, each read as
// UTF-8 or UTF-16 text (see yamlio.Text), with a "---" line between two
// files and a line end after a file that lacks one.
func concatenate(files []string) (*sources, error) {
	src := &sources{}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			src.close()
			return nil, fmt.Errorf("reading input: %v", unwrapPath(err))
		}
		src.list = append(src.list, &source{name: name, r: yamlio.Text(f), file: f})
	}
	return src, nil
}

// reader is the joined stream.
func (s *sources) reader() io.Reader {
	var readers []io.Reader
	for i, src := range s.list {
		if i > 0 {
			readers = append(readers, &separator{before: s.list[i-1]})
		}
		readers = append(readers, src)
	}
	return io.MultiReader(readers...)
}

// close closes the files.
func (s *sources) close() {
	for _, src := range s.list {
		if src.file != nil {
			src.file.Close()
		}
	}
}

// separator is the text between two files: a line end when the first
// lacks one, then "---".
type separator struct {
	before  *source
	text    []byte
	started bool
}

func (s *separator) Read(p []byte) (int, error) {
	if !s.started {
		s.started = true
		if s.before.partial() {
			s.text = append(s.text, '\n')
		}
		s.text = append(s.text, "---\n"...)
	}
	if len(s.text) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.text)
	s.text = s.text[n:]
	return n, nil
}

// position is a place in the input: a file, or stdin when file is empty,
// and a line in it, from 1; none when line is 0.
type position struct {
	file string
	line int
}

// String is "file:line", or "<stdin>:line".
func (p position) String() string {
	name := p.file
	if name == "" {
		name = "<stdin>"
	}
	return name + ":" + strconv.Itoa(p.line)
}

// prefix is "file:line: ", or nothing for no position.
func (p position) prefix() string {
	if p.line <= 0 {
		return ""
	}
	return p.String() + ": "
}

// position is where a line of the joined stream comes from: the file read
// before it, and its line there. Line 0 is no position.
func (s *sources) position(line int) position {
	if line <= 0 {
		return position{}
	}
	first := 1
	at := position{file: s.list[0].name, line: line}
	for i, src := range s.list {
		if i > 0 {
			prev := s.list[i-1]
			first += prev.lines + 1 // its lines, then the "---" line
			if prev.partial() {
				first++
			}
		}
		if line < first {
			break
		}
		at = position{file: src.name, line: line - first + 1}
	}
	return at
}

// explain is an error's message and the place in the input it is about,
// if any: an error of a document names its line in the stream, an error
// reading a file (text that is not text) its line in the file.
func (s *sources) explain(err error) (string, position) {
	var le *yamlio.LineError
	var fe *fileError
	var tl *yamlio.TooLargeError
	msg, at := err.Error(), position{}
	switch {
	case errors.As(err, &fe) && errors.As(fe.err, &le):
		msg, at = le.Err.Error(), position{file: fe.name, line: le.Line}
	case errors.As(err, &le):
		msg, at = le.Err.Error(), s.position(le.Line)
	}
	if errors.As(err, &tl) {
		msg += "; raise the limit with --max-document-size"
	}
	return msg, at
}

// openInputs opens the plain stream's inputs, as --config mode and
// --explain read them: the files, and each directory's YAML and JSON files
// in name order (see inputFiles), joined with "---" between files; stdin
// without them. Close the sources when done.
func openInputs(inputs []string, stdin io.Reader, stderr lines) (*sources, error) {
	if len(inputs) == 0 {
		return &sources{list: []*source{{r: stdin}}}, nil
	}
	files, err := inputFiles(inputs, stderr)
	if err != nil {
		return nil, err
	}
	return concatenate(files)
}
