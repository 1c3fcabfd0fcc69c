package config

import (
	"bytes"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// compiledSchema is Schema compiled by a JSON schema validator, which
// asserts formats (date-time) too.
func compiledSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	raw, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const url = "https://sidecar-lifecycle.dev/schemas/v1alpha1/sidecarlifecycle.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return schema
}

// schemaVerdict checks a YAML config's JSON form against the schema.
func schemaVerdict(t testing.TB, schema *jsonschema.Schema, text string) error {
	t.Helper()
	rn, err := yaml.Parse(text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	js, err := rn.MarshalJSON()
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	return schema.Validate(doc)
}
