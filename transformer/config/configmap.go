package config

import (
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// configMapKeys are the keys of the one-sidecar ConfigMap form, in the
// order messages name them, and the SidecarLifecycle fields they stand for.
var configMapKeys = []struct{ key, field string }{
	{"sidecar", "spec.sidecars[0].name"},
	{"preset", "spec.sidecars[0].preset"},
	{"mode", "spec.mode"},
	{"kubernetesVersion", "spec.kubernetesVersion"},
	{"waitBeforeExit", "spec.sidecars[0].waitBeforeExit"},
	{"appDrainDelay", "spec.app.drainDelay"},
	{"action", "spec.action"},
}

// configMapPaths maps the SidecarLifecycle fields to the ConfigMap keys
// that stand for them, for messages.
var configMapPaths = func() map[string]string {
	paths := map[string]string{}
	for _, k := range configMapKeys {
		paths[k.field] = "data." + k.key
	}
	return paths
}()

// readConfigMap checks and decodes a ConfigMap functionConfig as the
// SidecarLifecycle it stands for: each data key's value is placed where
// its field is, and read against the field's shape, so that a value of the
// wrong type is an error as it is in a SidecarLifecycle, named by its key
// (data.mode). A key's null is the key left out.
func readConfigMap(n *yaml.Node) (*SidecarLifecycle, Errors) {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	r := &reader{}
	root := &yaml.Node{Kind: yaml.MappingNode}
	var unknown []string
	for _, e := range r.entries(n, "") {
		switch e.key {
		case "apiVersion", "kind": // decode has read them
		case "metadata":
			root.Content = append(root.Content, scalar(e.key), e.value)
		case "data":
			r.placeData(root, e.value)
		default:
			unknown = append(unknown, e.key)
		}
	}
	sort.Strings(unknown)
	for _, key := range unknown {
		r.add(join("", key), "unknown field: the fields here are apiVersion, data, kind, metadata")
	}
	cfg, errs := r.config(root)
	for i := range errs {
		if key, ok := configMapPaths[errs[i].Path]; ok {
			errs[i].Path = key
		}
	}
	return cfg, errs
}

// placeData places the values of a ConfigMap's data where the fields they
// stand for are in root.
func (r *reader) placeData(root, data *yaml.Node) {
	if data = resolve(data); isNull(data) {
		return
	}
	if data.Kind != yaml.MappingNode {
		r.add("data", "expected a mapping, found "+found(data))
		return
	}
	fields := map[string]string{}
	names := make([]string, len(configMapKeys))
	for i, k := range configMapKeys {
		fields[k.key] = k.field
		names[i] = k.key
	}
	sidecar := false
	var unknown []string
	for _, e := range r.entries(data, "data") {
		field, ok := fields[e.key]
		switch {
		case !ok:
			unknown = append(unknown, e.key)
		case !isNull(resolve(e.value)):
			place(root, field, e.value)
			sidecar = sidecar || e.key == "sidecar" || e.key == "preset"
		}
	}
	if lookup(root, "spec", "sidecars") != nil && !sidecar {
		r.add("data.waitBeforeExit", "needs data.sidecar or data.preset")
	}
	sort.Strings(unknown)
	for _, key := range unknown {
		r.add(join("data", key), "unknown key: a ConfigMap functionConfig takes "+strings.Join(names, ", "))
	}
}

// place sets the field at a dotted path of mappings, where a key ending
// in [0] is a list of one mapping, creating what is not there yet.
func place(m *yaml.Node, path string, value *yaml.Node) {
	key, rest, nested := strings.Cut(path, ".")
	key, list := strings.CutSuffix(key, "[0]")
	if !nested {
		m.Content = append(m.Content, scalar(key), value)
		return
	}
	child := lookup(m, key)
	if child == nil {
		child = &yaml.Node{Kind: yaml.MappingNode}
		if list {
			child = &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{child}}
		}
		m.Content = append(m.Content, scalar(key), child)
	}
	if list {
		child = child.Content[0]
	}
	place(child, rest, value)
}

// lookup returns the value at a path of keys in nested mappings built by
// place, or nil.
func lookup(m *yaml.Node, keys ...string) *yaml.Node {
	for _, key := range keys {
		var next *yaml.Node
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				next = m.Content[i+1]
			}
		}
		if next == nil {
			return nil
		}
		m = next
	}
	return m
}

// scalar is a string scalar node.
func scalar(value string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: value}
}
