package config

//go:generate go run ./internal/gendoc -out docs_gen.go types.go

import (
	"encoding/json"
	"time"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/preset"
)

// rfc3339 matches the timestamps metav1.Time reads: RFC 3339, with
// optional fractions of a second.
const rfc3339 = `^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$`

// Schema returns the JSON schema of the SidecarLifecycle functionConfig,
// written from the description of its types that Load reads it by, with
// the doc comments of the fields.
func Schema() ([]byte, error) {
	s := schemaOf(configShape, "")
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	s["$id"] = "https://sidecar-lifecycle.dev/schemas/v1alpha1/sidecarlifecycle.json"
	s["title"] = Kind
	s["description"] = "functionConfig of the sidecar-lifecycle KRM function: sidecars start before the application containers and stop after them."
	props := s["properties"].(map[string]any)
	props["apiVersion"] = map[string]any{"const": APIVersion}
	props["kind"] = map[string]any{"const": Kind}
	s["required"] = []string{"apiVersion", "kind"}
	b, err := json.MarshalIndent(s, "", "  ")
	return append(b, '\n'), err
}

// schemaOf writes a shape as a JSON schema, described by doc.
func schemaOf(s *shape, doc string) map[string]any {
	out := map[string]any{}
	if doc != "" {
		out["description"] = doc
	}
	switch s.kind {
	case kindObject:
		out["type"] = "object"
		out["additionalProperties"] = false
		props := map[string]any{}
		var required []string
		for _, f := range s.fields {
			prop := schemaOf(f.shape, f.doc)
			if f.required {
				required = append(required, f.name)
			} else {
				orNull(prop) // a field's null is the field left out
			}
			props[f.name] = prop
		}
		out["properties"] = props
		if len(required) > 0 {
			out["required"] = required
		}
		if s == sidecarShape {
			out["allOf"] = sidecarRules()
		}
	case kindMap:
		out["type"] = "object"
		out["additionalProperties"] = schemaOf(s.elem, "")
	case kindList:
		out["type"] = "array"
		out["items"] = schemaOf(s.elem, "")
		if s.nonEmpty {
			out["minItems"] = 1
		}
	case kindString:
		out["type"] = "string"
		if s.nonEmpty {
			out["minLength"] = 1
		}
		if s.pattern != "" {
			out["pattern"] = s.pattern
		}
	case kindBool:
		out["type"] = "boolean"
	case kindInt:
		for k, v := range integer(s.lo, s.hi) {
			out[k] = v
		}
	case kindEnum:
		out["type"] = "string"
		out["enum"] = s.enum
	case kindDuration:
		alternatives := []any{
			map[string]any{"type": "string", "pattern": `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$|^[0-9]+$`},
			integer(0, int64(MaxDelay/time.Second)),
		}
		if s.auto {
			alternatives = append(alternatives, map[string]any{"const": Auto})
		}
		out["anyOf"] = alternatives
	case kindPort:
		out["anyOf"] = []any{schemaOf(portNumber, ""), portName}
	case kindTime:
		out["type"] = "string"
		out["format"] = "date-time"
		out["pattern"] = rfc3339
	case kindJSON:
		out["type"] = "object"
	}
	return out
}

// portName is the schema of a port given by name, an IANA service name:
// at most 15 lowercase letters, digits and single hyphens inside, with a
// letter.
var portName = map[string]any{"type": "string", "maxLength": 15, "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$", "allOf": []any{map[string]any{"pattern": "[a-z]"}}}

// integer is the schema of an integer from lo to hi.
func integer(lo, hi int64) map[string]any {
	return map[string]any{"type": "integer", "minimum": lo, "maximum": hi}
}

// orNull lets a schema also take null.
func orNull(s map[string]any) {
	switch {
	case s["anyOf"] != nil:
		s["anyOf"] = append(s["anyOf"].([]any), map[string]any{"type": "null"})
	case s["type"] != nil:
		s["type"] = []any{s["type"], "null"}
		if enum, ok := s["enum"].([]string); ok {
			values := make([]any, 0, len(enum)+1)
			for _, v := range enum {
				values = append(values, v)
			}
			s["enum"] = append(values, nil)
		}
	}
}

// sidecarShape is the shape of a spec.sidecars entry.
var sidecarShape = configShape.byName["spec"].shape.byName["sidecars"].shape.elem

// sidecarRules are the rules between a sidecar's fields that Validate
// checks: a name unless the preset has a container, ifAbsent annotate only
// for a preset with mesh annotations, cloudSQLProxy only for its preset.
func sidecarRules() []any {
	var named, annotating, cloudSQL []string
	for _, name := range preset.Names() {
		p, _ := preset.Lookup(name)
		if p.Container != "" {
			named = append(named, name)
		}
		if p.Annotates() {
			annotating = append(annotating, name)
		}
		if p.Edits == preset.CloudSQLProxyEdits {
			cloudSQL = append(cloudSQL, name)
		}
	}
	presetIn := func(names []string) map[string]any {
		return map[string]any{"required": []string{"preset"}, "properties": map[string]any{"preset": map[string]any{"enum": names}}}
	}
	given := func(field string, s map[string]any) map[string]any {
		return map[string]any{"required": []string{field}, "properties": map[string]any{field: s}}
	}
	return []any{
		map[string]any{"anyOf": []any{given("name", map[string]any{"type": "string", "minLength": 1}), presetIn(named)}},
		map[string]any{"if": given("ifAbsent", map[string]any{"const": IfAbsentAnnotate}), "then": presetIn(annotating)},
		map[string]any{"if": given("cloudSQLProxy", map[string]any{"type": "object"}), "then": presetIn(cloudSQL)},
	}
}
