package shapes

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// encItems writes an item as an entry of a list, as items are written.
func encItems(t testing.TB, item *yaml.Node) string {
	t.Helper()
	s, err := encode(item)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// parseItems reads the last entry of a list written by encItems.
func parseItems(t testing.TB, s string) *yaml.Node {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(s), &n); err != nil {
		t.Fatalf("%v\n%s", err, s)
	}
	entries := n.Content[0].Content[1].Content
	return entries[len(entries)-1]
}

// base is a pod with lists and mappings at several depths, flow style
// and a block scalar.
var base = `items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: p
  spec:
    containers:
    - name: app
      env:
      - name: A
        value: "1"
      - name: B
        value: "2"
      - name: C
        value: "3"
      image: x
    - name: proxy
      args:
      - a
      - b
    volumes:
    - name: v
      configMap: {name: c, items: [{key: a, path: b}]}
    - name: w
      secret:
        secretName: s
  data:
    script: |
      echo a
      echo b
`

// randomLayout inserts comment lines, blank lines and line comments at
// random places and depths of base.
func randomLayout(r *rand.Rand) string {
	lines := strings.SplitAfter(base, "\n")
	lines = lines[:len(lines)-1]
	for n := 1 + r.Intn(5); n > 0; n-- {
		at := 2 + r.Intn(len(lines)-1)
		var ins []string
		ind := strings.Repeat(" ", 2*r.Intn(5))
		if r.Intn(4) == 0 && lines[at-1] != "\n" && !strings.Contains(lines[at-1], "#") {
			lines[at-1] = strings.TrimSuffix(lines[at-1], "\n") + fmt.Sprintf(" # l%d\n", r.Intn(100))
			continue
		}
		for k := 1 + r.Intn(3); k > 0; k-- {
			switch r.Intn(3) {
			case 0:
				ins = append(ins, "\n")
			default:
				ins = append(ins, fmt.Sprintf("%s# c%d\n", ind, r.Intn(100)))
			}
		}
		lines = append(lines[:at], append(ins, lines[at:]...)...)
	}
	return strings.Join(lines, "")
}

// TestStableIsFixedPoint: what Stable returns is written so that it reads
// back and writes the same, and keeps every comment, on thousands of
// random comment layouts, most of which kyaml's own round trip moves.
func TestStableIsFixedPoint(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	r := rand.New(rand.NewSource(1))
	moved := 0
	for i := 0; i < n; i++ {
		in := randomLayout(r)
		var doc yaml.Node
		if yaml.Unmarshal([]byte(in), &doc) != nil {
			continue
		}
		plain := encItems(t, parseItems(t, in))
		if encItems(t, parseItems(t, plain)) != plain {
			moved++
		}
		once := encItems(t, Stable(parseItems(t, in)))
		twice := encItems(t, Stable(parseItems(t, once)))
		if once != twice {
			t.Fatalf("not a fixed point:\n--- in\n%s--- once\n%s--- twice\n%s", in, once, twice)
		}
		if !sameComments(once, plain) || !inOrder(once, in) && commentLines(once) != commentLines(plain) {
			t.Fatalf("comments lost or out of order:\n--- in\n%s--- kyaml\n%s--- once\n%s", in, plain, once)
		}
	}
	if moved < n/200 {
		t.Errorf("kyaml's round trip moved comments in only %d of %d layouts: the layouts are too tame", moved, n)
	}
}

// TestStableKeepsStableTrees: a tree whose comments read back where they
// are is returned as it is, even with foot comments.
func TestStableKeepsStableTrees(t *testing.T) {
	item := parseItems(t, "items:\n- kind: Pod\n  spec:\n    containers:\n    - name: a\n      # end of a\n    # before b\n    - name: b\n")
	if got := Stable(item); got != item {
		t.Errorf("a stable tree was copied:\n%s", encItems(t, got))
	}
}

// TestStableVendorLayout: the Cloud SQL Auth Proxy's env layout, comment
// blocks and a commented-out entry between blank lines, reads back where
// it is written, with every comment in the order it came.
func TestStableVendorLayout(t *testing.T) {
	in := `items:
- env:
  # Replace <DB_PORT> with the port that the proxy should open
  - name: CSQL_PROXY_PORT
    value: "5432"

  # If connecting from a VPC-native GKE cluster, you can use the
  # following to have the proxy connect over private IP

  # - name: CSQL_PROXY_PRIVATE_IP
  #   value: "true"

  # Enable HTTP healthchecks on port 9801.
  - name: CSQL_PROXY_HEALTH_CHECK
    value: "true"

  # - name: CSQL_PROXY_STRUCTURED_LOGS
  #   value: "true"
  securityContext: {}
`
	plain := encItems(t, parseItems(t, in))
	if encItems(t, parseItems(t, plain)) == plain {
		t.Fatal("kyaml's round trip no longer moves this layout: the test shows nothing")
	}
	once := encItems(t, Stable(parseItems(t, in)))
	if twice := encItems(t, Stable(parseItems(t, once))); twice != once {
		t.Errorf("not a fixed point:\n--- once\n%s--- twice\n%s", once, twice)
	}
	if commentLines(once) != commentLines(in) {
		t.Errorf("comments out of order:\n%s", once)
	}
}

// sameComments reports whether two texts hold the same comments, in any
// order.
func sameComments(a, b string) bool {
	x, y := strings.Split(commentLines(a), "\n"), strings.Split(commentLines(b), "\n")
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// inOrder reports whether the comments of text come in the order they
// have in the input in (which may hold more).
func inOrder(text, in string) bool {
	want := strings.Split(commentLines(in), "\n")
	for _, c := range strings.Split(commentLines(text), "\n") {
		i := slices.Index(want, c)
		if i < 0 {
			return false
		}
		want = want[i+1:]
	}
	return true
}

// commentLines lists the comments of a text in order, one a line.
func commentLines(text string) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if i := strings.Index(line, "#"); i >= 0 {
			out = append(out, line[i:])
		}
	}
	return strings.Join(out, "\n")
}

// TestStableFoldedScalar: a folded scalar with a more-indented line, which
// the YAML encoder writes with one more line break on every run, is
// written so that it reads back with the same value, run after run.
func TestStableFoldedScalar(t *testing.T) {
	in := "items:\n- data:\n    strip: >-\n     # not a comment\n      folded\n         more indented\n      text\n"
	value := func(s string) string { return parseItems(t, s).Content[1].Content[1].Value }
	want := value(in)
	plain := encItems(t, parseItems(t, in))
	if value(plain) == want {
		t.Fatal("kyaml's round trip no longer changes this scalar: the test shows nothing")
	}
	once := encItems(t, Stable(parseItems(t, in)))
	twice := encItems(t, Stable(parseItems(t, once)))
	if value(once) != want || twice != once {
		t.Errorf("value %q, want %q; second run:\n%s", value(once), want, twice)
	}
}

// TestStableBetweenItems: comment blocks between blank lines before an
// item that follows another, which the YAML library reads partly onto the
// item's first key, are written before the item, in their order, and read
// back there.
func TestStableBetweenItems(t *testing.T) {
	for _, gap := range []string{
		"# a\n\n\n# b\n\n# c\n",
		"# a\n\n# b\n",
		"\n# a\n\n# b\n\n",
		"# a\n\n# b\n  # c\n\n# d\n",
	} {
		in := "items:\n- x: 0\n" + gap + "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: two\n"
		once := encItems(t, Stable(parseItems(t, in)))
		if twice := encItems(t, Stable(parseItems(t, once))); twice != once {
			t.Errorf("gap %q: not a fixed point:\n--- once\n%s--- twice\n%s", gap, once, twice)
		}
		if commentLines(once) != commentLines(in) {
			t.Errorf("gap %q: comments lost or out of order:\n%s", gap, once)
		}
	}
}

// TestTrailing: the comments at the end of a tree's text are taken from
// the last path, in text order, and put back on the deepest last key.
func TestTrailing(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("a:\n  b:\n  - x: 1\n    y: 2\n    # inner\n  # outer\n"), &doc); err != nil {
		t.Fatal(err)
	}
	got := TakeTrailing(&doc)
	if !strings.Contains(got, "# inner") || !strings.Contains(got, "# outer") || strings.Index(got, "# inner") > strings.Index(got, "# outer") {
		t.Fatalf("taken %q, want both comments in text order", got)
	}
	if again := TakeTrailing(&doc); again != "" {
		t.Errorf("a second take found %q", again)
	}
	m := doc.Content[0].Content[1].Content[1].Content[0] // the mapping {x, y}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "z"}, &yaml.Node{Kind: yaml.ScalarNode, Value: "3"})
	PutTrailing(&doc, got)
	if k := m.Content[4]; k.Value != "z" || k.FootComment != got {
		t.Errorf("put on %q with %q, want on z", k.Value, k.FootComment)
	}
	PutTrailing(&doc, "")
	if m.Content[4].FootComment != got {
		t.Error("an empty comment changed the tree")
	}
}
