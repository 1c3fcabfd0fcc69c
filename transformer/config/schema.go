package config

//go:generate go run ./internal/gendoc -out docs_gen.go types.go

import (
	"encoding/json"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// enums lists the allowed values of the config's string types.
var enums = map[reflect.Type][]string{
	reflect.TypeFor[Mode]():          {string(ModeOrdered), string(ModeNative), string(ModeAuto)},
	reflect.TypeFor[Action]():        {string(ActionMutate), string(ActionValidate)},
	reflect.TypeFor[IfAbsent]():      {string(IfAbsentAnnotate), string(IfAbsentSkip), string(IfAbsentFail)},
	reflect.TypeFor[GracePolicy]():   {string(GraceRaise), string(GraceWarn), string(GraceKeep)},
	reflect.TypeFor[ExistingHooks](): {string(HooksKeep), string(HooksReplace), string(HooksFail)},
	reflect.TypeFor[HealthCheck]():   {string(HealthCheckEnable), string(HealthCheckRequire)},
}

// Schema returns the JSON schema of the SidecarLifecycle functionConfig,
// made from the Go types and their doc comments.
func Schema() ([]byte, error) {
	s := schemaOf(reflect.TypeFor[SidecarLifecycle](), "")
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

func schemaOf(t reflect.Type, doc string) map[string]any {
	s := map[string]any{}
	if doc != "" {
		s["description"] = doc
	}
	switch {
	case t == reflect.TypeFor[Duration]():
		s["anyOf"] = []any{
			map[string]any{"type": "string", "pattern": `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$|^[0-9]+$`},
			map[string]any{"type": "integer", "minimum": 0},
		}
		return s
	case t == reflect.TypeFor[DurationOrAuto]():
		s["anyOf"] = append(schemaOf(reflect.TypeFor[Duration](), "")["anyOf"].([]any), map[string]any{"const": Auto})
		return s
	case t == reflect.TypeFor[metav1.ObjectMeta]():
		s["type"] = "object"
		return s
	case t == reflect.TypeFor[corev1.Probe]():
		s["type"] = "object"
		s["description"] = strings.TrimSpace(doc + " A Kubernetes Probe (exec, httpGet, tcpSocket or grpc, with its timings).")
		return s
	}
	if values, ok := enums[t]; ok {
		s["type"] = "string"
		s["enum"] = values
		return s
	}
	switch t.Kind() {
	case reflect.Pointer:
		return schemaOf(t.Elem(), doc)
	case reflect.String:
		s["type"] = "string"
	case reflect.Bool:
		s["type"] = "boolean"
	case reflect.Slice:
		s["type"] = "array"
		s["items"] = schemaOf(t.Elem(), "")
	case reflect.Struct:
		s["type"] = "object"
		s["additionalProperties"] = false
		props := map[string]any{}
		var required []string
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" || name == "" {
				continue
			}
			props[name] = schemaOf(f.Type, fieldDocs[t.Name()+"."+f.Name])
			if !strings.Contains(opts, "omitempty") {
				required = append(required, name)
			}
		}
		s["properties"] = props
		if len(required) > 0 {
			s["required"] = required
		}
	}
	return s
}
