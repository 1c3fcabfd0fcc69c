package config_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config/internal/gendoc/docs"
)

// TestSchemaCommitted: the committed schema is what --schema prints.
func TestSchemaCommitted(t *testing.T) {
	got, err := config.Schema()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../schema/sidecarlifecycle.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("schema/sidecarlifecycle.schema.json is stale: run go run . --schema > schema/sidecarlifecycle.schema.json")
	}
}

// TestFieldDocsCurrent: docs_gen.go matches the doc comments of types.go.
func TestFieldDocsCurrent(t *testing.T) {
	got, err := docs.Generate("types.go")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("docs_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("docs_gen.go is stale: run go generate ./transformer/config")
	}
}

// TestSchemaAgreesWithLoad: the schema accepts every golden SidecarLifecycle
// config that Load accepts, and rejects every one with an unknown field or a
// wrong type.
func TestSchemaAgreesWithLoad(t *testing.T) {
	raw, err := config.Schema()
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob("../testdata/*/config.yaml")
	checked := 0
	for _, p := range paths {
		b, _ := os.ReadFile(p)
		rn, err := yaml.Parse(string(b))
		if err != nil || rn.GetKind() != config.Kind {
			continue
		}
		js, _ := rn.MarshalJSON()
		var doc any
		_ = json.Unmarshal(js, &doc)
		schemaErr := validate(schema, doc, "")
		_, loadErr := config.LoadBytes(b)
		unknown := loadErr != nil && regexp.MustCompile(`unknown field|expected a`).MatchString(loadErr.Error())
		if (loadErr == nil && schemaErr != nil) || (unknown && schemaErr == nil) {
			t.Errorf("%s: schema says %v, Load says %v", p, schemaErr, loadErr)
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("only %d configs checked", checked)
	}
}

// validate checks doc against the subset of JSON schema that Schema writes.
func validate(s map[string]any, doc any, at string) error {
	if c, ok := s["const"]; ok && c != doc {
		return fmt.Errorf("%s: %v is not %v", at, doc, c)
	}
	if anyOf, ok := s["anyOf"].([]any); ok {
		for _, alt := range anyOf {
			if validate(alt.(map[string]any), doc, at) == nil {
				return nil
			}
		}
		return fmt.Errorf("%s: %v matches no alternative", at, doc)
	}
	if enum, ok := s["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			found = found || e == doc
		}
		if !found {
			return fmt.Errorf("%s: %v not in %v", at, doc, enum)
		}
	}
	switch s["type"] {
	case "object":
		m, ok := doc.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: not an object", at)
		}
		props, _ := s["properties"].(map[string]any)
		required, _ := s["required"].([]any)
		for _, k := range required {
			if _, ok := m[k.(string)]; !ok {
				return fmt.Errorf("%s.%s: required", at, k)
			}
		}
		for k, v := range m {
			ps, known := props[k]
			if !known {
				ps = s["additionalProperties"]
			}
			if ps == false {
				return fmt.Errorf("%s.%s: unknown field", at, k)
			}
			if ps, ok := ps.(map[string]any); ok {
				if err := validate(ps, v, at+"."+k); err != nil {
					return err
				}
			}
		}
	case "array":
		l, ok := doc.([]any)
		if !ok {
			return fmt.Errorf("%s: not an array", at)
		}
		for i, v := range l {
			if err := validate(s["items"].(map[string]any), v, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	case "string":
		str, ok := doc.(string)
		if !ok {
			return fmt.Errorf("%s: not a string", at)
		}
		if p, ok := s["pattern"].(string); ok && !regexp.MustCompile(p).MatchString(str) {
			return fmt.Errorf("%s: %q does not match %s", at, str, p)
		}
	case "boolean":
		if _, ok := doc.(bool); !ok {
			return fmt.Errorf("%s: not a boolean", at)
		}
	case "integer":
		f, ok := doc.(float64)
		if !ok || f != math.Trunc(f) {
			return fmt.Errorf("%s: not an integer", at)
		}
		if lo, ok := s["minimum"].(float64); ok && f < lo {
			return fmt.Errorf("%s: %v is below %v", at, f, lo)
		}
		if hi, ok := s["maximum"].(float64); ok && f > hi {
			return fmt.Errorf("%s: %v is above %v", at, f, hi)
		}
	case "null":
		if doc != nil {
			return fmt.Errorf("%s: not null", at)
		}
	}
	return nil
}
