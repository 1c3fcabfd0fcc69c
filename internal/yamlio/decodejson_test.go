package yamlio

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestDecodeJSON: a JSON value read by DecodeJSON is written back by
// AppendJSON as the same compact JSON, each scalar with the tag the YAML
// parser gives it; text that is not one JSON value is refused.
func TestDecodeJSON(t *testing.T) {
	for _, in := range []string{
		`{"a":1,"b":-2.5e3,"c":"80","d":true,"e":null,"f":[],"g":{},"h":["x",{"y":"z"}],"i":"line\nbreak \u2028 \"q\""}`,
		`[1,2,3]`, `"text"`, `0`, `false`,
		`{"spec":{"containers":[{"name":"app","ports":[{"containerPort":8080}]}]},"z":"yes","y":"1e3"}`,
	} {
		n, err := DecodeJSON([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		out, err := AppendJSON(nil, n)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		_ = json.Compact(&want, []byte(in))
		if string(out) != want.String() {
			t.Errorf("%s: wrote %s", in, out)
		}
		var parsed yaml.Node
		if err := yaml.Unmarshal([]byte(in), &parsed); err != nil {
			t.Fatal(err)
		}
		if a, b := tags(n), tags(parsed.Content[0]); a != b {
			t.Errorf("%s: tags %s, the parser's %s", in, a, b)
		}
	}
	for _, bad := range []string{``, `{`, `{"a":1}x`, `{"a":}`, `[1,]`, `{"a":1,}`, `[01]`, "\"\x01\"", `{a:1}`, `tru`, strings.Repeat(`[`, maxJSONDepth+2) + strings.Repeat(`]`, maxJSONDepth+2)} {
		if _, err := DecodeJSON([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// tags are the nodes' kinds and tags in order.
func tags(n *yaml.Node) string {
	s := n.ShortTag()
	for _, c := range n.Content {
		s += " " + tags(c)
	}
	return s
}

// FuzzDecodeJSON: DecodeJSON reads what encoding/json finds valid (within
// its depth), refuses the rest, and AppendJSON writes the same value back.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x",true,null]}`, `"\u00e9\n"`, ` [ {} , [] ] `, `{"a":1,}`, `-0.0e+1`,
		`"\ud83d\ude00 \ud83d\u0041 \udc00 \/\b\f\r\t\"\\"`, "\"\xff\xc3\xa9\"", `"\u12"`, `"\x"`,
		`{"a":[{"a":1}],"b":[{"c":{"c":[]},"a":2},3,[{"c":1}]],"c":{"b":[{"c":0}]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		n, err := DecodeJSON(in)
		left, leftErr := DecodeJSONLeaving(in, []string{"a"}, []string{"b", "", "c"})
		if (err == nil) != (leftErr == nil) {
			t.Fatalf("%q: DecodeJSON %v, DecodeJSONLeaving %v", in, err, leftErr)
		}
		if valid := json.Valid(in); (err == nil) != valid {
			if !valid || !strings.Contains(err.Error(), "too deep") {
				t.Fatalf("%q: error %v, json.Valid %v", in, err, valid)
			}
		}
		if err != nil {
			return
		}
		out, err := AppendJSON(nil, n)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := numbered(in), numbered(out); a == nil || !reflect.DeepEqual(a, b) {
			t.Fatalf("%q: wrote %q", in, out)
		}
		leave(n, []string{"a"})
		leave(n, []string{"b", "", "c"})
		a, errA := AppendJSON(nil, n)
		b, errB := AppendJSON(nil, left)
		if errA != nil || errB != nil || string(a) != string(b) || tags(n) != tags(left) {
			t.Fatalf("%q: left out, %s; DecodeJSON with the keys removed, %s", in, b, a)
		}
	})
}

// TestDecodeJSONLeaving: the values at the paths are not kept, nor their
// keys, wherever a list is on the path; the rest is; what is left out is
// JSON still.
func TestDecodeJSONLeaving(t *testing.T) {
	in := `{"a":{"x":[1,{"y":2}]},"b":[{"c":{"d":1},"e":"\u00e9"},{"c":3}],"c":4,"f":{"a":5}}`
	n, err := DecodeJSONLeaving([]byte(in), []string{"a"}, []string{"b", "", "c"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := AppendJSON(nil, n)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"b":[{"e":"é"},{}],"c":4,"f":{"a":5}}`; string(out) != want {
		t.Errorf("wrote %s, want %s", out, want)
	}
	if _, err := DecodeJSONLeaving([]byte(`{"a":{"x":[1,}}`), []string{"a"}); err == nil {
		t.Error("bad JSON left out: no error")
	}
}

// leave removes the values at path from n, as DecodeJSONLeaving leaves
// them out.
func leave(n *yaml.Node, path []string) {
	if len(path) == 0 {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		var kept []*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == path[0] {
				if len(path) == 1 {
					continue
				}
				leave(n.Content[i+1], path[1:])
			}
			kept = append(kept, n.Content[i], n.Content[i+1])
		}
		n.Content = kept
	case yaml.SequenceNode:
		if path[0] == "" {
			for _, c := range n.Content {
				leave(c, path[1:])
			}
		}
	}
}

// numbered decodes JSON with its numbers as written; nil if it does not.
func numbered(b []byte) any {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil
	}
	return []any{v}
}
