package podcheck

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// Metadata checks the metadata mappings at the given paths of the resource
// (the workload's own and its pod template's), whose labels and annotations
// the function reads: each is a mapping, and its labels and annotations are
// mappings of strings to strings. A path whose parent is not a mapping is
// left to PodSpec, which reports it.
func Metadata(resource *yaml.RNode, paths ...[]string) Errors {
	var errs Errors
	done := map[string]bool{}
	for _, path := range paths {
		p := field.NewPath(path[0], path[1:]...)
		if done[p.String()] {
			continue
		}
		done[p.String()] = true
		m := resource.YNode()
		for _, key := range path[:len(path)-1] {
			if m = fieldOf(m, key); m == nil || m.Kind != yaml.MappingNode {
				break
			}
		}
		if m == nil || m.Kind != yaml.MappingNode {
			continue
		}
		meta := errs.mapping(fieldOf(m, path[len(path)-1]), p, "a mapping")
		if meta == nil {
			continue
		}
		for _, f := range []string{"labels", "annotations"} {
			errs.stringMap(fieldOf(meta, f), p.Child(f))
		}
	}
	return errs
}

// stringMap reports a field that is set and is not a mapping of strings.
func (e *Errors) stringMap(n *yaml.Node, p *field.Path) {
	m := e.mapping(n, p, "a mapping of strings to strings")
	if m == nil {
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, value := resolve(m.Content[i]), m.Content[i+1]
		if !isString(key) {
			e.add(p, key, wantString("string keys", key))
			continue
		}
		switch {
		case isNull(value):
			e.add(KeyPath(p, key.Value), resolve(value), "a string: give it a value or remove it")
		case !isString(value):
			e.add(KeyPath(p, key.Value), resolve(value), wantString("a string", value))
		}
	}
}

// KeyPath is the path of a map entry, such as
// metadata.annotations[sidecar-lifecycle.dev/skip]; a key holding a control
// character or a bracket is quoted.
func KeyPath(p *field.Path, key string) *field.Path {
	if q := strconv.Quote(key); q != `"`+key+`"` || strings.ContainsAny(key, "[]") {
		key = report.Quote(key)
	}
	return p.Key(key)
}
