package config

// Schema checks for the tests of package config_test.
var (
	CompiledSchema = compiledSchema
	SchemaVerdict  = schemaVerdict
)
