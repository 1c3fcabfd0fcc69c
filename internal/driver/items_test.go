package driver_test

import (
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
)

// TestPlainItems: the resources of a plain stream, in order, without the
// documents that hold only comments; a document that is not YAML, or not
// a mapping, is an error naming it.
func TestPlainItems(t *testing.T) {
	in := "# leading comment\napiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\n# nothing here\n---\n{\"apiVersion\": \"apps/v1\", \"kind\": \"Deployment\", \"metadata\": {\"name\": \"web\"}}\n--- # a comment\r\nkind: Pod\r\nmetadata:\r\n  name: p\r\n"
	items, err := driver.PlainItems(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range items {
		got = append(got, it.GetKind()+" "+it.GetName())
	}
	if strings.Join(got, ", ") != "Namespace shop, Deployment web, Pod p" {
		t.Errorf("items %q", got)
	}
	for in, want := range map[string]string{
		"kind: Pod\n---\nkind: [\n":       "line 3: not valid YAML",
		"kind: Pod\n---\n- a\n- b\n":      "line 3: expected a Kubernetes resource (a mapping), found a list of 2 entries",
		"---\nkind: Pod\n---\n\"text\"\n": "line 4: expected a Kubernetes resource (a mapping), found the string",
	} {
		if _, err := driver.PlainItems(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
}
