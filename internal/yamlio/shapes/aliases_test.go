package shapes

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// items parses a list and returns its entries.
func items(t *testing.T, s string) []*yaml.RNode {
	t.Helper()
	var out []*yaml.RNode
	for _, n := range parse(t, s).Content {
		out = append(out, yaml.NewRNode(n))
	}
	return out
}

// list writes items as one list, the way the whole-list path writes them.
func list(t *testing.T, items []*yaml.RNode) string {
	t.Helper()
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, it := range items {
		seq.Content = append(seq.Content, it.YNode())
	}
	return write(t, seq)
}

// TestKeepAliases: when an item with anchors is written expanded, the
// aliases of later items that referred to its anchors are expanded in a
// copy of their item; the others are left alone, and the list reads back
// strictly with the same data.
func TestKeepAliases(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		expand   []int // items written expanded
		want     string
		copied   []int // items that must be copied
	}{
		{
			name:   "alias of an expanded item's anchor",
			in:     "- {name: a, env: &e [{name: X}]}\n- {name: b, env: *e}\n",
			expand: []int{0},
			want:   "- {name: a, env: [{name: X}]}\n- {name: b, env: [{name: X}]}\n",
			copied: []int{1},
		},
		{
			name:   "anchors of items written as they came stay",
			in:     "- {name: a, env: &e [{name: X}]}\n- {name: b, env: *e}\n- {name: c, env: &f [{name: Y}], more: *e}\n",
			expand: []int{2},
			want:   "- {name: a, env: &e [{name: X}]}\n- {name: b, env: *e}\n- {name: c, env: [{name: Y}], more: [{name: X}]}\n",
		},
		{
			name:   "a name taken over by an expanded item",
			in:     "- {name: a, v: &x 1}\n- {name: b, v: &x 2}\n- {name: c, v: *x}\n",
			expand: []int{1},
			want:   "- {name: a, v: &x 1}\n- {name: b, v: 2}\n- {name: c, v: 2}\n",
			copied: []int{2},
		},
		{
			name: "nothing expanded",
			in:   "- {name: a, v: &x 1}\n- {name: c, v: *x}\n",
			want: "- {name: a, v: &x 1}\n- {name: c, v: *x}\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := items(t, tc.in)
			out := append([]*yaml.RNode(nil), in...)
			for _, i := range tc.expand {
				n, err := Expand(in[i].YNode())
				if err != nil {
					t.Fatal(err)
				}
				out[i] = yaml.NewRNode(n)
			}
			if _, err := KeepAliases(in, out); err != nil {
				t.Fatal(err)
			}
			got := list(t, out)
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if decoded(t, got) != decoded(t, tc.in) {
				t.Errorf("the data changed")
			}
			if list(t, in) != strings.TrimSpace(tc.in)+"\n" {
				t.Errorf("the input changed:\n%s", list(t, in))
			}
			for _, i := range tc.copied {
				if out[i] == in[i] {
					t.Errorf("item %d was changed in place", i)
				}
			}
		})
	}
}
