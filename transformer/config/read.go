package config

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Bounds of the reader: aliases can make a small document a huge tree, and
// every entry of a long list can have the same mistake.
const (
	maxVisits = 100000
	maxErrors = 50
)

// tagTimestamp is the tag YAML gives a plain date or time.
const tagTimestamp = "!!timestamp"

// reader checks a config's YAML nodes against the shapes of the Go types
// they decode into and decodes them in the same walk. It collects every
// unknown field and every value of the wrong kind, each with its YAML path
// (spec.sidecars[1].startupProbe.httpGet.port) and the expected type in
// words; the value it decodes is only used when it found nothing wrong.
type reader struct {
	errs         Errors
	visits, more int
}

// readConfig checks and decodes a SidecarLifecycle, or returns the
// problems found, the first maxErrors of them.
func readConfig(n *yaml.Node) (*SidecarLifecycle, Errors) {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	return (&reader{}).config(n)
}

// config reads a SidecarLifecycle, or returns the problems found with
// those found before.
func (r *reader) config(n *yaml.Node) (*SidecarLifecycle, Errors) {
	cfg := &SidecarLifecycle{}
	r.read(n, configShape, reflect.ValueOf(cfg).Elem(), "")
	if r.more > 0 {
		r.errs.add("functionConfig", fmt.Sprintf("has %d more problems; fix the ones above first", r.more))
	}
	if len(r.errs) > 0 {
		return nil, r.errs
	}
	return cfg, nil
}

// add records a problem, or counts it beyond maxErrors.
func (r *reader) add(path, msg string) {
	if len(r.errs) == maxErrors {
		r.more++
		return
	}
	r.errs.add(path, msg)
}

// visit counts a step of the walk and reports whether the walk goes on.
func (r *reader) visit() bool {
	if r.visits++; r.visits == maxVisits {
		r.add("functionConfig", fmt.Sprintf("has more than %d values with its aliases expanded", maxVisits))
	}
	return r.visits < maxVisits
}

// read checks one node against its shape and decodes it into v; path is
// its YAML path.
func (r *reader) read(n *yaml.Node, s *shape, v reflect.Value, path string) {
	if !r.visit() {
		return
	}
	n = resolve(n)
	if isNull(n) {
		// A field's null is the field left out (readFields); anywhere
		// else it is a mistake.
		r.add(path, "expected "+s.expected()+", found null")
		return
	}
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	switch s.kind {
	case kindObject:
		if n.Kind != yaml.MappingNode {
			r.add(path, "expected a mapping, found "+found(n))
			return
		}
		r.readFields(n, s, v, path)
	case kindMap:
		if n.Kind != yaml.MappingNode {
			r.add(path, "expected a mapping, found "+found(n))
			return
		}
		m := reflect.MakeMap(v.Type())
		for _, e := range r.entries(n, path) {
			value := reflect.New(v.Type().Elem()).Elem()
			r.read(e.value, s.elem, value, join(path, e.key))
			m.SetMapIndex(reflect.ValueOf(e.key).Convert(v.Type().Key()), value)
		}
		v.Set(m)
	case kindList:
		if n.Kind != yaml.SequenceNode {
			r.add(path, "expected a list, found "+found(n))
			return
		}
		if s.nonEmpty && len(n.Content) == 0 {
			r.add(path, "must not be empty")
			return
		}
		list := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, entry := range n.Content {
			r.read(entry, s.elem, list.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
		v.Set(list)
	default:
		if msg := readScalar(n, s, v); msg != "" {
			r.add(path, msg)
		}
	}
}

// readFields checks a mapping against an object's fields and decodes them.
// Missing required fields, then unknown fields, are reported after the
// other problems of the mapping.
func (r *reader) readFields(n *yaml.Node, s *shape, v reflect.Value, path string) {
	var unknown []string
	given := map[string]bool{}
	for _, e := range r.entries(n, path) {
		f, ok := s.byName[e.key]
		if !ok {
			unknown = append(unknown, e.key)
			continue
		}
		if isNull(resolve(e.value)) {
			continue // null is the field left out, as in Kubernetes
		}
		given[e.key] = true
		r.read(e.value, f.shape, v.FieldByIndex(f.index), join(path, e.key))
	}
	for _, f := range s.fields {
		if f.required && !f.validated && !given[f.name] {
			r.add(join(path, f.name), "is required")
		}
	}
	if len(unknown) == 0 {
		return
	}
	sort.Strings(unknown)
	names := make([]string, len(s.fields))
	for i, f := range s.fields {
		names[i] = f.name
	}
	sort.Strings(names)
	hint := "unknown field: the fields here are " + strings.Join(names, ", ")
	for _, key := range unknown {
		r.add(join(path, key), hint)
	}
}

// entry is one key of a mapping and its value.
type entry struct {
	key   string
	value *yaml.Node
}

// entries lists a mapping's keys and values with its merge keys ("<<:
// *base") resolved as YAML resolves them: the mapping's own keys, then
// each merged mapping's keys that are not set yet, the first one first.
func (r *reader) entries(n *yaml.Node, path string) []entry {
	var out []entry
	r.collect(n, path, map[string]bool{}, &out)
	return out
}

// collect adds the entries of a mapping whose keys are not in seen.
func (r *reader) collect(n *yaml.Node, path string, seen map[string]bool, out *[]entry) {
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := resolve(n.Content[i])
		if k.ShortTag() == yaml.MergeTag {
			merges = append(merges, resolve(n.Content[i+1]))
			continue
		}
		if !seen[k.Value] {
			seen[k.Value] = true
			*out = append(*out, entry{k.Value, n.Content[i+1]})
		}
	}
	for _, m := range merges {
		sources := []*yaml.Node{m}
		if m.Kind == yaml.SequenceNode {
			sources = m.Content
		}
		for _, src := range sources {
			if !r.visit() {
				return
			}
			if src = resolve(src); src.Kind != yaml.MappingNode {
				r.add(join(path, "<<"), "expected a mapping or a list of mappings to merge, found "+found(src))
				continue
			}
			r.collect(src, path, seen, out)
		}
	}
}

// isNull reports whether a node is null.
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == yaml.NodeTagNull
}

// expected says in words what a value of a shape is.
func (s *shape) expected() string {
	switch s.kind {
	case kindObject, kindMap, kindJSON:
		return "a mapping"
	case kindList:
		return "a list"
	case kindString:
		return "a string"
	case kindBool:
		return "a boolean (true or false)"
	case kindInt:
		return "an integer"
	case kindEnum:
		return "one of " + strings.Join(s.enum, ", ")
	case kindDuration:
		return "a duration (a string such as 30s or 2m, or a number of seconds)"
	case kindPort:
		return "a port number or name (an integer or a string)"
	}
	return "a timestamp such as 2006-01-02T15:04:05Z"
}

// resolve returns the node an alias refers to, or the node itself.
func resolve(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// readScalar checks a node against a scalar shape and decodes it into v,
// or says what is wrong.
func readScalar(n *yaml.Node, s *shape, v reflect.Value) string {
	scalar := n.Kind == yaml.ScalarNode
	tag := n.ShortTag()
	wrong := "expected " + s.expected() + ", found " + found(n)
	switch s.kind {
	case kindString:
		if !scalar {
			return wrong
		}
		if tag != yaml.NodeTagString {
			return wrong + ": write it in quotes"
		}
		if s.nonEmpty && n.Value == "" {
			return "must not be empty"
		}
		v.SetString(n.Value)
	case kindEnum:
		if !scalar || tag != yaml.NodeTagString || n.Value == "" {
			return wrong
		}
		v.SetString(n.Value) // Validate says whether it is one of them
	case kindBool:
		b, err := strconv.ParseBool(n.Value)
		if !scalar || tag != yaml.NodeTagBool || err != nil {
			return wrong
		}
		v.SetBool(b)
	case kindInt:
		if !scalar || tag != yaml.NodeTagInt {
			return wrong
		}
		i, err := strconv.ParseInt(n.Value, 0, s.bits)
		if err != nil {
			return fmt.Sprintf("expected an integer of at most %d bits, found %s", s.bits, found(n))
		}
		v.SetInt(i)
	case kindDuration:
		if !scalar || n.Value == "" {
			return wrong
		}
		d := Duration{Raw: durationText(n)} // Validate parses it
		switch p := v.Addr().Interface().(type) {
		case *Duration:
			*p = d
		case *DurationOrAuto:
			p.Duration = d
		}
	case kindPort:
		i, err := strconv.ParseInt(n.Value, 0, 32)
		switch {
		case scalar && tag == yaml.NodeTagString:
			v.Set(reflect.ValueOf(intstr.FromString(n.Value)))
		case scalar && tag == yaml.NodeTagInt && err == nil:
			v.Set(reflect.ValueOf(intstr.FromInt32(int32(i))))
		default:
			return wrong
		}
	case kindTime:
		t, ok := timestamp(n)
		if !ok {
			return wrong
		}
		v.Set(reflect.ValueOf(metav1.NewTime(t)))
	case kindJSON:
		var value any
		if n.Kind != yaml.MappingNode || n.Decode(&value) != nil {
			return wrong
		}
		raw, err := json.Marshal(value)
		if err != nil {
			return "expected a mapping with string keys, found " + found(n)
		}
		v.Set(reflect.ValueOf(metav1.FieldsV1{Raw: raw}))
	}
	return ""
}

// durationText is a duration scalar as text: a string as it is, a number
// as JSON writes it (1e3 is 1000, 0x1e is 30), which is what the schema
// sees.
func durationText(n *yaml.Node) string {
	var value any
	if n.ShortTag() == yaml.NodeTagString || n.Decode(&value) != nil {
		return n.Value
	}
	b, err := json.Marshal(value)
	if err != nil {
		return n.Value
	}
	if s, err := strconv.Unquote(string(b)); err == nil {
		return s
	}
	return string(b)
}

// timestamp reads an RFC 3339 string, or a YAML timestamp, as
// metav1.Time reads their JSON form.
func timestamp(n *yaml.Node) (time.Time, bool) {
	var t time.Time
	var err error
	switch {
	case n.Kind != yaml.ScalarNode:
		return t, false
	case n.ShortTag() == yaml.NodeTagString:
		t, err = time.Parse(time.RFC3339, n.Value)
	case n.ShortTag() == tagTimestamp:
		err = n.Decode(&t)
	default:
		return t, false
	}
	return t.Local(), err == nil
}

// join adds a mapping key to a path.
func join(path, key string) string {
	key = escape(key)
	if path == "" {
		return key
	}
	return path + "." + key
}
