package transformer_test

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// publicPackages are the module's packages other programs may import:
// every one outside internal/ that is not a command and has Go files
// besides its tests, each as its directory.
func publicPackages(t *testing.T) []string {
	t.Helper()
	out, err := goList("-f", "{{.Name}} {{len .GoFiles}} {{.Dir}}", "./...")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		fields := strings.SplitN(line, " ", 3)
		if len(fields) != 3 || fields[0] == "main" || fields[1] == "0" || isInternal(filepath.ToSlash(fields[2])) {
			continue
		}
		dirs = append(dirs, fields[2])
	}
	if !slices.Contains(dirs, mustAbs(t, ".")) || !slices.Contains(dirs, mustAbs(t, "config")) {
		t.Fatalf("go list ./... names neither transformer nor transformer/config: %q", dirs)
	}
	return dirs
}

// goList runs go list at the module's root.
func goList(args ...string) (string, error) {
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// isInternal reports whether a package path or directory lies under a
// directory named internal.
func isInternal(p string) bool {
	return strings.Contains(p+"/", "/internal/")
}

// mustAbs is the absolute path of a directory.
func mustAbs(t *testing.T, dir string) string {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// internalAliases are the exported names that are aliases of internal types,
// kept so that callers can name what the API hands them.
var internalAliases = map[string]bool{
	"transformer.ResultsError": true, // errors.As target of Filter's error
}

// TestPublicAPI: the public packages (every package of the module outside
// internal/ but the commands) export no variable (a value callers could
// change under the function) and no signature, field or type that names a
// package under internal/, but for the aliases listed.
func TestPublicAPI(t *testing.T) {
	for _, dir := range publicPackages(t) {
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

// TestConfigIsALeaf: go list -deps ./transformer/config names no package
// under an internal/ directory, not even config's own (its doc generator is
// a go run tool, not a dependency): a program that imports the config
// types imports no code of the function's engine.
func TestConfigIsALeaf(t *testing.T) {
	out, err := goList("-deps", "./transformer/config")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config\n") {
		t.Fatalf("go list -deps ./transformer/config does not name it:\n%s", out)
	}
	if deps := internalDeps(out); len(deps) > 0 {
		t.Errorf("transformer/config depends on %q", deps)
	}
}

// internalDeps are the module's packages under internal/ among go list's
// lines, relative to the module, sorted.
func internalDeps(goList string) []string {
	const module = "github.com/sidecar-lifecycle/sidecar-lifecycle/"
	var deps []string
	for _, p := range strings.Fields(goList) {
		if rel, ok := strings.CutPrefix(p, module); ok && isInternal("/"+rel) {
			deps = append(deps, rel)
		}
	}
	slices.Sort(deps)
	return deps
}

// TestInternalDepsCatches: the check above sees an internal package of
// the module, a nested internal/ directory, and nothing else.
func TestInternalDepsCatches(t *testing.T) {
	got := internalDeps("errors\nsigs.k8s.io/kustomize/kyaml/yaml\ngithub.com/sidecar-lifecycle/sidecar-lifecycle/internal/report\n" +
		"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config/internal/gendoc\ngithub.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config\n")
	if want := []string{"internal/report", "transformer/config/internal/gendoc"}; !slices.Equal(got, want) {
		t.Errorf("internalDeps: %q, want %q", got, want)
	}
}
