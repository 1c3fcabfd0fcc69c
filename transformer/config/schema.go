package config

//go:generate go run ./internal/gendoc -out docs_gen.go types.go

import (
	"encoding/json"
	"reflect"
	"time"
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
		if rules, ok := objectRules[s]; ok {
			out["allOf"] = rules()
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

// objectRules are the rules between fields that Validate checks, by the
// shape of the object that holds the fields.
var objectRules = map[*shape]func() []any{
	configShape.byName["spec"].shape:                               specRules,
	configShape.byName["spec"].shape.byName["sidecars"].shape.elem: sidecarRules,
	structShapes[reflect.TypeFor[CatalogEntry]()]:                  entryRules,
	structShapes[reflect.TypeFor[SwitchFact]()]:                    func() []any { return exactlyOne("annotation", "label") },
	structShapes[reflect.TypeFor[Delay]()]:                         delayRules,
	structShapes[reflect.TypeFor[Word]()]:                          wordRules,
	structShapes[reflect.TypeFor[EndpointSwitch]()]:                switchRules,
	structShapes[reflect.TypeFor[Variant]()]:                       variantRules,
}

// given is the schema of an object with the field, of the schema s.
func given(field string, s map[string]any) map[string]any {
	return map[string]any{"required": []string{field}, "properties": map[string]any{field: s}}
}

// exactlyOne is the rule that exactly one of the string fields is given.
func exactlyOne(fields ...string) []any {
	str := map[string]any{"type": "string", "minLength": 1}
	one := make([]any, len(fields))
	for i, f := range fields {
		one[i] = given(f, str)
	}
	return []any{map[string]any{"oneOf": one}}
}

// wordRules: a vendor's word is an annotation, a label or an environment
// variable, with a value and what it says.
func wordRules() []any {
	str := map[string]any{"type": "string", "minLength": 1}
	return append(exactlyOne("annotation", "label", "env"), given("value", str), given("says", str))
}

// hasEntries is the schema of a spec with entries of its own in its catalog.
var hasEntries = given("catalog", map[string]any{"type": "object", "required": []string{"entries"},
	"properties": map[string]any{"entries": map[string]any{"type": "array", "minItems": 1}}})

// specRules: without entries of the config's own, a sidecar's preset is
// one of the built-in catalog (the schema cannot see an entry's name).
func specRules() []any {
	builtin := given("preset", map[string]any{"enum": builtinPresetNames()})
	anyPreset := map[string]any{"anyOf": []any{builtin, map[string]any{"not": map[string]any{"required": []string{"preset"}}},
		given("preset", map[string]any{"type": "null"})}}
	return []any{map[string]any{"if": map[string]any{"not": hasEntries},
		"then": map[string]any{"properties": map[string]any{"sidecars": map[string]any{"items": anyPreset}}}}}
}

// entryRules are the rules of a catalog entry of the config's own: a name
// that is not a built-in preset's, a container name or an image pattern,
// and what the injector's dialect needs of its annotations.
func entryRules() []any {
	nonEmpty := map[string]any{"type": "array", "minItems": 1}
	rules := []any{
		map[string]any{"properties": map[string]any{"name": map[string]any{"not": map[string]any{"enum": builtinPresetNames()}}}},
		map[string]any{"anyOf": []any{given("containers", nonEmpty), given("images", nonEmpty)}},
	}
	return append(rules, dialectRules()...)
}

// dialectRules are what an injector's dialect needs of its annotations, as
// CatalogEntry.Check says: every dialect writes the annotations listed; the
// linkerd and istio dialects ordered ones, an exit delay and a native
// switch; the istio dialect the ordered ones and the exit delay as keys of
// mapping annotations (field), and the injector's record; the others plain
// annotations.
func dialectRules() []any {
	obj, str := map[string]any{"type": "object"}, map[string]any{"type": "string", "minLength": 1}
	withField, noField := given("field", str), map[string]any{"not": given("field", str)}
	fields := func(each map[string]any) map[string]any {
		return map[string]any{"properties": map[string]any{"injector": map[string]any{"properties": map[string]any{"annotations": map[string]any{"properties": map[string]any{
			"ordered": map[string]any{"items": each}, "exitDelay": each}}}}}}
	}
	var rules []any
	for _, d := range dialects {
		then := []any{given("injector", given("annotations", obj))}
		if d != GenericDialect {
			then = append(then, given("injector", given("annotations", map[string]any{"required": []string{"ordered", "exitDelay", "native"},
				"properties": map[string]any{"ordered": map[string]any{"type": "array", "minItems": 1}, "exitDelay": obj, "native": obj}})))
		}
		if d == IstioDialect {
			then = append(then, fields(withField), given("injector", given("record", obj)))
		} else {
			then = append(then, fields(noField))
		}
		rules = append(rules, map[string]any{"if": given("injector", given("annotate", map[string]any{"const": d})), "then": map[string]any{"allOf": then}})
	}
	return rules
}

// delayRules: an exit setting is an annotation or an environment variable.
func delayRules() []any { return exactlyOne("annotation", "env") }

// switchRules: the address kubelet reaches is written in the address
// setting, both or neither, and it is not a loopback address.
func switchRules() []any {
	obj, str := map[string]any{"type": "object"}, map[string]any{"type": "string", "minLength": 1}
	return []any{
		map[string]any{"if": given("address", obj), "then": given("reachable", str)},
		map[string]any{"if": given("reachable", str), "then": given("address", obj)},
		map[string]any{"properties": map[string]any{"reachable": map[string]any{"not": map[string]any{"type": "string", "pattern": loopback}}}},
	}
}

// loopback matches the addresses isLoopback reports.
const loopback = `^(localhost|\[?::1\]?|\[?127\..*)$`

// variantRules: a variant is recognised by an image or a program.
func variantRules() []any {
	nonEmpty := map[string]any{"type": "array", "minItems": 1}
	return []any{map[string]any{"anyOf": []any{given("images", nonEmpty), given("programs", nonEmpty)}}}
}

// sidecarRules are the rules between a sidecar's fields that Validate
// checks: a name unless the preset has a container, ifAbsent annotate only
// for a preset with mesh annotations, healthCheck (or its older name
// cloudSQLProxy, not both) only for a preset whose entry says how to
// switch its health endpoints on.
func sidecarRules() []any {
	var named, annotating, switching []string
	for _, name := range builtinPresetNames() {
		p, _ := builtinPreset(name)
		if p.container() != "" {
			named = append(named, name)
		}
		if p.annotates() {
			annotating = append(annotating, name)
		}
		if p.switchesEndpoint() {
			switching = append(switching, name)
		}
	}
	// A preset not in the built-in catalog is an entry of the config's own,
	// which Validate checks.
	presetIn := func(names []string) map[string]any {
		return given("preset", map[string]any{"anyOf": []any{map[string]any{"enum": names}, map[string]any{"type": "string", "not": map[string]any{"enum": builtinPresetNames()}}}})
	}
	return []any{
		map[string]any{"anyOf": []any{given("name", map[string]any{"type": "string", "minLength": 1}), presetIn(named)}},
		map[string]any{"if": given("ifAbsent", map[string]any{"const": IfAbsentAnnotate}), "then": presetIn(annotating)},
		map[string]any{"if": given("healthCheck", map[string]any{"type": "string"}), "then": presetIn(switching)},
		map[string]any{"if": given("cloudSQLProxy", map[string]any{"type": "object"}), "then": presetIn(switching)},
		map[string]any{"not": map[string]any{"allOf": []any{given("healthCheck", map[string]any{"type": "string"}), given("cloudSQLProxy", map[string]any{"type": "object"})}}},
	}
}
