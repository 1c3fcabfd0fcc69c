package yamlio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// NotTextError is input that is neither UTF-8 nor UTF-16 text.
type NotTextError struct {
	// What is the first thing found that text does not hold.
	What string
}

func (e *NotTextError) Error() string { return "not UTF-8 or UTF-16 text: " + e.What }

// Text returns r's text as UTF-8 without a byte order mark. Text that
// starts with a UTF-16 byte order mark, in either byte order, is decoded
// from UTF-16; a UTF-8 byte order mark is dropped, and so are more of them
// right after the first; anything else must be UTF-8. A NUL character, bytes that are not UTF-8 (or, after a UTF-16
// byte order mark, not UTF-16) and an unpaired surrogate end the text with
// a *LineError holding a *NotTextError, at the line they are on. Line
// breaks are kept as they are, so lines keep their numbers.
func Text(r io.Reader) io.Reader {
	return &textReader{r: bufio.NewReaderSize(r, 1<<16), line: 1}
}

// textReader is Text's reader.
type textReader struct {
	r       *bufio.Reader
	started bool
	// order is UTF-16's byte order, nil for UTF-8.
	order binary.ByteOrder
	// out is decoded text not yet returned; carry the bytes of a character
	// that the last read did not end, or an unpaired high surrogate.
	out, carry []byte
	buf        [1 << 15]byte
	line       int
	err        error
	// leading is set until the first character that is not a byte order
	// mark: every one at the start goes, so the output never starts with
	// one and reads the same a second time.
	leading bool
}

func (t *textReader) Read(p []byte) (int, error) {
	for len(t.out) == 0 && t.err == nil {
		t.fill()
	}
	if len(t.out) > 0 {
		n := copy(p, t.out)
		t.out = t.out[n:]
		return n, nil
	}
	return 0, t.err
}

// fill decodes the next chunk into out, or sets err.
func (t *textReader) fill() {
	if !t.started {
		t.started = true
		head, _ := t.r.Peek(3)
		switch {
		case bytes.HasPrefix(head, []byte{0xFF, 0xFE}):
			t.order = binary.LittleEndian
			t.r.Discard(2)
		case bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
			t.order = binary.BigEndian
			t.r.Discard(2)
		}
		t.leading = true
	}
	for t.leading && t.order == nil {
		if head, _ := t.r.Peek(3); !bytes.Equal(head, bom) {
			t.leading = false
			break
		}
		t.r.Discard(3)
	}
	n, err := t.r.Read(t.buf[:])
	chunk := t.buf[:n]
	if len(t.carry) > 0 {
		chunk = append(t.carry, chunk...)
		t.carry = nil
	}
	if t.order != nil {
		t.utf16(chunk)
	} else {
		t.utf8(chunk)
	}
	if t.err == nil && err != nil {
		t.err = err
		if err == io.EOF && len(t.carry) > 0 {
			t.notText("text that ends inside a character")
		}
	}
}

// utf8 checks a chunk of UTF-8 and moves it to out, but for a character
// it does not end.
func (t *textReader) utf8(chunk []byte) {
	cut := len(chunk)
	for i := len(chunk) - 1; i >= 0 && i >= len(chunk)-utf8.UTFMax; i-- {
		if utf8.RuneStart(chunk[i]) {
			if !utf8.FullRune(chunk[i:]) {
				cut = i
			}
			break
		}
	}
	whole := chunk[:cut]
	if utf8.Valid(whole) && bytes.IndexByte(whole, 0) < 0 {
		t.line += bytes.Count(whole, []byte{'\n'})
		t.out = whole
		t.carry = append([]byte(nil), chunk[cut:]...)
		return
	}
	for i := 0; i < len(whole); {
		r, size := utf8.DecodeRune(whole[i:])
		switch {
		case r == 0:
			t.out = whole[:i]
			t.notText("a NUL character")
			return
		case r == utf8.RuneError && size == 1:
			t.out = whole[:i]
			t.notText(fmt.Sprintf("byte 0x%02X is not UTF-8", whole[i]))
			return
		case r == '\n':
			t.line++
		}
		i += size
	}
}

// utf16 decodes a chunk of UTF-16 into out, but for a last odd byte or a
// high surrogate without the low one after it.
func (t *textReader) utf16(chunk []byte) {
	out := make([]byte, 0, len(chunk)*3/2)
	i := 0
	for ; i+1 < len(chunk); i += 2 {
		u := rune(t.order.Uint16(chunk[i:]))
		if utf16.IsSurrogate(u) {
			if u >= 0xDC00 || i+3 >= len(chunk) {
				if u >= 0xDC00 {
					t.out = out
					t.notText(fmt.Sprintf("an unpaired UTF-16 surrogate 0x%04X", u))
					return
				}
				break
			}
			u = utf16.DecodeRune(u, rune(t.order.Uint16(chunk[i+2:])))
			if u == utf8.RuneError {
				t.out = out
				t.notText("an unpaired UTF-16 surrogate")
				return
			}
			i += 2
		}
		if t.leading && u == 0xFEFF {
			continue
		}
		t.leading = false
		switch u {
		case 0:
			t.out = out
			t.notText("a NUL character")
			return
		case '\n':
			t.line++
		}
		out = utf8.AppendRune(out, u)
	}
	t.out = out
	t.carry = append([]byte(nil), chunk[i:]...)
}

// notText ends the text at the current line.
func (t *textReader) notText(what string) {
	t.err = &LineError{Line: t.line, Err: &NotTextError{What: what}}
}
