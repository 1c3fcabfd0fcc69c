package yamlio

import (
	"errors"
	"strings"
	"testing"
)

// TestReadTooLarge: a ResourceList item past the limit, in YAML or JSON,
// and a list the splitter does not take that is past it, stop the read
// with an error naming the item or the list and the line it starts on,
// before the rest is read; smaller ones are read.
func TestReadTooLarge(t *testing.T) {
	head := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
	small := "- {apiVersion: v1, kind: Pod, metadata: {name: a}}\n"
	bigYAML := "- apiVersion: v1\n  kind: ConfigMap\n  data:\n" + strings.Repeat("    k: v\n", 200)
	jsonHead := `{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [` + "\n"
	for _, tc := range []struct {
		name, in, what string
		line           int
	}{
		{"YAML item", head + small + bigYAML + strings.Repeat("    k: v\n", 1<<17), "ResourceList items[1]", 5},
		{"YAML long line", head + small + "- " + strings.Repeat("x", 1<<20) + "\n", "ResourceList items[1]", 5},
		{"YAML long line in an item", head + small + "- a: " + strings.Repeat("x", 1<<20) + "\n", "ResourceList items[1]", 5},
		{"YAML long line after an item", head + small + "  a: " + strings.Repeat("x", 1<<20) + "\n", "ResourceList items[0]", 4},
		{"JSON item", jsonHead + `{"kind": "Pod"},` + "\n" + `{"kind": "ConfigMap", "data": {"k": "` + strings.Repeat("v", 1<<20) + `"}}]}`, "ResourceList items[1]", 3},
		{"functionConfig", "functionConfig:\n" + strings.Repeat("  k: v\n", 1<<17) + head + small, "the ResourceList without its items", 1},
		{"declined", head + small + "--- \n" + bigYAML + strings.Repeat("    k: v\n", 1<<17), "the ResourceList (not split into its items: line 5: ", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &countingReader{r: strings.NewReader(tc.in)}
			_, err := Read(r, Options{MaxDocumentSize: 1000})
			var le *LineError
			var tl *TooLargeError
			if !errors.As(err, &le) || !errors.As(err, &tl) || !strings.HasPrefix(tl.What, tc.what) || le.Line != tc.line {
				t.Fatalf("error %v, want %s too large at line %d", err, tc.what, tc.line)
			}
			if r.n > 1<<18 {
				t.Errorf("read %d bytes before stopping", r.n)
			}
		})
	}
	in, err := Read(strings.NewReader(head+small+small), Options{MaxDocumentSize: 100})
	if err != nil || in.Layout == nil || in.Layout.Len() != 2 {
		t.Errorf("a list of small items: %v", err)
	}
}
