package preset_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
)

const presetImport = "github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"

// notPresetNames are comparisons, by file, with a string that is also a
// preset's name but stands for something else there.
var notPresetNames = map[string][]string{}

// TestNoSwitchOnPresetNames keeps each sidecar kind's behaviour in this
// package, where adding a kind is adding one value: no other Go file of
// the module compares a preset's name, as a name constant of this package
// or as a string, in a switch case, with == or !=, or as a map key. Code
// asks the Preset instead.
func TestNoSwitchOnPresetNames(t *testing.T) {
	root := moduleRoot(t)
	constants := nameConstants(t, filepath.Join(root, "internal", "preset"))
	if len(constants) == 0 {
		t.Fatalf("found no name constants for the presets %v", preset.Names())
	}
	excepted := map[string]bool{}
	eachCodeFile(t, root, func(rel, path string) {
		for _, found := range nameComparisons(t, path, constants) {
			if slices.Contains(notPresetNames[rel], found.text) {
				excepted[rel+": "+found.text] = true
			} else {
				t.Errorf("%s:%d: %s compares a preset's name: ask the preset (package preset) instead", rel, found.line, found.text)
			}
		}
	})
	for file, texts := range notPresetNames {
		for _, text := range texts {
			if !excepted[file+": "+text] {
				t.Errorf("notPresetNames: %s has no %s any more; remove the entry", file, text)
			}
		}
	}
}

// moduleRoot is the directory of go.mod above the test's directory.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// nameConstants returns the constants of package preset whose value is a
// preset's name.
func nameConstants(t *testing.T, dir string) []string {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.ValueSpec)
			if !ok || spec.Type != nil {
				return true
			}
			for i, v := range spec.Values {
				if lit, ok := v.(*ast.BasicLit); ok && isPresetName(lit) {
					names = append(names, spec.Names[i].Name)
				}
			}
			return true
		})
	}
	return names
}

// isPresetName reports whether a literal is a string that names a preset.
func isPresetName(lit *ast.BasicLit) bool {
	if lit.Kind != token.STRING {
		return false
	}
	s, err := strconv.Unquote(lit.Value)
	return err == nil && slices.Contains(preset.Names(), s)
}

// comparison is a place that compares a preset's name.
type comparison struct {
	line int
	text string
}

// nameComparisons returns every comparison of a preset's name in a file.
func nameComparisons(t *testing.T, path string, constants []string) []comparison {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pkgName := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == presetImport {
			pkgName = "preset"
			if imp.Name != nil {
				pkgName = imp.Name.Name
			}
		}
	}
	isName := func(e ast.Expr) bool {
		switch e := e.(type) {
		case *ast.BasicLit:
			return isPresetName(e)
		case *ast.SelectorExpr:
			x, ok := e.X.(*ast.Ident)
			return ok && pkgName != "" && x.Name == pkgName && slices.Contains(constants, e.Sel.Name)
		}
		return false
	}
	var found []comparison
	add := func(n ast.Node) {
		found = append(found, comparison{line: fset.Position(n.Pos()).Line, text: string(src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset])})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if (n.Op == token.EQL || n.Op == token.NEQ) && (isName(n.X) || isName(n.Y)) {
				add(n)
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				if isName(e) {
					add(e)
				}
			}
		case *ast.KeyValueExpr:
			if isName(n.Key) {
				add(n.Key)
			}
		}
		return true
	})
	return found
}

// eachCodeFile calls check with the path, relative to root and absolute, of
// every Go file of the module but tests, testdata and package preset, and
// fails the test when it finds none.
func eachCodeFile(t *testing.T, root string, check func(rel, path string)) {
	t.Helper()
	var checked int
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "internal/preset" || d.Name() == "testdata" || d.Name() == "vendor" || (rel != "." && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		checked++
		check(rel, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no Go file checked")
	}
}
