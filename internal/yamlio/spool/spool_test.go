package spool

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestSpool(t *testing.T) {
	for _, limit := range []int64{1 << 40, 3000} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			s := New(limit)
			defer s.Close()
			var want bytes.Buffer
			for i := 0; i < 2000; i++ {
				p := bytes.Repeat([]byte{byte('a' + i%26)}, i%1500)
				want.Write(p)
				if n, err := s.Write(p); n != len(p) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			big := bytes.Repeat([]byte("x"), 3*blockSize+17)
			want.Write(big)
			s.Write(big)
			if err := s.Flush(); err != nil {
				t.Fatal(err)
			}
			if (s.file != nil) != (limit < 1<<40) {
				t.Errorf("in a file: %v, limit %d", s.file != nil, limit)
			}
			if s.Size() != int64(want.Len()) {
				t.Fatalf("Size = %d, want %d", s.Size(), want.Len())
			}
			for _, at := range []int64{0, 1, blockSize - 1, blockSize, 2*blockSize + 5, int64(want.Len()) - 10} {
				got := make([]byte, 10)
				if _, err := s.ReadAt(got, at); err != nil {
					t.Fatalf("ReadAt %d: %v", at, err)
				}
				if !bytes.Equal(got, want.Bytes()[at:at+10]) {
					t.Errorf("ReadAt %d = %q", at, got)
				}
			}
			var out bytes.Buffer
			if _, err := s.WriteTo(&out); err != nil || !bytes.Equal(out.Bytes(), want.Bytes()) {
				t.Errorf("WriteTo: %v, equal %v", err, bytes.Equal(out.Bytes(), want.Bytes()))
			}
			if b, err := s.Bytes(); err != nil || !bytes.Equal(b, want.Bytes()) {
				t.Errorf("Bytes: %v", err)
			}
		})
	}
}

// TestSpoolUnusableDir: a temporary directory that is missing, a file, or
// refuses new files is an error naming it once the spool passes its limit,
// and the spool keeps no more than its limit in memory.
func TestSpoolUnusableDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, dir := range map[string]string{
		"missing":           filepath.Join(t.TempDir(), "missing"),
		"a file":            file,
		"refuses new files": "/proc",
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("TMPDIR", dir)
			s := New(100)
			defer s.Close()
			if _, err := s.Write(make([]byte, 60)); err != nil {
				t.Fatalf("within the limit: %v", err)
			}
			_, err := s.Write(make([]byte, 60))
			var spoolErr *Error
			if !errors.As(err, &spoolErr) || spoolErr.Dir != dir || !strings.Contains(err.Error(), fmt.Sprintf("%q", dir)) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Write past the limit = %v, want an error naming %q", err, dir)
			}
			if _, err := s.Write([]byte("x")); err == nil {
				t.Error("the spool took more after the error")
			}
			if s.Flush() == nil {
				t.Error("Flush after the error succeeded")
			}
			if s.Size() > 100 {
				t.Errorf("%d bytes in memory, limit 100", s.Size())
			}
		})
	}
}

// TestSpoolFull: a write error on the temporary file (a full disk,
// simulated with /dev/full) is an error naming the directory.
func TestSpoolFull(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	s := New(10)
	defer s.Close()
	if _, err := s.Write(make([]byte, 20)); err != nil || s.file == nil {
		t.Fatalf("Write = %v, in a file: %v", err, s.file != nil)
	}
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	s.file.Close()
	s.file, s.buf = full, bufio.NewWriterSize(full, 1<<10)
	var werr error
	for i := 0; i < 10 && werr == nil; i++ {
		_, werr = s.Write(make([]byte, 1<<9))
	}
	if werr == nil {
		werr = s.Flush()
	}
	var spoolErr *Error
	if !errors.As(werr, &spoolErr) || spoolErr.Dir != dir || !errors.Is(werr, syscall.ENOSPC) ||
		!strings.Contains(werr.Error(), "no space left on device") || strings.Contains(werr.Error(), "/dev/full") {
		t.Fatalf("writing to a full disk = %v, want an error naming %q", werr, dir)
	}
	if s.Flush() == nil {
		t.Error("Flush after the error succeeded")
	}
}
