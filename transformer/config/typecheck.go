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

// checkTypes walks a config's YAML node alongside the Go type it decodes
// into, as schemaOf walks the types, and reports every unknown or
// duplicate field and every value of the wrong kind, each with its YAML
// path (spec.sidecars[1].startupProbe.httpGet.port) and the expected type in
// words. Decoding reports only the first type error, with Go names.
func checkTypes(n *yaml.Node, t reflect.Type, path string, errs *Errors) {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == yaml.NodeTagNull {
		return // null decodes to the zero value of every type
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[Duration]() {
		if n.Kind != yaml.ScalarNode {
			errs.add(path, "expected a duration (a string such as 30s or 2m, or a number of seconds), found "+report.Found(n))
		}
		return // Validate parses it
	}
	if t == reflect.TypeFor[intstr.IntOrString]() {
		_, err := strconv.ParseInt(n.Value, 0, 32)
		if n.Kind != yaml.ScalarNode || (n.Tag != yaml.NodeTagString && (n.Tag != yaml.NodeTagInt || err != nil)) {
			errs.add(path, "expected a port number or name (an integer or a string), found "+report.Found(n))
		}
		return
	}
	if values, ok := enums[t]; ok {
		if n.Kind != yaml.ScalarNode || n.Tag != yaml.NodeTagString {
			errs.add(path, fmt.Sprintf("expected one of %s, found %s", strings.Join(values, ", "), report.Found(n)))
		}
		return
	}
	if decodesItself(t) {
		return // its own UnmarshalJSON decides, as metav1.Time does
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			errs.add(path, "expected a mapping, found "+report.Found(n))
			return
		}
		checkFields(n, t, path, errs)
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			errs.add(path, "expected a mapping, found "+report.Found(n))
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			checkTypes(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value), errs)
		}
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			errs.add(path, "expected a list, found "+report.Found(n))
			return
		}
		for i, entry := range n.Content {
			checkTypes(entry, t.Elem(), fmt.Sprintf("%s[%d]", path, i), errs)
		}
	case reflect.Interface:
	default:
		if msg := checkScalar(n, t); msg != "" {
			errs.add(path, msg)
		}
	}
}

// decodesItself reports whether a type has its own JSON decoding.
func decodesItself(t reflect.Type) bool {
	unmarshaler := reflect.TypeFor[json.Unmarshaler]()
	return t.Implements(unmarshaler) || reflect.PointerTo(t).Implements(unmarshaler)
}

// checkFields checks a mapping against a struct's JSON fields.
func checkFields(n *yaml.Node, t reflect.Type, path string, errs *Errors) {
	fields := jsonFields(t, map[string]reflect.Type{})
	seen := map[string]bool{}
	var unknown []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := n.Content[i].Value
		if n.Content[i].Tag == yaml.MergeTag {
			continue // a merge key: decoding merges it
		}
		at := join(path, key)
		if seen[key] {
			errs.add(at, "duplicate field: give each field once")
			continue
		}
		seen[key] = true
		ft, ok := fields[key]
		if !ok {
			unknown = append(unknown, key)
			continue
		}
		checkTypes(n.Content[i+1], ft, at, errs)
	}
	sort.Strings(unknown)
	for _, key := range unknown {
		errs.add(join(path, key), "unknown field: "+known(fields))
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
		if n.Tag != yaml.NodeTagString {
			return fmt.Sprintf("expected a string, found %s: write it in quotes", report.Found(n))
		}
	case reflect.Bool:
		if !scalar || n.Tag != yaml.NodeTagBool {
			return "expected a boolean (true or false), found " + report.Found(n)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if !scalar || n.Tag != yaml.NodeTagInt {
			return "expected an integer, found " + report.Found(n)
		}
		if _, err := strconv.ParseInt(n.Value, 0, t.Bits()); err != nil {
			return fmt.Sprintf("expected an integer of at most %d bits, found %s", t.Bits(), report.Found(n))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if !scalar || n.Tag != yaml.NodeTagInt {
			return "expected a non-negative integer, found " + report.Found(n)
		}
		if _, err := strconv.ParseUint(n.Value, 0, t.Bits()); err != nil {
			return fmt.Sprintf("expected a non-negative integer of at most %d bits, found %s", t.Bits(), report.Found(n))
		}
	case reflect.Float32, reflect.Float64:
		if !scalar || (n.Tag != yaml.NodeTagInt && n.Tag != yaml.NodeTagFloat) {
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
