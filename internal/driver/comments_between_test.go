package driver_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
)

// TestCommentBlocksBetweenItems: comment blocks separated by blank lines
// between two items come out before the second item in the order they came
// in, the streaming path takes the list and gives the whole-list path's
// bytes, and a second run changes nothing.
func TestCommentBlocksBetweenItems(t *testing.T) {
	item := func(name string) string {
		return "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: " + name + "\n"
	}
	for _, gap := range []string{
		"# a\n\n\n# b\n\n# c\n",
		"# a\n\n# b\n",
		"\n# a\n\n# b\n\n",
		"# a\n\n# b\n\n\n# c\n\n# d\n\n",
	} {
		in := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + item("one") + gap + item("two")
		streamed, problem := compareRuns([]byte(in))
		if problem != "" {
			t.Fatalf("gap %q: %s", gap, problem)
		}
		if !streamed {
			t.Errorf("gap %q: the streaming path declined the list", gap)
		}
		var once, twice bytes.Buffer
		if err := driver.Run(strings.NewReader(in), &once); err != nil {
			t.Fatalf("gap %q: %v", gap, err)
		}
		if err := driver.Run(bytes.NewReader(once.Bytes()), &twice); err != nil {
			t.Fatalf("gap %q: second run: %v", gap, err)
		}
		if once.String() != twice.String() {
			t.Errorf("gap %q: not a fixed point:\n--- once\n%s--- twice\n%s", gap, once.String(), twice.String())
		}
		out := once.String()
		if got, want := commentsOf(out), commentsOf(gap); got != want {
			t.Errorf("gap %q: comments %q, want %q:\n%s", gap, got, want, out)
		}
		if strings.Index(out, "# a") > strings.Index(out, "name: two") {
			t.Errorf("gap %q: the comments moved into the second item:\n%s", gap, out)
		}
	}
}

// commentsOf lists the comment lines of text in order, one a line.
func commentsOf(text string) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
