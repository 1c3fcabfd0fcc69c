package config

//go:generate go run ./internal/gendoc -out docs_gen.go types.go

import (
	"encoding/json"
	"math"
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
			props[f.name] = schemaOf(f.shape, f.doc)
			if f.required {
				required = append(required, f.name)
			}
		}
		out["properties"] = props
		if len(required) > 0 {
			out["required"] = required
		}
	case kindMap:
		out["type"] = "object"
		out["additionalProperties"] = schemaOf(s.elem, "")
	case kindList:
		out["type"] = "array"
		out["items"] = schemaOf(s.elem, "")
	case kindString:
		out["type"] = "string"
	case kindBool:
		out["type"] = "boolean"
	case kindInt:
		for k, v := range integer(s.bits) {
			out[k] = v
		}
	case kindEnum:
		out["type"] = "string"
		out["enum"] = s.enum
	case kindDuration:
		alternatives := []any{
			map[string]any{"type": "string", "pattern": `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$|^[0-9]+$`},
			map[string]any{"type": "integer", "minimum": 0},
		}
		if s.auto {
			alternatives = append(alternatives, map[string]any{"const": Auto})
		}
		out["anyOf"] = alternatives
	case kindPort:
		out["anyOf"] = []any{integer(32), map[string]any{"type": "string"}}
	case kindTime:
		// metav1.Time writes its zero value as null.
		out["anyOf"] = []any{map[string]any{"type": "string", "format": "date-time", "pattern": rfc3339}, map[string]any{"type": "null"}}
	case kindJSON:
		out["type"] = "object"
	}
	return out
}

// integer is the schema of an integer of at most bits bits.
func integer(bits int) map[string]any {
	return map[string]any{"type": "integer", "minimum": int64(math.MinInt64) >> (64 - bits), "maximum": int64(math.MaxInt64) >> (64 - bits)}
}
