package config

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/report"
)

// Bounds of checkTypes: aliases can make a small document a huge tree, and
// every entry of a long list can have the same mistake.
const (
	maxVisits = 100000
	maxErrors = 50
)

// typeChecker walks a config's YAML nodes alongside the Go types they
// decode into, as schemaOf walks the types, and collects every unknown or
// duplicate field and every value of the wrong kind, each with its YAML
// path (spec.sidecars[1].startupProbe.httpGet.port) and the expected type in
// words. Decoding reports only the first type error, with Go names.
type typeChecker struct {
	errs         Errors
	visits, more int
}

// checkTypes checks the config's node against the type and returns the
// problems found, the first maxErrors of them.
func checkTypes(n *yaml.Node, t reflect.Type) Errors {
	c := &typeChecker{}
	c.check(n, t, "")
	if c.more > 0 {
		c.errs.add("functionConfig", fmt.Sprintf("has %d more problems; fix the ones above first", c.more))
	}
	return c.errs
}

// add records a problem, or counts it beyond maxErrors.
func (c *typeChecker) add(path, msg string) {
	if len(c.errs) == maxErrors {
		c.more++
		return
	}
	c.errs.add(path, msg)
}

// check checks one node, with path its YAML path.
func (c *typeChecker) check(n *yaml.Node, t reflect.Type, path string) {
	if c.visits++; c.visits == maxVisits {
		c.add("functionConfig", fmt.Sprintf("has more than %d values with its aliases expanded", maxVisits))
	}
	if c.visits >= maxVisits {
		return
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == yaml.NodeTagNull {
		return // null decodes to the zero value of every type
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[Duration]() {
		if n.Kind != yaml.ScalarNode {
			c.add(path, "expected a duration (a string such as 30s or 2m, or a number of seconds), found "+report.Found(n))
		}
		return // Validate parses it
	}
	if t == reflect.TypeFor[intstr.IntOrString]() {
		_, err := strconv.ParseInt(n.Value, 0, 32)
		if n.Kind != yaml.ScalarNode || (n.ShortTag() != yaml.NodeTagString && (n.ShortTag() != yaml.NodeTagInt || err != nil)) {
			c.add(path, "expected a port number or name (an integer or a string), found "+report.Found(n))
		}
		return
	}
	if values, ok := enums[t]; ok {
		if n.Kind != yaml.ScalarNode || n.ShortTag() != yaml.NodeTagString {
			c.add(path, fmt.Sprintf("expected one of %s, found %s", strings.Join(values, ", "), report.Found(n)))
		}
		return
	}
	if decodesItself(t) {
		return // its own UnmarshalJSON decides, as metav1.Time does
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			c.add(path, "expected a mapping, found "+report.Found(n))
			return
		}
		c.checkFields(n, t, path)
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			c.add(path, "expected a mapping, found "+report.Found(n))
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			c.check(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value))
		}
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			c.add(path, "expected a list, found "+report.Found(n))
			return
		}
		for i, entry := range n.Content {
			c.check(entry, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Interface:
	default:
		if msg := checkScalar(n, t); msg != "" {
			c.add(path, msg)
		}
	}
}

// decodesItself reports whether a type has its own JSON decoding.
func decodesItself(t reflect.Type) bool {
	unmarshaler := reflect.TypeFor[json.Unmarshaler]()
	return t.Implements(unmarshaler) || reflect.PointerTo(t).Implements(unmarshaler)
}

// checkFields checks a mapping against a struct's JSON fields.
func (c *typeChecker) checkFields(n *yaml.Node, t reflect.Type, path string) {
	fields := jsonFields(t, map[string]reflect.Type{})
	seen := map[string]bool{}
	var unknown []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := n.Content[i].Value
		if n.Content[i].ShortTag() == yaml.MergeTag {
			continue // a merge key: decoding merges it
		}
		at := join(path, key)
		if seen[key] {
			c.add(at, "duplicate field: give each field once")
			continue
		}
		seen[key] = true
		ft, ok := fields[key]
		if !ok {
			unknown = append(unknown, key)
			continue
		}
		c.check(n.Content[i+1], ft, at)
	}
	if len(unknown) == 0 {
		return
	}
	sort.Strings(unknown)
	hint := "unknown field: " + known(fields)
	for _, key := range unknown {
		c.add(join(path, key), hint)
	}
}

// jsonFields adds a struct's JSON field names and types to fields, with the
// fields of embedded structs (corev1.Probe's ProbeHandler) as their own.
func jsonFields(t reflect.Type, fields map[string]reflect.Type) map[string]reflect.Type {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
		case name == "" && f.Anonymous && f.Type.Kind() == reflect.Struct:
			jsonFields(f.Type, fields)
		case !f.IsExported():
		case name == "":
			fields[f.Name] = f.Type
		default:
			fields[name] = f.Type
		}
	}
	return fields
}

// known lists a struct's field names for an unknown-field message.
func known(fields map[string]reflect.Type) string {
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	return "the fields here are " + strings.Join(names, ", ")
}

// checkScalar checks a scalar against a string, boolean or number type.
func checkScalar(n *yaml.Node, t reflect.Type) string {
	scalar := n.Kind == yaml.ScalarNode
	switch t.Kind() {
	case reflect.String:
		if !scalar {
			return "expected a string, found " + report.Found(n)
		}
		if n.ShortTag() != yaml.NodeTagString {
			return fmt.Sprintf("expected a string, found %s: write it in quotes", report.Found(n))
		}
	case reflect.Bool:
		if !scalar || n.ShortTag() != yaml.NodeTagBool {
			return "expected a boolean (true or false), found " + report.Found(n)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if !scalar || n.ShortTag() != yaml.NodeTagInt {
			return "expected an integer, found " + report.Found(n)
		}
		if _, err := strconv.ParseInt(n.Value, 0, t.Bits()); err != nil {
			return fmt.Sprintf("expected an integer of at most %d bits, found %s", t.Bits(), report.Found(n))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if !scalar || n.ShortTag() != yaml.NodeTagInt {
			return "expected a non-negative integer, found " + report.Found(n)
		}
		if _, err := strconv.ParseUint(n.Value, 0, t.Bits()); err != nil {
			return fmt.Sprintf("expected a non-negative integer of at most %d bits, found %s", t.Bits(), report.Found(n))
		}
	case reflect.Float32, reflect.Float64:
		if !scalar || (n.ShortTag() != yaml.NodeTagInt && n.ShortTag() != yaml.NodeTagFloat) {
			return "expected a number, found " + report.Found(n)
		}
	}
	return ""
}

// join adds a mapping key to a path.
func join(path, key string) string {
	key = report.Escape(key)
	if path == "" {
		return key
	}
	return path + "." + key
}
