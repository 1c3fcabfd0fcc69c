package shapes

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

func parse(t *testing.T, s string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(s), &doc); err != nil {
		t.Fatalf("%v\n%s", err, s)
	}
	return doc.Content[0]
}

// TestWalkKeyKinds: a key that is a mapping or a list, which no
// Kubernetes object and no strict YAML reader into string-keyed maps
// accepts, is an error naming the mapping's path.
func TestWalkKeyKinds(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"mapping key at the top", "{{}: x}\n", "a key is a mapping, not a string: use a string key"},
		{"list key in data", "data:\n  ? [a]\n  : x\n", "data: a key is a list, not a string"},
		{"alias of a mapping", "a: &m {k: 1}\nb: {*m : 2}\n", "b: a key is a mapping"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Walk(parse(t, tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestWalkDuplicateKeys: a key twice in any mapping is an error naming the
// mapping's path with list indexes and the key.
func TestWalkDuplicateKeys(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"top level", "kind: Pod\nkind: Deployment\n", `duplicate key "kind": remove one`},
		{"grace period", "spec:\n  terminationGracePeriodSeconds: 30\n  containers: []\n  terminationGracePeriodSeconds: 60\n",
			`spec: duplicate key "terminationGracePeriodSeconds"`},
		{"lifecycle in a container", "spec:\n  template:\n    spec:\n      containers:\n      - name: a\n        lifecycle: {}\n        lifecycle: {}\n",
			`spec.template.spec.containers[0]: duplicate key "lifecycle"`},
		{"name in the second container", "spec:\n  containers:\n  - name: a\n  - {name: b, image: x, name: c}\n",
			`spec.containers[1]: duplicate key "name"`},
		{"quoted and plain", "data:\n  a: 1\n  \"a\": 2\n", `data: duplicate key "a"`},
		{"annotation with dots", "metadata:\n  annotations:\n    a.b/c: x\n    a.b/c: y\n", `metadata.annotations: duplicate key "a.b/c"`},
		{"under a dotted key", "metadata:\n  annotations:\n    a.b/c:\n      k: 1\n      k: 2\n", `metadata.annotations["a.b/c"]: duplicate key "k"`},
		{"two merge keys", "a: &a {x: 1}\nb:\n  <<: *a\n  <<: *a\n", `b: duplicate key "<<"`},
		{"control character", "data:\n  \"\\e[31m\": 1\n  \"\\e[31m\": 2\n", `duplicate key "\x1b[31m"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Walk(parse(t, tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
			if strings.ContainsAny(err.Error(), "\n\x1b") {
				t.Errorf("error is not one escaped line: %q", err)
			}
		})
	}
}

// TestWalkShape: keys that differ, and a key merged in and set again, are
// no duplicates; anchors, aliases and merge keys are reported.
func TestWalkShape(t *testing.T) {
	for _, tc := range []struct {
		in       string
		anchored bool
	}{
		{"a: 1\nb: {a: 2}\nc: [{a: 3}, {a: 4}]\n", false},
		{"a: &x 1\n", true},
		{"a: [1]\nb: {<<: {c: 1}, c: 2}\n", true},
		{"a: &x {k: 1}\nb: *x\n", true},
	} {
		s, err := Walk(parse(t, tc.in))
		if err != nil || s.Anchored != tc.anchored {
			t.Errorf("%q: shape %+v, error %v; want anchored %v", tc.in, s, err, tc.anchored)
		}
	}
}

// TestWalkUnsettled: any comment, and a folded scalar with a more-indented
// line, is reported.
func TestWalkUnsettled(t *testing.T) {
	for _, tc := range []struct {
		in        string
		unsettled bool
	}{
		{"a: 1\nb: [x, y]\n", false},
		{"a: 1 # line\n", true},
		{"a:\n  b: 1\n  # foot of b\nc: 2\n", true},
		{"a: {b: 1}\n# head of c\nc: 2\n", true},
		{"a: >\n  folded\n  text\n", false},
		{"a: >\n  folded\n   more\n", true},
	} {
		s, err := Walk(parse(t, tc.in))
		if err != nil || s.Unsettled != tc.unsettled {
			t.Errorf("%q: shape %+v, error %v; want unsettled %v", tc.in, s, err, tc.unsettled)
		}
	}
}
