// Package spool keeps a stream of bytes in memory up to a limit and in an
// unlinked temporary file beyond it, for inputs and outputs larger than
// the memory a run may hold.
package spool

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MemoryLimit is how many bytes a Spool keeps in memory before it moves to a
// temporary file. A file's pages are the kernel's cache, not the process's
// memory: at 4 MiB, the input, items and results spools of 10,000
// workloads (23 MiB) hold 12 MiB of the heap, where at 32 MiB they held
// 60 MiB and the collector's goal grew three times that.
const MemoryLimit = 4 << 20

// blockSize is the size of the blocks a Spool keeps in memory: appending
// never copies what was written.
const blockSize = 1 << 20

// Spool is an append-only byte store that keeps up to a limit in memory and
// moves to an unlinked temporary file beyond it, so that a large input or
// output costs disk, not memory. When the temporary file cannot be created
// or written (the directory is missing, read-only or full), Write and Flush
// return a *Error and the spool takes nothing more: it never grows in
// memory past its limit. Write it from one goroutine, call Flush, then read
// it from any number of goroutines.
type Spool struct {
	limit  int64
	blocks [][]byte // each blockSize long but the last
	file   *os.File
	dir    string // the file's directory
	buf    *bufio.Writer
	size   int64
	err    error
}

// Error is a temporary file that could not be created or written.
type Error struct {
	// Dir is the temporary directory.
	Dir string
	// Limit is the spool's memory limit.
	Limit int64
	// Err is the cause, without the file's name.
	Err error
}

func (e *Error) Error() string {
	return fmt.Sprintf("the list is larger than %s and the temporary directory %q cannot hold it: %v; set TMPDIR to a writable directory with room for the input and the output",
		FormatSize(e.Limit), e.Dir, e.Err)
}

// FormatSize writes a size in bytes as messages say it: whole MiB from
// 1 MiB, else bytes.
func FormatSize(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

func (e *Error) Unwrap() error { return e.Err }

// fail is a Error for err in dir.
func (s *Spool) fail(dir string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &Error{Dir: dir, Limit: s.limit, Err: err}
}

// New returns an empty spool that moves to a file beyond limit bytes.
func New(limit int64) *Spool { return &Spool{limit: limit} }

// Size is the number of bytes written.
func (s *Spool) Size() int64 { return s.size }

// Write appends p.
func (s *Spool) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.buf == nil && s.size+int64(len(p)) > s.limit {
		if s.err = s.toFile(); s.err != nil {
			return 0, s.err
		}
	}
	if s.buf != nil {
		n, err := s.buf.Write(p)
		s.size += int64(n)
		if err != nil {
			s.err = s.fail(s.dir, err)
		}
		return n, s.err
	}
	s.size += int64(len(p))
	written := 0
	for len(p) > 0 {
		last := len(s.blocks) - 1
		if last < 0 || len(s.blocks[last]) == blockSize {
			s.blocks = append(s.blocks, make([]byte, 0, min(blockSize, max(len(p), 4096))))
			last++
		}
		b := s.blocks[last]
		if len(b) == cap(b) {
			grown := make([]byte, len(b), min(blockSize, 2*cap(b)))
			copy(grown, b)
			b = grown
		}
		n := copy(b[len(b):cap(b)], p)
		s.blocks[last] = b[:len(b)+n]
		p = p[n:]
		written += n
	}
	return written, nil
}

// toFile moves the spool to a temporary file.
func (s *Spool) toFile() error {
	dir := os.TempDir()
	f, err := os.CreateTemp(dir, "sidecar-lifecycle-*")
	if err != nil {
		return s.fail(dir, err)
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return s.fail(dir, err)
	}
	buf := bufio.NewWriterSize(f, 1<<20)
	for _, b := range s.blocks {
		if _, err := buf.Write(b); err != nil {
			f.Close()
			return s.fail(dir, err)
		}
	}
	s.file, s.dir, s.buf, s.blocks = f, dir, buf, nil
	return nil
}

// Flush writes buffered bytes to the file; call it before reading.
func (s *Spool) Flush() error {
	if s.err != nil || s.buf == nil {
		return s.err
	}
	if err := s.buf.Flush(); err != nil {
		s.err = s.fail(s.dir, err)
	}
	return s.err
}

// ReadAt reads len(p) bytes at off.
func (s *Spool) ReadAt(p []byte, off int64) (int, error) {
	if s.file != nil {
		return s.file.ReadAt(p, off)
	}
	n := 0
	for n < len(p) && off < s.size {
		b := s.blocks[off/blockSize][off%blockSize:]
		c := copy(p[n:], b)
		n += c
		off += int64(c)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// WriteTo writes the whole spool to w.
func (s *Spool) WriteTo(w io.Writer) (int64, error) {
	if err := s.Flush(); err != nil {
		return 0, err
	}
	if s.file != nil {
		return io.Copy(w, io.NewSectionReader(s.file, 0, s.size))
	}
	var written int64
	for _, b := range s.blocks {
		n, err := w.Write(b)
		written += int64(n)
		if err != nil {
			return written, err
		}
	}
	return written, nil
}

// Bytes returns everything written.
func (s *Spool) Bytes() ([]byte, error) {
	if s.file == nil && len(s.blocks) == 1 {
		return s.blocks[0], nil
	}
	b := make([]byte, s.size)
	if _, err := s.ReadAt(b, 0); err != nil && err != io.EOF {
		return nil, err
	}
	return b, nil
}

// Close releases the memory and the temporary file.
func (s *Spool) Close() error {
	s.blocks, s.buf = nil, nil
	if s.file == nil {
		return nil
	}
	err := s.file.Close()
	s.file = nil
	return err
}
