package report_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestResultsBuiltOnlyHere: no code outside internal/report writes an
// fn.Result literal, so every result, the closing ones too, is built from
// a typed finding (report.Result, Log.Results) and every output form reads
// the same finding.
func TestResultsBuiltOnlyHere(t *testing.T) {
	root := filepath.Join("..", "..")
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "bin" || path == filepath.Join(root, "internal", "report")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		resultPkgs := map[string]bool{}
		for _, imp := range f.Imports {
			if imp.Path.Value != `"github.com/kptdev/krm-functions-sdk/go/fn"` {
				continue
			}
			name := "fn"
			if imp.Name != nil {
				name = imp.Name.Name
			}
			resultPkgs[name] = true
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if sel, ok := lit.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Result" {
				if pkg, ok := sel.X.(*ast.Ident); ok && resultPkgs[pkg.Name] {
					t.Errorf("%s: an fn.Result written outside internal/report: build it from a report.Finding with report.Result", fset.Position(lit.Pos()))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("only %d Go files read: the walk missed the module", files)
	}
}
