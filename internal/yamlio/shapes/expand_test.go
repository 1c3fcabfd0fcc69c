package shapes

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

func write(t *testing.T, n *yaml.Node) string {
	t.Helper()
	b, err := yaml.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// decoded is the data of a YAML text, aliases and merge keys resolved by
// the YAML library itself.
func decoded(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v\n%s", err, s)
	}
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestExpand: the expanded tree has no anchor and no alias, means what the
// input means as the YAML library reads it (merge keys: explicit keys win,
// earlier mappings win over later ones), and the input is not changed.
func TestExpand(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"alias of a mapping", "a: &r {cpu: 1}\nb: *r\n", "a: {cpu: 1}\nb: {cpu: 1}\n"},
		{"alias of a list", "a: &e\n- name: X\nb: *e\n", "a:\n- name: X\nb:\n- name: X\n"},
		{"alias of a scalar", "a: &v 30\nb: *v\n", "a: 30\nb: 30\n"},
		{"merge, explicit key wins", "base: &b\n  image: x\n  name: base\nc:\n  <<: *b\n  name: proxy\n",
			"base:\n  image: x\n  name: base\nc:\n  image: x\n  name: proxy\n"},
		{"merge list, earlier wins", "a: &a {k: a, x: 1}\nb: &b {k: b, y: 2}\nc: {<<: [*a, *b], z: 3}\n",
			"a: {k: a, x: 1}\nb: {k: b, y: 2}\nc: {k: a, x: 1, y: 2, z: 3}\n"},
		{"merge of an inline mapping", "c: {<<: {k: 1}, j: 2}\n", "c: {k: 1, j: 2}\n"},
		{"nested merge", "a: &a {k: 1}\nb: &b {<<: *a, j: 2}\nc: {<<: *b}\n", "a: {k: 1}\nb: {k: 1, j: 2}\nc: {k: 1, j: 2}\n"},
		{"merge in a list entry", "t: &t {image: x}\nl:\n- <<: *t\n  name: a\n", "t: {image: x}\nl:\n- image: x\n  name: a\n"},
		{"quoted << is a key", "c: {\"<<\": 1}\n", "c: {\"<<\": 1}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := parse(t, tc.in)
			before := write(t, in)
			got, err := Expand(in)
			if err != nil {
				t.Fatal(err)
			}
			text := write(t, got)
			if text != tc.want {
				t.Errorf("got\n%s\nwant\n%s", text, tc.want)
			}
			if decoded(t, text) != decoded(t, tc.in) {
				t.Errorf("the data changed:\n%s\nwas\n%s", decoded(t, text), decoded(t, tc.in))
			}
			if strings.ContainsAny(text, "&*") {
				t.Errorf("anchors or aliases left:\n%s", text)
			}
			if write(t, in) != before {
				t.Errorf("the input changed")
			}
		})
	}
}

// TestExpandComments: the comments of an alias and of a merge key stay, in
// one copy each; those of the anchored node stay at the anchor only.
func TestExpandComments(t *testing.T) {
	in := parse(t, "a: &r\n  # the limits\n  cpu: 1 # one core\nb: *r # same\nc:\n  # from the base\n  <<: *r # merged\n  mem: 2\n")
	got, err := Expand(in)
	if err != nil {
		t.Fatal(err)
	}
	text := write(t, got)
	for _, c := range []string{"# the limits", "# one core", "# same", "# from the base", "# merged"} {
		if strings.Count(text, c) != 1 {
			t.Errorf("%q appears %d times:\n%s", c, strings.Count(text, c), text)
		}
	}
}

// TestExpandErrors: a merge key on a scalar, and aliases that would expand
// without bound, are errors, not a hang or a crash.
func TestExpandErrors(t *testing.T) {
	laughs := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i, prev := 'b', 'a'; i <= 'j'; i, prev = i+1, i {
		laughs += string(i) + ": &" + string(i) + " [" + strings.Repeat("*"+string(prev)+", ", 9) + "*" + string(prev) + "]\n"
	}
	for _, tc := range []struct{ name, in, want string }{
		{"merge of a scalar", "a: &s 1\nb: {<<: *s}\n", "merge key"},
		{"merge of a list of scalars", "b: {<<: [1, 2]}\n", "merge key"},
		{"billion laughs", laughs, "expand to more than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Expand(parse(t, tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestCheckSize: CheckSize fails exactly where Expand does, without
// expanding.
func TestCheckSize(t *testing.T) {
	laughs := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i, prev := 'b', 'a'; i <= 'f'; i, prev = i+1, i {
		laughs += string(i) + ": &" + string(i) + " [" + strings.Repeat("*"+string(prev)+", ", 9) + "*" + string(prev) + "]\n"
	}
	for _, in := range []string{"a: &a {k: 1}\nb: *a\nc: [*a, *a]\n", laughs, laughs[:strings.Index(laughs, "d:")]} {
		n := parse(t, in)
		_, expandErr := Expand(n)
		if err := CheckSize(n); (err == nil) != (expandErr == nil) {
			t.Errorf("%.40q: CheckSize %v, Expand %v", in, err, expandErr)
		}
	}
}
