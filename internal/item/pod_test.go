package item

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
)

// TestPodReadOnce: every workload the edit changes has its pod read once
// (containers, template metadata, Namespace) and the edited pod read once
// by the budget; with waitBeforeExit auto the budget also reads the pod
// before the edit, for the application's drain.
func TestPodReadOnce(t *testing.T) {
	items := corpusItems(t, 30)
	for _, tc := range []struct {
		name, cfg   string
		budgetReads int64
	}{
		{"zero config", "", 1},
		{"auto", "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec: {app: {drainDelay: 5s}, sidecars: [{preset: linkerd, waitBeforeExit: auto}]}\n", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ed := New(krmtest.Config(t, tc.cfg))
			pods := reads.pods.Load()
			var workloads, ordered int64
			for _, item := range items {
				before := reads.budgets.Load()
				ed := ed.Edit(item, &Facts{})
				if ed.Failed() {
					t.Fatalf("%s failed: %v", item.GetName(), ed.Errors())
				}
				if ed.Workload {
					workloads++
				}
				read := reads.budgets.Load() - before
				if ed.Result.Outcome == OutcomeOrdered {
					ordered++
					if read != tc.budgetReads {
						t.Errorf("%s: the budget read its pod %d times; want %d", item.GetName(), read, tc.budgetReads)
					}
				}
				if read > tc.budgetReads || ed.Workload && read == 0 {
					t.Errorf("%s: the budget read its pod %d times; want 1 to %d", item.GetName(), read, tc.budgetReads)
				}
			}
			if ordered < 10 {
				t.Fatalf("%d workloads ordered; the corpus should give more", ordered)
			}
			if got := reads.pods.Load() - pods; got != workloads {
				t.Errorf("%d pods read for %d workloads", got, workloads)
			}
		})
	}
}

// TestPodReadInOnePlace: the package reads containers, template metadata
// and a pod for the budget only through the pod view (pod.go) and the
// checks before it; a workload is found in the item only where it is
// first met and where an expansion makes a new one.
func TestPodReadInOnePlace(t *testing.T) {
	allowed := map[string][]string{
		"readContainers":            {"pod.go"},
		"readPodMeta":               {"item.go"},
		"budget.ReadPod":            {"pod.go"},
		"workload.Find":             {"edit.go", "item.go", "termination.go"},
		"entries.index.Recognising": {"pod.go", "recognise.go"},
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			name := exprName(call.Fun)
			if places, watched := allowed[name]; watched && !contains(places, file) {
				t.Errorf("%s: %s called outside %v", fset.Position(call.Pos()), name, places)
			}
			return true
		})
	}
}

func exprName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprName(e.X) + "." + e.Sel.Name
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
