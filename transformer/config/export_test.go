package config

import "io/fs"

// Schema checks for the tests of package config_test.
var (
	CompiledSchema = compiledSchema
	SchemaVerdict  = schemaVerdict
)

// UseCatalog makes the catalog/*.yaml files of fsys the built-in catalog,
// read through the same loader as the embedded one, until restore is
// called. Tests that use it must not run in parallel.
func UseCatalog(fsys fs.FS) (restore func()) {
	old := builtin
	builtin = newShelf(fsys)
	return func() { builtin = old }
}
