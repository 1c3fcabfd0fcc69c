package config

import (
	"errors"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/shapes"
)

// textCases are values and documents of every kind the messages name.
var textCases = []string{
	"plain", "", "-5", "0x10", "1e3", "yes", "true", "~", "null", "2001-12-14", "!!binary aGVsbG8=", "!custom v",
	"99999999999999999999", "-99999999999999999999", "\"a\\nb\\x1b[31m\\u202e\"", "'" + strings.Repeat("long ", 20) + "'",
	"[]", "[1]", "[1, 2]", "{}", "{a: 1}", "{a: 1, b: 2}", "&x 1", "[&x 1, *x]", "\"\\xff\"",
}

// TestTextAgrees: the config's copies of report's Found and Escape say
// what report's say.
func TestTextAgrees(t *testing.T) {
	for _, src := range textCases {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		nodes := []*yaml.Node{&doc, nil}
		if len(doc.Content) == 1 {
			nodes = append(nodes, doc.Content[0])
			nodes = append(nodes, doc.Content[0].Content...)
		}
		for _, n := range nodes {
			if got, want := found(n), report.Found(n); got != want {
				t.Errorf("%q: found %q, report.Found %q", src, got, want)
			}
		}
	}
	for _, s := range append(textCases, "a\tb", "\u2028", "\x00\x7f", "é", "\xff\xfe", "\u202egnp.exe") {
		if got, want := escape(s), report.Escape(s); got != want {
			t.Errorf("%q: escape %q, report.Escape %q", s, got, want)
		}
		if got, want := quote(s), report.Quote(s); got != want {
			t.Errorf("%q: quote %q, report.Quote %q", s, got, want)
		}
	}
}

// TestKeysAgree: the config's key check finds what shapes.Walk finds,
// with the same error.
func TestKeysAgree(t *testing.T) {
	long := "{" + strings.Repeat("k0: 1, ", 1)
	for i := 1; i < 20; i++ {
		long += "k" + string(rune('a'+i)) + ": 1, "
	}
	failed := 0
	for _, src := range []string{
		"a: 1\nb: 2\n", "a: 1\na: 2\n", "spec: {x: [1, {y: 1, y: 2}]}\n", "? [a]\n: 1\n", "spec: {? {a: 1} : 2}\n",
		"x: &k a\n*k : 1\n", "x: &k a\ny: {a: 1, *k : 2}\n", "\"a.b\": {c: 1, c: 2}\n", "[{a: 1, a: 1}]\n",
		long + "ka: 2}\n", long + "zz: 2}\n", "<<: {a: 1}\nb: 1\n",
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		got := checkKeys(&doc)
		if got != nil {
			failed++
		}
		_, want := shapes.Walk(&doc)
		if (got == nil) != (want == nil) || got != nil && got.Error() != want.Error() {
			t.Errorf("%q: checkKeys %v, shapes.Walk %v", src, got, want)
		}
		var dup *duplicateKeyError
		var wantDup *shapes.DuplicateKeyError
		if errors.As(got, &dup) != errors.As(want, &wantDup) || dup != nil && (dup.path != wantDup.Path || dup.key != wantDup.Key) {
			t.Errorf("%q: duplicate %+v, yamlshape's %+v", src, dup, wantDup)
		}
	}
	if failed < 6 {
		t.Errorf("only %d documents fail the key check", failed)
	}
}
