package transformer_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// publicPackages are the library: the directories under the module root
// whose exported names other programs may use.
var publicPackages = []string{".", "config", "kustomize"}

// internalAliases are the exported names that are aliases of internal types,
// kept so that callers can name what the API hands them.
var internalAliases = map[string]bool{
	"transformer.ResultsError": true, // errors.As target of Filter's error
	"config.CatalogEntry":      true, // spec.catalog.entries, in the catalog's file format
}

// TestPublicAPI: the public packages export no variable (a value callers
// could change under the function) and no signature, field or type that
// names a package under internal/, but for the aliases listed.
func TestPublicAPI(t *testing.T) {
	for _, dir := range publicPackages {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			problems, err := publicProblems(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range problems {
				t.Error(p)
			}
		}
	}
}

// publicProblems lists the exported variables of the Go file at path and
// its exported names whose types name an internal package.
func publicProblems(path string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var problems []string
	internal := map[string]bool{}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if !strings.Contains(p, "/sidecar-lifecycle/internal/") {
			continue
		}
		name := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		internal[name] = true
	}
	pkg := f.Name.Name
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || (d.Recv != nil && !exportedReceiver(d.Recv)) {
				continue
			}
			problems = append(problems, leaks(path, pkg+"."+d.Name.Name, d.Type, internal)...)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() && d.Tok == token.VAR {
							problems = append(problems, fmt.Sprintf("%s: exported variable %s.%s: make it a function or unexport it", path, pkg, n.Name))
						}
					}
				case *ast.TypeSpec:
					name := pkg + "." + s.Name.Name
					if !s.Name.IsExported() || (s.Assign.IsValid() && internalAliases[name]) {
						continue
					}
					problems = append(problems, leaks(path, name, s.Type, internal)...)
				}
			}
		}
	}
	return problems, nil
}

// exportedReceiver reports whether a method's receiver type is exported.
func exportedReceiver(recv *ast.FieldList) bool {
	typ := recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	id, ok := typ.(*ast.Ident)
	return ok && id.IsExported()
}

// leaks reports every internal package named in node, skipping unexported
// struct fields.
func leaks(path, name string, node ast.Node, internal map[string]bool) []string {
	var problems []string
	ast.Inspect(node, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Field:
			if len(x.Names) > 0 && !x.Names[0].IsExported() {
				return false
			}
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && internal[id.Name] {
				problems = append(problems, fmt.Sprintf("%s: %s names the internal %s.%s", path, name, id.Name, x.Sel.Name))
			}
		}
		return true
	})
	return problems
}

// TestPublicAPICatches: the check above finds a leak and an exported
// variable.
func TestPublicAPICatches(t *testing.T) {
	dir := t.TempDir()
	src := "package config\n\nimport \"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset\"\n\n" +
		"var Kinds = []string{}\n\ntype Spec struct{ P preset.Preset; q preset.Preset }\n\nfunc Look(n string) preset.Preset { return preset.Preset{} }\n"
	path := filepath.Join(dir, "leak.go")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := publicProblems(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Errorf("found %d problems, want 3 (the variable, the field P, Look): %q", len(got), got)
	}
}
