package webhook

import (
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
)

// jsonPatch is the JSON Patch (RFC 6902) that turns the object from into
// the object to, both as the engine holds them, or nil when they are the
// same. Mappings are compared key by key; a list is compared item by item
// when its items keep their places (the same length, and the same names
// where items are named), else replaced whole, so a reordered containers
// list is one operation.
func jsonPatch(from, to *yaml.Node) ([]byte, error) {
	p := &patch{}
	if err := p.diff(from, to, ""); err != nil {
		return nil, err
	}
	if len(p.b) == 0 {
		return nil, nil
	}
	return append(p.b, ']'), nil
}

// patch is the operations written so far, as JSON.
type patch struct{ b []byte }

// op appends one operation; value is nil for "remove".
func (p *patch) op(op, path string, value *yaml.Node) error {
	if len(p.b) == 0 {
		p.b = append(p.b, '[')
	} else {
		p.b = append(p.b, ',')
	}
	p.b = append(p.b, `{"op":"`+op+`","path":`...)
	var err error
	if p.b, err = yamlio.AppendJSON(p.b, &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: path}); err != nil {
		return err
	}
	if value != nil {
		p.b = append(p.b, `,"value":`...)
		if p.b, err = yamlio.AppendJSON(p.b, value); err != nil {
			return err
		}
	}
	p.b = append(p.b, '}')
	return nil
}

func (p *patch) diff(from, to *yaml.Node, path string) error {
	from, to = resolve(from), resolve(to)
	switch {
	case from.Kind == yaml.MappingNode && to.Kind == yaml.MappingNode:
		return p.diffMapping(from, to, path)
	case from.Kind == yaml.SequenceNode && to.Kind == yaml.SequenceNode && samePlaces(from, to):
		for i := range from.Content {
			if err := p.diff(from.Content[i], to.Content[i], path+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
		return nil
	case from.Kind == yaml.ScalarNode && to.Kind == yaml.ScalarNode && sameScalar(from, to):
		return nil
	}
	return p.op("replace", path, to)
}

func (p *patch) diffMapping(from, to *yaml.Node, path string) error {
	old := map[string]*yaml.Node{}
	for i := 0; i+1 < len(from.Content); i += 2 {
		old[from.Content[i].Value] = from.Content[i+1]
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(to.Content); i += 2 {
		k, v := to.Content[i].Value, to.Content[i+1]
		seen[k] = true
		at := path + "/" + escape(k)
		if o, ok := old[k]; ok {
			if err := p.diff(o, v, at); err != nil {
				return err
			}
		} else if err := p.op("add", at, v); err != nil {
			return err
		}
	}
	for i := 0; i+1 < len(from.Content); i += 2 {
		if k := from.Content[i].Value; !seen[k] {
			if err := p.op("remove", path+"/"+escape(k), nil); err != nil {
				return err
			}
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

// escape is a key as a JSON Pointer token (RFC 6901).
func escape(k string) string { return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1") }
