//go:build e2e

package e2e

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"sync"
	"testing"
	"text/tabwriter"
)

// summary collects one row per scenario and variant; TestMain prints it.
var summary table

// scenarioOrder and variantOrder fix the table's order, whatever order the
// parallel tests finish in.
var (
	scenarioOrder = []string{"start-up", "shutdown", "budget", "job", "api-server", "audit",
		"csql-start-up", "csql-shutdown", "csql-env", "csql-job", "alloydb-start-up", "alloydb-shutdown", "alloydb-job", "oauth2-proxy-shutdown",
		"csql-offline", "alloydb-offline", "oauth2-proxy-offline"}
	variantOrder = []string{"unmodified", "ordered", "short-exit", "auto", "native", "examples", "broken", "live", "rbac", "nodes", "all"}
)

type table struct {
	mu   sync.Mutex
	rows []*row
}

// row is one line of the summary. ok and failed count the app's requests;
// -1 means the scenario sends none.
type row struct {
	t                 *testing.T
	scenario, variant string
	ok, failed        int
	observed          string
	problems          []string
	complete          bool
}

// add registers a row for the test; its verdict is read when the test ends.
func (s *table) add(t *testing.T, scenario, variant string) *row {
	r := &row{t: t, scenario: scenario, variant: variant, ok: -1, failed: -1}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows = append(s.rows, r)
	return r
}

// check records a problem on the row and fails the test when cond is false.
func (r *row) check(cond bool, format string, args ...any) bool {
	r.t.Helper()
	if !cond {
		msg := fmt.Sprintf(format, args...)
		r.problems = append(r.problems, msg)
		r.t.Errorf("%s/%s: %s", r.scenario, r.variant, msg)
	}
	return cond
}

// done marks the row's assertions as run to the end.
func (r *row) done() { r.complete = true }

func (r *row) verdict() string {
	switch {
	case len(r.problems) > 0:
		return "FAIL"
	case !r.complete && r.t.Failed():
		return "FAIL"
	case !r.complete && r.t.Skipped():
		return "skipped"
	case !r.complete:
		return "not run"
	}
	return "pass"
}

func index(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return len(list)
}

func count(n int) string {
	if n < 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

// print writes the table.
func (s *table) print(w io.Writer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sort.SliceStable(s.rows, func(i, j int) bool {
		a, b := s.rows[i], s.rows[j]
		if x, y := index(scenarioOrder, a.scenario), index(scenarioOrder, b.scenario); x != y {
			return x < y
		}
		return index(variantOrder, a.variant) < index(variantOrder, b.variant)
	})
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tVARIANT\tREQUESTS OK\tFAILED\tRESULT\tOBSERVED")
	for _, r := range s.rows {
		observed := r.observed
		if len(r.problems) > 0 {
			observed += " | " + r.problems[0]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.scenario, r.variant, count(r.ok), count(r.failed), r.verdict(), observed)
	}
	_ = tw.Flush()
}
