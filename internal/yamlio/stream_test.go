package yamlio

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/emit"
)

const pod = "  apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n"

func TestReadSplits(t *testing.T) {
	in := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n  data: {a: b}\nitems:\n-" + pod[1:] +
		"\n-\n" + pod + "- # Namespace\n" + pod + "results:\n- message: old\n"
	r, err := Read(strings.NewReader(in), Options{Mark: func(line []byte) bool { return bytes.Contains(line, []byte("Namespace")) }})
	if err != nil {
		t.Fatal(err)
	}
	l := r.Layout
	if l == nil {
		t.Fatalf("declined: %s", r.Declined)
	}
	wantSkeleton := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n  data: {a: b}\nitems: []\nresults:\n- message: old\n"
	if string(l.Skeleton) != wantSkeleton || l.ItemsLine != 5 || l.NextKeyLine != 6 {
		t.Errorf("skeleton %q, items line %d, next key line %d", l.Skeleton, l.ItemsLine, l.NextKeyLine)
	}
	want := []string{"-" + pod[1:] + "\n", "-\n" + pod, "- # Namespace\n" + pod}
	if l.Len() != len(want) {
		t.Fatalf("%d items, want %d", l.Len(), len(want))
	}
	for i, w := range want {
		if got, err := r.Item(i); err != nil || string(got) != w {
			t.Errorf("item %d = %q, %v; want %q", i, got, err, w)
		}
		if _, err := ParseItem([]byte(w)); err != nil {
			t.Errorf("item %d does not parse: %v", i, err)
		}
	}
	if fmt.Sprint(l.Marked) != "[2]" {
		t.Errorf("marked %v, want [2]", l.Marked)
	}
	if b, err := r.Bytes(); err != nil || string(b) != in {
		t.Errorf("Bytes = %q, %v", b, err)
	}
}

func TestReadDeclines(t *testing.T) {
	head := "kind: ResourceList\n"
	for _, tc := range []struct{ name, in, why string }{
		{"no items", head, "no items key"},
		{"empty items", head + "items:\nfunctionConfig: {}\n", "no items"},
		{"flow items", head + "items: [{a: b}]\n", "items key the splitter does not take"},
		{"quoted items key", head + "\"items\":\n- a: b\n", "not a plain key"},
		{"lone CR", head + "items:\n- a: b\rc: d\n", "CR"},
		{"tab at the items' column", head + "items:\n- a: b\n\t- c: d\n", "tab"},
		{"tab in a comment between items", head + "items:\n- a: b\n#\tc\n- a: b\n", "tab"},
		{"tab before the items", "kind:\tResourceList\nitems:\n- a: b\n", "tab"},
		{"NEL", head + "items:\n- a: b\u0085c: d\n", "line break"},
		{"LS", head + "items:\n- a: b\u2028c: d\n", "line break"},
		{"BOM after the start", head + "\ufeffitems:\n- a: b\n", "byte order mark"},
		{"document start after a key", "---\n" + head + "---\nitems:\n- a: b\n", "document marker"},
		{"document start with a comment", "--- # c\n" + head + "items:\n- a: b\n", "document marker"},
		{"document end", head + "items:\n- a: b\n...\n", "does not continue"},
		{"document marker after the items", head + "items:\n- a: b\nx: y\n---\n", "document marker"},
		{"comment after the last flow item", head + "items:\n- {a: b}\n# c\n", "does not start with a plain key"},
		{"comment after the last item, no line break after it", head + "items:\n- a:\n# c", "no line break"},
		{"indented comment after the last item", head + "items:\n  - a: b\n\n  # c\nfunctionConfig: {}\n", "not at column 0"},
		{"comment at the end of the last item, then one at column 0", head + "items:\n- a: b\n  # c\n# d\nfunctionConfig: {}\n", "comment at the end"},
		{"items at two columns", head + "items:\n  - a: b\n - a: b\n", "does not continue"},
		{"item text at column 0", head + "items:\n- a: |\nx\n", "does not continue"},
		{"second items key", head + "items:\n- a: b\nitems:\n- c: d\n", "items key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Read(strings.NewReader(tc.in), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Layout != nil || !strings.Contains(r.Declined, tc.why) {
				t.Errorf("layout %v, declined %q; want a decline with %q", r.Layout != nil, r.Declined, tc.why)
			}
		})
	}
}

// TestReadJoins: an item whose end, or the comments after it, the parser
// may attach otherwise when it is parsed alone is joined to the next item,
// and both parse together; a comment at the items' column inside an item
// stays in it.
func TestReadJoins(t *testing.T) {
	head := "kind: ResourceList\n"
	for _, tc := range []struct {
		name, in string
		joined   bool
	}{
		{"comment inside an item at the items' column", head + "items:\n- a: b\n# c\n  d: e\n", false},
		{"comment after a flow item", head + "items:\n- {a: b}\n# c\n- a: b\n", true},
		{"comment after a quoted key", head + "items:\n- \"a\": b\n# c\n- a: b\n", true},
		{"comment after a key at another column", head + "items:\n- #\n    a: b\n# c\n- a: b\n", true},
		{"comment after a kept block scalar", head + "items:\n- a: |+\n    b\n\n# c\n- a: b\n", true},
		{"comment at the end of an item, then a comment before the next", head + "items:\n- a: b\n  # c\n# d\n- a: b\n", true},
		{"comment at the end of a flow item", head + "items:\n- {a: b}\n  # c\n- a: b\n", true},
		{"an anchor an item after it uses", head + "items:\n- a: &x {b: c}\n- a: b\n  d: [*x]\n", true},
		{"an anchor the item itself uses", head + "items:\n- a: &x b\n  c: *x\n- d: &x e\n  f: *x\n", false},
		{"text that reads as an anchor and an alias", head + "items:\n- a: |\n    x && y; ls *.txt\n  b: c &y\n- c: |\n    ls *.txt *y\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Read(strings.NewReader(tc.in), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Layout == nil {
				t.Fatalf("declined: %s", r.Declined)
			}
			if r.Layout.Joined(0) != tc.joined {
				t.Errorf("item 0 joined %v, want %v", r.Layout.Joined(0), tc.joined)
			}
			for i := range r.Layout.Len() {
				if _, err := r.ParseItem(i); err != nil {
					t.Errorf("item %d: %v", i, err)
				}
			}
		})
	}
}

// TestReadSplitsShapes: CRLF line breaks, a byte order mark, a document
// start marker, and comments
// and blank lines before, between and after the items split like plain
// YAML; a comment before an item starts the item's text, after the last
// one it goes to the skeleton.
func TestReadSplitsShapes(t *testing.T) {
	in := "\ufeff---\r\nkind: ResourceList\r\nitems:\r\n\r\n# first\r\n-" + pod[1:] + "\n# second\n#\n\n- # head\n" + pod +
		"  # indented\n  x: y\n\n\n# after\r\n\r\nfunctionConfig: {}\r\n"
	r, err := Read(strings.NewReader(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := r.Layout
	if l == nil {
		t.Fatalf("declined: %s", r.Declined)
	}
	wantSkeleton := "\ufeff---\r\nkind: ResourceList\r\nitems: []\n\n\n# after\r\n\r\nfunctionConfig: {}\r\n"
	if string(l.Skeleton) != wantSkeleton || l.ItemsLine != 3 || l.NextKeyLine != 8 {
		t.Errorf("skeleton %q, items line %d, next key line %d", l.Skeleton, l.ItemsLine, l.NextKeyLine)
	}
	want := []string{"\r\n# first\r\n-" + pod[1:], "\n# second\n#\n\n- # head\n" + pod + "  # indented\n  x: y\n"}
	if l.Len() != len(want) {
		t.Fatalf("%d items, want %d", l.Len(), len(want))
	}
	for i, w := range want {
		if got, err := r.Item(i); err != nil || string(got) != w {
			t.Errorf("item %d = %q, %v; want %q", i, got, err, w)
		}
		item, err := r.ParseItem(i)
		if err != nil {
			t.Fatalf("item %d does not parse: %v", i, err)
		}
		if item.GetKind() != "Pod" {
			t.Errorf("item %d is a %q", i, item.GetKind())
		}
	}
}

// TestReadSplitsItemsEndingInComments: an item whose last line is a
// comment (a file's closing comment, kept by kyaml at the deepest last key)
// or a line of a block scalar that starts with "#" (a config file of
// comments only) splits like any other, before an item, before a
// top-level key and at the end of the input, and each item parses alone
// to what the whole list holds: the parser puts a comment at the end of a
// mapping on another key at the end of the input than before what follows.
func TestReadSplitsItemsEndingInComments(t *testing.T) {
	const (
		trailing = "- a: 1\n  b:\n    c: 2\n  # [END region_tag]\n"
		deeper   = "- a: 1\n  b:\n  - c:\n    - 2\n    # end\n  # two\n\n"
		scalar   = "- kind: ConfigMap\n  data:\n    config.yaml: |\n      # use this file to override\n      #\n      # see conf\n"
		headed   = "- # Source: chart/templates/cm.yaml\n  kind: ConfigMap\n"
	)
	head := "kind: ResourceList\nitems:\n"
	for name, in := range map[string]string{
		"before an item":            head + trailing + deeper + scalar + headed,
		"before a headed item":      head + scalar + headed + trailing + "- {x: 0}\n",
		"before a key":              head + headed + trailing + "functionConfig: {}\n",
		"at the end":                head + scalar + deeper,
		"before a key, indented":    "kind: ResourceList\nitems:\n  " + strings.ReplaceAll(strings.TrimSuffix(trailing+scalar, "\n"), "\n", "\n  ") + "\nx: y\n",
		"before an item, with CRLF": strings.ReplaceAll(head+deeper+trailing+headed, "\n", "\r\n"),
	} {
		t.Run(name, func(t *testing.T) {
			r, err := Read(strings.NewReader(in), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Layout == nil {
				t.Fatalf("declined: %s", r.Declined)
			}
			doc, err := DecodeOne(strings.NewReader(strings.ReplaceAll(in, "\r\n", "\n")))
			if err != nil {
				t.Fatal(err)
			}
			items := doc.Content[0].Content[3].Content // kind, ResourceList, items
			if r.Layout.Len() != len(items) {
				t.Fatalf("%d items, want %d", r.Layout.Len(), len(items))
			}
			for i, want := range items {
				got, err := r.ParseItem(i)
				if err != nil {
					t.Fatalf("item %d does not parse alone: %v", i, err)
				}
				wantText, _ := emit.ItemText(yaml.NewRNode(want))
				gotText, _ := emit.ItemText(got)
				if string(gotText) != string(wantText) {
					t.Errorf("item %d parses alone as\n%s\nwant, as in the whole list,\n%s", i, gotText, wantText)
				}
			}
		})
	}
}

// TestReadSplitsJSON: a JSON ResourceList, on one line or pretty-printed,
// splits at its items, which are read as they are in the list.
func TestReadSplitsJSON(t *testing.T) {
	item := `{"kind": "Pod", "metadata": {"name": "a\"]}"}, "x": [1, -2.5e3, true, false, null, {}, []]}`
	oneLine := `{"apiVersion":"config.kubernetes.io/v1","kind":"ResourceList","items":[` + item + `,{"kind":"Namespace"}],"functionConfig":{"data":{"items":"[]"}}}`
	pretty := "\ufeff{\r\n  \"kind\": \"ResourceList\",\r\n  \"items\": [\r\n    " + item + ",\r\n\t{\"kind\": \"Namespace\"}\r\n  ]\r\n}\r\n"
	for name, in := range map[string]string{"one line": oneLine, "pretty": pretty} {
		t.Run(name, func(t *testing.T) {
			r, err := Read(strings.NewReader(in), Options{Mark: func(s []byte) bool { return bytes.Contains(s, []byte("Namespace")) }})
			if err != nil {
				t.Fatal(err)
			}
			l := r.Layout
			if l == nil {
				t.Fatalf("declined: %s", r.Declined)
			}
			wantSkeleton := strings.Replace(strings.Replace(in, item, "", 1), `{"kind":"Namespace"}`, "", 1)
			wantSkeleton = strings.Replace(strings.Replace(wantSkeleton, "[,", "[", 1), "[\r\n    ,\r\n\t{\"kind\": \"Namespace\"}\r\n  ]", "[]", 1)
			if !l.JSON || string(l.Skeleton) != wantSkeleton {
				t.Errorf("JSON %v, skeleton %q, want %q", l.JSON, l.Skeleton, wantSkeleton)
			}
			if fmt.Sprint(l.Marked) != "[1]" {
				t.Errorf("marked %v, want [1]", l.Marked)
			}
			for i, w := range []string{item, `{"kind": "Namespace"}`} {
				got, err := r.Item(i)
				if err != nil || strings.ReplaceAll(string(got), " ", "") != strings.ReplaceAll(w, " ", "") {
					t.Errorf("item %d = %q, %v; want %q", i, got, err, w)
				}
				if _, err := r.ParseItem(i); err != nil {
					t.Errorf("item %d does not parse: %v", i, err)
				}
			}
		})
	}
}

func TestReadDeclinesJSON(t *testing.T) {
	const pod = `{"kind": "Pod"}`
	for _, tc := range []struct{ name, in, why string }{
		{"no items", `{"kind": "ResourceList"}`, "no items key"},
		{"empty items", `{"kind": "ResourceList", "items": []}`, "does not take"},
		{"items not a list", `{"kind": "ResourceList", "items": {}}`, "items key the splitter does not take"},
		{"two items keys", `{"items": [` + pod + `], "items": [` + pod + `]}`, "items key the splitter does not take"},
		{"escaped key", `{"\u0069tems": [` + pod + `]}`, "escaped top-level key"},
		{"scalar item", `{"items": [` + pod + `, 1]}`, "between the items"},
		{"trailing comma", `{"items": [` + pod + `,]}`, "between the items"},
		{"comment", "{\"items\": [" + pod + "] # c\n}", "'#'"},
		{"YAML flow mapping", `{items: [{kind: Pod}]}`, "'i'"},
		{"single quotes", `{'items': [{kind: Pod}]}`, "'\\''"},
		{"unbalanced", `{"items": [{"a": [}]]}`, "unbalanced"},
		{"unfinished", `{"items": [` + pod + `]`, "does not end"},
		{"more after it", `{"items": [` + pod + `]} x`, "more after"},
		{"control character", "{\"items\": [{\"a\": \"\tb\"}]}", "control character"},
		{"line separator", "{\"items\": [{\"a\": \"\u2028\"}]}", "line break"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Read(strings.NewReader(tc.in), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Layout != nil || !strings.Contains(r.Declined, tc.why) {
				t.Errorf("layout %v, declined %q; want a decline with %q", r.Layout != nil, r.Declined, tc.why)
			}
		})
	}
}

func TestParseItemRefuses(t *testing.T) {
	for _, text := range []string{
		"- a: [\n",
		"- just a scalar\n",
		"- a: b\n- c: d\n",
		"- *unknown\n",
		"- a: b\n---\n- c: d\n",
		"- [a, b]\n",
	} {
		if _, err := ParseItem([]byte(text)); err == nil {
			t.Errorf("ParseItem(%q) did not fail", text)
		}
	}
}

// TestReadDeclinesRegularFile: input on a regular file that the splitter
// declines is left in the file, read from where the file stood, not
// spooled; Bytes and Size are the input's.
func TestReadDeclinesRegularFile(t *testing.T) {
	for _, tc := range []struct{ name, in, why string }{
		{"YAML", "kind: ResourceList\nitems:\n- a: b\n\t- c: d\n", "tab"},
		{"JSON", `{"kind": "ResourceList", "items": [{"a": "b"}], "items": []}`, "items key the splitter does not take"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const before = "read before: not the input\n"
			path := filepath.Join(t.TempDir(), "input")
			if err := os.WriteFile(path, []byte(before+tc.in), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.Seek(int64(len(before)), io.SeekStart); err != nil {
				t.Fatal(err)
			}
			r, err := Read(f, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if r.Layout != nil || !strings.Contains(r.Declined, tc.why) {
				t.Errorf("layout %v, declined %q; want a decline with %q", r.Layout != nil, r.Declined, tc.why)
			}
			if r.spool != nil {
				t.Error("the input was spooled")
			}
			if b, err := r.Bytes(); err != nil || string(b) != tc.in || r.Size() != int64(len(tc.in)) {
				t.Errorf("Bytes = %q, %v; Size = %d; want %q", b, err, r.Size(), tc.in)
			}
		})
	}
}
