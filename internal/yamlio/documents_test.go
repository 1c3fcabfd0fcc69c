package yamlio

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestReadDocuments: documents split at "---" lines; a marker line with
// nothing but a comment goes to the document's head, one with content
// starts its body; comments and directives before a marker, and after a
// "..." line, go to the head; a "..." line is the tail; "---x" and an
// indented "---" are not markers.
func TestReadDocuments(t *testing.T) {
	type doc struct {
		head, body, tail string
		line             int
	}
	for _, tc := range []struct {
		name, in string
		docs     []doc
	}{
		{"no marker", "a: 1\n", []doc{{"", "a: 1\n", "", 1}}},
		{"empty", "", nil},
		{"leading marker", "---\na: 1\n---\nb: 2\n", []doc{{"---\n", "a: 1\n", "", 1}, {"---\n", "b: 2\n", "", 3}}},
		{"comment before the content", "# head\na: 1\n--- # two\nb: 2", []doc{{"# head\n", "a: 1\n", "", 1}, {"--- # two\n", "b: 2", "", 3}}},
		{"comments before the first marker", "# head\n\n---\n# Source: a\na: 1\n", []doc{{"# head\n\n---\n", "# Source: a\na: 1\n", "", 1}}},
		{"content on the marker line", "--- |\n  text\n---\t\r\nb: 2\r\n", []doc{{"", "--- |\n  text\n", "", 1}, {"---\t\r\n", "b: 2\r\n", "", 3}}},
		{"anchor and flow on the marker line", "--- &a\na: 1\n--- {b: 2}\n", []doc{{"", "--- &a\na: 1\n", "", 1}, {"", "--- {b: 2}\n", "", 3}}},
		{"not markers", "a: |\n  ---\n---x: 1\n...x: 2\n", []doc{{"", "a: |\n  ---\n---x: 1\n...x: 2\n", "", 1}}},
		{"empty documents", "---\n---\n", []doc{{"---\n", "", "", 1}, {"---\n", "", "", 2}}},
		{"end markers and directives", "%YAML 1.2\n---\na: 1\n... # end\n# next\n%TAG !e! tag:e.com:\n---\nb: 2\n...\n",
			[]doc{{"%YAML 1.2\n---\n", "a: 1\n", "... # end\n", 1}, {"# next\n%TAG !e! tag:e.com:\n---\n", "b: 2\n", "...\n", 5}}},
		{"a bare document after an end marker", "a: 1\n...\nb: 2\n", []doc{{"", "a: 1\n", "...\n", 1}, {"", "b: 2\n", "", 3}}},
		{"comments after the last end marker", "a: 1\n...\n# bye\n", []doc{{"", "a: 1\n", "...\n", 1}, {"# bye\n", "", "", 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ReadDocuments(strings.NewReader(tc.in), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if d.Len() != len(tc.docs) {
				t.Fatalf("%d documents, want %d", d.Len(), len(tc.docs))
			}
			var joined string
			for i, want := range tc.docs {
				head, _ := d.Head(i)
				body, _ := d.Body(i)
				tail, _ := d.Tail(i)
				got := doc{string(head), string(body), string(tail), d.Line(i)}
				if got != want {
					t.Errorf("document %d: %+v, want %+v", i, got, want)
				}
				joined += got.head + got.body + got.tail
			}
			if joined != tc.in {
				t.Errorf("the pieces join to %q, not the input", joined)
			}
		})
	}
}

// TestReadDocumentsMarked: Mark is asked about every body line and each
// document is listed once.
func TestReadDocumentsMarked(t *testing.T) {
	in := "# Namespace\nkind: Namespace\nname: Namespace\n---\nkind: Pod\n---\nkind: Namespace\n"
	d, err := ReadDocuments(strings.NewReader(in), Options{Mark: func(l []byte) bool { return strings.Contains(string(l), "Namespace") }})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if got := d.Marked; len(got) != 2 || got[0] != 0 || got[1] != 2 {
		t.Errorf("marked %v, want [0 2]", got)
	}
}

// TestReadDocumentsTooLarge: a document past the limit stops the read
// there, with an error naming the line it starts on, whether its lines are
// short or one line is longer than the limit; the documents before it do
// not count.
func TestReadDocumentsTooLarge(t *testing.T) {
	small := "a: 1\n---\n"
	for _, tc := range []struct {
		name, big string
		line      int
	}{
		{"many lines", strings.Repeat("b: 2\n", 100), 4},
		{"one long line", "b: " + strings.Repeat("x", 1<<17) + "\n", 4},
		{"a long marker line", "--- {b: " + strings.Repeat("x", 1<<17) + "}\n", 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &countingReader{r: strings.NewReader(small + small + tc.big + strings.Repeat("c", 4<<20))}
			_, err := ReadDocuments(r, Options{MaxDocumentSize: 400})
			var le *LineError
			var tl *TooLargeError
			if !errors.As(err, &le) || !errors.As(err, &tl) || le.Line != tc.line || tl.Limit != 400 {
				t.Fatalf("error %v, want a TooLargeError at line %d", err, tc.line)
			}
			if want := fmt.Sprintf("line %d: the document", tc.line) + " is larger than 400 bytes, the maximum document size; it was not read further"; err.Error() != want {
				t.Errorf("error %q, want %q", err, want)
			}
			if r.n > 1<<20 {
				t.Errorf("read %d bytes before stopping", r.n)
			}
		})
	}
	if _, err := ReadDocuments(strings.NewReader(small+small+small), Options{MaxDocumentSize: 9}); err != nil {
		t.Errorf("documents of 9 bytes, limit 9: %v", err)
	}
}

// countingReader counts the bytes read.
type countingReader struct {
	r interface{ Read([]byte) (int, error) }
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestParseHead: only %TAG directives and the marker line are kept; every
// other line is blank, so lines keep their numbers.
func TestParseHead(t *testing.T) {
	got := string(ParseHead([]byte("# c\r\n%YAML 1.2\n%TAG !e! tag:e.com:\n...\n--- # x\n")))
	if want := "\n\n%TAG !e! tag:e.com:\n\n---\n"; got != want {
		t.Errorf("ParseHead = %q, want %q", got, want)
	}
}

// TestReadDocumentsLongLines: lines longer than the reader's buffer are
// read in pieces and still say what they are by their start: a marker
// with a long comment, one with a long flow mapping, a long end marker, a
// long comment before the content.
func TestReadDocumentsLongLines(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	in := "--- # " + long + "\na: 1\n--- {b: " + long + "}\n... # " + long + "\n# " + long + "\nc: 3\n"
	d, err := ReadDocuments(strings.NewReader(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	want := [][3]string{
		{"--- # " + long + "\n", "a: 1\n", ""},
		{"", "--- {b: " + long + "}\n", "... # " + long + "\n"},
		{"# " + long + "\n", "c: 3\n", ""},
	}
	if d.Len() != len(want) {
		t.Fatalf("%d documents, want %d", d.Len(), len(want))
	}
	for i, w := range want {
		head, _ := d.Head(i)
		body, _ := d.Body(i)
		tail, _ := d.Tail(i)
		if string(head) != w[0] || string(body) != w[1] || string(tail) != w[2] {
			t.Errorf("document %d: head %.20q (%d), body %.20q (%d), tail %.20q (%d)", i, head, len(head), body, len(body), tail, len(tail))
		}
	}
	if lines := []int{d.Line(0), d.Line(1), d.Line(2)}; lines[0] != 1 || lines[1] != 3 || lines[2] != 5 {
		t.Errorf("lines %v, want [1 3 5]", lines)
	}
}

// TestReadDocumentsOtherBreaks: the parser breaks a line at a lone CR, NEL,
// LS and PS too, so a comment, directive, "---" or "..." line that holds
// one is taken into the body, where the parser reads what follows it:
// also when the break is in a later piece of a long line, or across the
// cut between two pieces. A CRLF cut between its CR and its LF is no such
// break.
func TestReadDocumentsOtherBreaks(t *testing.T) {
	// pad makes a line's first 1<<16 bytes, the reader's buffer, end one
	// byte into what follows it.
	pad := func(start string) string { return start + strings.Repeat("x", 1<<16-1-len(start)) }
	for _, b := range []string{"\r", "\u0085", "\u2028", "\u2029"} {
		for _, tc := range []struct{ name, in, head, body, tail string }{
			{"a comment", "# c" + b + "k: v\na: 1\n", "", "# c" + b + "k: v\na: 1\n", ""},
			{"a directive", "%YAML 1.2" + b + "k: v\na: 1\n", "", "%YAML 1.2" + b + "k: v\na: 1\n", ""},
			{"a marker", "# h\n--- # c" + b + "k: v\na: 1\n", "# h\n", "--- # c" + b + "k: v\na: 1\n", ""},
			{"an end", "a: 1\n... # c" + b + "k: v\n", "", "a: 1\n... # c" + b + "k: v\n", ""},
			{"an end, before the content", "... # c" + b + "k: v\n", "", "... # c" + b + "k: v\n", ""},
			{"across the cut", pad("# c") + b + "k: v\na: 1\n", "", pad("# c") + b + "k: v\na: 1\n", ""},
			{"after the cut", pad("# c") + "xx" + b + "k: v\na: 1\n", "", pad("# c") + "xx" + b + "k: v\na: 1\n", ""},
		} {
			t.Run(fmt.Sprintf("%s %q", tc.name, b), func(t *testing.T) {
				d, err := ReadDocuments(strings.NewReader(tc.in), Options{Mark: func([]byte) bool { return false }})
				if err != nil {
					t.Fatal(err)
				}
				defer d.Close()
				if d.Len() != 1 {
					t.Fatalf("%d documents, want 1", d.Len())
				}
				head, _ := d.Head(0)
				body, _ := d.Body(0)
				tail, _ := d.Tail(0)
				if string(head) != tc.head || string(body) != tc.body || string(tail) != tc.tail {
					t.Errorf("head %.40q, body %.40q, tail %.40q; want %.40q, %.40q, %.40q", head, body, tail, tc.head, tc.body, tc.tail)
				}
				if len(tc.in) > 1<<16 && (len(d.Marked) != 1 || tc.head != "") {
					t.Errorf("marked %v: the head line taken into the body is not marked", d.Marked)
				}
			})
		}
	}
	crlf := "# c" + strings.Repeat("x", 1<<16-4) + "\r\na: 1\n"
	d, err := ReadDocuments(strings.NewReader(crlf), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if head, _ := d.Head(0); len(head) != 1<<16+1 {
		t.Errorf("a CRLF across the cut: head of %d bytes, want the comment line", len(head))
	}
}

// TestReadDocumentsMarkedAcrossCut: Mark sees a word that a cut between two
// pieces of a long line splits.
func TestReadDocumentsMarkedAcrossCut(t *testing.T) {
	for _, at := range []int{1<<16 - 8, 1<<16 - 1, 1 << 16, 2<<16 - 4} {
		in := "a: 1\n---\nb: " + strings.Repeat("x", at-3) + "Namespace\n"
		d, err := ReadDocuments(strings.NewReader(in), Options{Mark: func(l []byte) bool { return strings.Contains(string(l), "Namespace") }})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(d.Marked) != "[1]" {
			t.Errorf("the word at %d of its line: marked %v, want [1]", at, d.Marked)
		}
		d.Close()
	}
}
