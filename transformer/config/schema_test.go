package config_test

import (
	"bytes"
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
	schema := config.CompiledSchema(t)
	paths, _ := filepath.Glob("../../internal/driver/testdata/*/config.yaml")
	checked := 0
	for _, p := range paths {
		b, _ := os.ReadFile(p)
		rn, err := yaml.Parse(string(b))
		if err != nil || rn.GetKind() != config.Kind {
			continue
		}
		schemaErr := config.SchemaVerdict(t, schema, string(b))
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
