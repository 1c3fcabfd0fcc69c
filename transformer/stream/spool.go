package stream

import (
	"bufio"
	"io"
	"os"
)

// MemoryLimit is how many bytes a Spool keeps in memory before it moves to a
// temporary file.
const MemoryLimit = 32 << 20

// blockSize is the size of the blocks a Spool keeps in memory: appending
// never copies what was written.
const blockSize = 1 << 20

// Spool is an append-only byte store that keeps up to a limit in memory and
// moves to an unlinked temporary file beyond it, so that a large input or
// output costs disk, not memory. When no temporary file can be created it
// stays in memory. Write it from one goroutine, call Flush, then read it
// from any number of goroutines.
type Spool struct {
	limit  int64
	blocks [][]byte // each blockSize long but the last
	file   *os.File
	buf    *bufio.Writer
	size   int64
}

// NewSpool returns an empty spool that moves to a file beyond limit bytes.
func NewSpool(limit int64) *Spool { return &Spool{limit: limit} }

// Size is the number of bytes written.
func (s *Spool) Size() int64 { return s.size }

// Write appends p.
func (s *Spool) Write(p []byte) (int, error) {
	if s.buf == nil && s.size+int64(len(p)) > s.limit {
		s.toFile()
	}
	if s.buf != nil {
		n, err := s.buf.Write(p)
		s.size += int64(n)
		return n, err
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

// toFile moves the spool to a temporary file; it stays in memory if none
// can be created.
func (s *Spool) toFile() {
	f, err := os.CreateTemp("", "sidecar-lifecycle-*")
	if err != nil {
		s.limit = 1<<63 - 1
		return
	}
	if os.Remove(f.Name()) != nil {
		f.Close()
		s.limit = 1<<63 - 1
		return
	}
	buf := bufio.NewWriterSize(f, 1<<20)
	for _, b := range s.blocks {
		if _, err := buf.Write(b); err != nil {
			f.Close()
			s.limit = 1<<63 - 1
			return
		}
	}
	s.file, s.buf, s.blocks = f, buf, nil
}

// Flush writes buffered bytes to the file; call it before reading.
func (s *Spool) Flush() error {
	if s.buf == nil {
		return nil
	}
	return s.buf.Flush()
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
