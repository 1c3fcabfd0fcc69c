package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/item"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// sharedNames is how many workloads a shared warning names; the others
// are counted.
const sharedNames = 3

// shared collects the warnings that the config or the catalog alone
// decides (report.Log.Shared) across a run's workloads: each is said once
// among the closing results, with the number of workloads it was found in
// and the first few of them, in input order.
type shared struct {
	// order is the warnings in the order the run first met them.
	order []string
	found map[string]*sharedFinding
	// every keeps every workload a warning was found in (see each);
	// without it, the first only.
	every bool
}

// sharedFinding is where one shared warning was found.
type sharedFinding struct {
	// finding is the warning, at its field in the first workload.
	finding report.Finding
	count   int
	names   []string
	// at is every workload it was found in, in input order, or the first
	// only: a warning found in one workload only is said of it, as any
	// other warning, and a report lists each (see each).
	at []sharedAt
}

// sharedAt is a workload a shared warning was found in: its resourceRef,
// its file and the warning's field in it.
type sharedAt struct {
	ref   *fn.ResourceRef
	file  *fn.File
	field report.Field
}

// add notes the shared warnings of one workload's log; a warning said
// twice of it counts once.
func (s *shared) add(node *yaml.RNode, log report.Log) {
	warnings := log.Shared.Strings()
	if len(warnings) == 0 {
		return
	}
	if s.found == nil {
		s.found = map[string]*sharedFinding{}
	}
	meta, _ := node.GetMeta()
	name := report.Resource(meta.Kind, meta.Namespace, meta.Name)
	resRef, file := item.RefOf(meta)
	for i, w := range warnings {
		if slices.Contains(warnings[:i], w) {
			continue
		}
		f := s.found[w]
		resolved := log.Resolve(log.Shared[i])
		if f == nil {
			f = &sharedFinding{finding: resolved}
			s.found[w] = f
			s.order = append(s.order, w)
		}
		if s.every || len(f.at) == 0 {
			f.at = append(f.at, sharedAt{ref: resRef, file: file, field: resolved.Field})
		}
		f.count++
		if len(f.names) < sharedNames {
			f.names = append(f.names, name)
		}
	}
}

// results are the shared warnings, one each, in the order the run met
// them: no resourceRef, since each is about several workloads; one found
// in a single workload is said of it, with its resourceRef, file and
// field.
func (s *shared) results() fn.Results {
	var out fn.Results
	for _, w := range s.order {
		f := s.found[w]
		if f.count == 1 {
			out = append(out, report.Result(f.finding, f.at[0].ref, f.at[0].file))
			continue
		}
		about := f.finding
		about.Detail, about.Field = w+" "+f.where(), report.Field{} // several workloads: no one field
		r := report.Result(about, nil, nil)
		r.Tags[report.WorkloadsTag] = strconv.Itoa(f.count)
		out = append(out, r)
	}
	return out
}

// each is every shared warning said of several workloads, once for each
// of them, with its resourceRef, file and field: what a report lists in
// place of the one closing result (report.WorkloadsTag).
func (s *shared) each() fn.Results {
	if !s.every {
		return nil
	}
	var out fn.Results
	for _, w := range s.order {
		f := s.found[w]
		if f.count == 1 {
			continue
		}
		for _, at := range f.at {
			about := f.finding
			about.Field = at.field
			out = append(out, report.Result(about, at.ref, at.file))
		}
	}
	return out
}

// where is "(3 workloads: Deployment shop/a, Deployment shop/b, StatefulSet
// shop/c)", or with more workloads than named "(12,000 workloads:
// Deployment shop/a, …, and 11,997 more)".
func (f *sharedFinding) where() string {
	names := strings.Join(f.names, ", ")
	if more := f.count - len(f.names); more > 0 {
		names += ", and " + thousands(more) + " more"
	}
	return fmt.Sprintf("(%s workloads: %s)", thousands(f.count), names)
}

// thousands is n with a comma between each group of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
