package config

// ValidateSchema checks a config's JSON form against a JSON schema, for the
// tests of package config_test.
var ValidateSchema = validateSchema
