package yamlio

import (
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf16"
)

// utf16Bytes encodes s as UTF-16 with a byte order mark.
func utf16Bytes(s string, bigEndian bool) string {
	var b []byte
	put := func(u uint16) {
		if bigEndian {
			b = append(b, byte(u>>8), byte(u))
		} else {
			b = append(b, byte(u), byte(u>>8))
		}
	}
	put(0xFEFF)
	for _, u := range utf16.Encode([]rune(s)) {
		put(u)
	}
	return string(b)
}

// oneByte reads one byte at a time: characters are cut at every place.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) { return o.r.Read(p[:1]) }

// TestText: UTF-16 in either byte order becomes UTF-8, a UTF-8 byte order
// mark goes, UTF-8 stays as it is, whatever the reads cut.
func TestText(t *testing.T) {
	text := "# ünïcödé 🚀\r\napiVersion: v1\n---\nkind: Pod\n"
	for _, tc := range []struct{ name, in string }{
		{"UTF-8", text},
		{"UTF-8 with a byte order mark", "\ufeff" + text},
		{"UTF-16LE", utf16Bytes(text, false)},
		{"UTF-16BE", utf16Bytes(text, true)},
		{"byte order marks", "\ufeff\ufeff" + text},
		{"UTF-16 and byte order marks", utf16Bytes("\ufeff\ufeff"+text, true)},
	} {
		for _, cut := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tc.in)
			if cut {
				r = oneByte{r}
			}
			got, err := io.ReadAll(Text(r))
			if err != nil || string(got) != text {
				t.Errorf("%s (one byte at a time: %v): %q, %v; want %q", tc.name, cut, got, err, text)
			}
		}
	}
}

// TestTextNotText: bytes that are not text end it with an error at their
// line.
func TestTextNotText(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		line     int
		what     string
	}{
		{"not UTF-8", "a: 1\nb: \x89PNG\n", 2, "byte 0x89 is not UTF-8"},
		{"NUL", "a: 1\n\nb\x00", 3, "a NUL character"},
		{"UTF-16 without a byte order mark", "a\x00:\x00", 1, "a NUL character"},
		{"a cut character at the end", "a: \xc3", 1, "text that ends inside a character"},
		{"an unpaired surrogate", utf16Bytes("a\n", false) + "\x00\xdc", 2, "an unpaired UTF-16 surrogate 0xDC00"},
		{"an odd UTF-16 length", utf16Bytes("a", true) + "\x00", 1, "text that ends inside a character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := io.ReadAll(Text(strings.NewReader(tc.in)))
			var le *LineError
			var nt *NotTextError
			if !errors.As(err, &le) || !errors.As(err, &nt) || le.Line != tc.line || nt.What != tc.what {
				t.Errorf("error %v, want line %d: %s", err, tc.line, tc.what)
			}
		})
	}
}
