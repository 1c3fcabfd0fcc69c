package webhook

import (
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
)

// jsonPatch is the JSON Patch (RFC 6902) that turns the object from into
// the object to, both as the engine holds them, or nil when they are the
// same. Mappings are compared key by key; a list is compared item by item
// when its items keep their places (the same length, and the same names
// where items are named); a list of the same uniquely named items in
// another order (a sidecar moved first) is put in order with "move"
// operations, then compared item by item; any other list is replaced
// whole.
func jsonPatch(from, to *yaml.Node) ([]byte, error) {
	p := &patch{}
	if err := p.diff(from, to); err != nil {
		return nil, err
	}
	if len(p.b) == 0 {
		return nil, nil
	}
	return append(p.b, ']'), nil
}

// patch is the operations written so far, as JSON, and the JSON Pointer
// of the node being compared, grown and cut back as the walk goes.
type patch struct{ b, path []byte }

// start begins the next operation.
func (p *patch) start() {
	if len(p.b) == 0 {
		p.b = append(p.b, '[')
	} else {
		p.b = append(p.b, ',')
	}
}

// op appends one operation at the current path; value is nil for "remove".
func (p *patch) op(op string, value *yaml.Node) error {
	p.start()
	p.b = append(p.b, `{"op":"`...)
	p.b = append(p.b, op...)
	p.b = append(p.b, `","path":`...)
	p.b = yamlio.AppendJSONString(p.b, string(p.path))
	if value != nil {
		p.b = append(p.b, `,"value":`...)
		var err error
		if p.b, err = yamlio.AppendJSON(p.b, value); err != nil {
			return err
		}
	}
	p.b = append(p.b, '}')
	return nil
}

func (p *patch) diff(from, to *yaml.Node) error {
	from, to = resolve(from), resolve(to)
	switch {
	case from.Kind == yaml.MappingNode && to.Kind == yaml.MappingNode:
		return p.diffMapping(from, to)
	case from.Kind == yaml.SequenceNode && to.Kind == yaml.SequenceNode && samePlaces(from, to):
		return p.diffItems(from.Content, to.Content)
	case from.Kind == yaml.SequenceNode && to.Kind == yaml.SequenceNode && sameNames(from, to):
		return p.diffItems(p.reorder(from.Content, to.Content), to.Content)
	case from.Kind == yaml.ScalarNode && to.Kind == yaml.ScalarNode && sameScalar(from, to):
		return nil
	}
	return p.op("replace", to)
}

// diffItems compares two lists' items place by place.
func (p *patch) diffItems(from, to []*yaml.Node) error {
	for i := range from {
		n := len(p.path)
		p.path = strconv.AppendInt(append(p.path, '/'), int64(i), 10)
		if err := p.diff(from[i], to[i]); err != nil {
			return err
		}
		p.path = p.path[:n]
	}
	return nil
}

// reorder writes the "move" operations that put the items of from, each
// named once, in the order of the same names in to, and returns from's
// items in that order.
func (p *patch) reorder(from, to []*yaml.Node) []*yaml.Node {
	work := slices.Clone(from)
	for i, want := range to {
		j := slices.IndexFunc(work, func(n *yaml.Node) bool { return name(n) == name(want) })
		if j == i {
			continue
		}
		p.start()
		p.b = append(p.b, `{"op":"move","from":`...)
		p.b = yamlio.AppendJSONString(p.b, string(strconv.AppendInt(append(p.path, '/'), int64(j), 10)))
		p.b = append(p.b, `,"path":`...)
		p.b = yamlio.AppendJSONString(p.b, string(strconv.AppendInt(append(p.path, '/'), int64(i), 10)))
		p.b = append(p.b, '}')
		moved := work[j]
		work = slices.Insert(slices.Delete(work, j, j+1), i, moved)
	}
	return work
}

// diffMapping compares two mappings key by key. Keys are looked up by a
// scan: an object's mappings are small.
func (p *patch) diffMapping(from, to *yaml.Node) error {
	for i := 0; i+1 < len(to.Content); i += 2 {
		k, v := to.Content[i].Value, to.Content[i+1]
		n := len(p.path)
		p.path = appendToken(append(p.path, '/'), k)
		var err error
		if o := tree.Value(from, k); o != nil {
			err = p.diff(o, v)
		} else {
			err = p.op("add", v)
		}
		if err != nil {
			return err
		}
		p.path = p.path[:n]
	}
	for i := 0; i+1 < len(from.Content); i += 2 {
		if k := from.Content[i].Value; tree.Value(to, k) == nil {
			n := len(p.path)
			p.path = appendToken(append(p.path, '/'), k)
			if err := p.op("remove", nil); err != nil {
				return err
			}
			p.path = p.path[:n]
		}
	}
	return nil
}

// samePlaces reports whether two lists hold their items in the same
// places: the same length and, for items with a name, the same name.
func samePlaces(a, b *yaml.Node) bool {
	if len(a.Content) != len(b.Content) {
		return false
	}
	for i := range a.Content {
		if name(a.Content[i]) != name(b.Content[i]) {
			return false
		}
	}
	return true
}

// sameNames reports whether two lists hold the same items by name, each
// named once: the same length, and each name of one in the other.
func sameNames(a, b *yaml.Node) bool {
	if len(a.Content) != len(b.Content) {
		return false
	}
	seen := make(map[string]bool, len(a.Content))
	for _, n := range a.Content {
		k := name(n)
		if k == "" || seen[k] {
			return false
		}
		seen[k] = true
	}
	for _, n := range b.Content {
		k := name(n)
		if !seen[k] {
			return false
		}
		delete(seen, k) // a name twice in b is then missing
	}
	return true
}

func name(n *yaml.Node) string {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "name" {
			return n.Content[i+1].Value
		}
	}
	return ""
}

// sameScalar compares two scalars as JSON values.
func sameScalar(a, b *yaml.Node) bool {
	if a.Value == b.Value && a.ShortTag() == b.ShortTag() {
		return true
	}
	x, errA := yamlio.AppendJSON(nil, a)
	y, errB := yamlio.AppendJSON(nil, b)
	return errA == nil && errB == nil && string(x) == string(y)
}

func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode || n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		if n.Kind == yaml.AliasNode {
			n = n.Alias
		} else {
			n = n.Content[0]
		}
	}
	return n
}

// appendToken appends a key as a JSON Pointer token (RFC 6901).
func appendToken(b []byte, k string) []byte {
	if !strings.ContainsAny(k, "~/") {
		return append(b, k...)
	}
	for i := 0; i < len(k); i++ {
		switch k[i] {
		case '~':
			b = append(b, "~0"...)
		case '/':
			b = append(b, "~1"...)
		default:
			b = append(b, k[i])
		}
	}
	return b
}
