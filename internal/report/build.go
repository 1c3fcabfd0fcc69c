package report

import (
	"strings"

	"github.com/kptdev/krm-functions-sdk/go/fn"
)

// This file is the one place results are built from findings: every
// result about an item or the config names its field (fn.Result.Field).

// Results builds one item's results from its log: an info result listing
// the changes (the sidecars recognised first), one result per warning,
// break and error. With validate the changes are an error (the workload is
// not as configured) and so are the breaks. Every result has the item's
// resourceRef and file, and its field: for the changes, the field they
// all lie in.
func (l *Log) Results(ref *fn.ResourceRef, file *fn.File, validate bool) fn.Results {
	var out fn.Results
	add := func(f Finding) {
		out = append(out, Result(f, ref, file))
	}
	if len(l.Changes) > 0 && !l.Failed() {
		add(l.changes(validate))
	}
	for _, w := range l.Warnings {
		add(l.Resolve(w))
	}
	for _, b := range l.Breaks {
		if validate {
			b.Severity = fn.Error
		}
		add(l.Resolve(b))
	}
	for _, e := range l.Errors {
		add(l.Resolve(e))
	}
	return out
}

// changes is the one finding that lists the changes, at the field they
// all lie in; with one change, with its values too.
func (l *Log) changes(validate bool) Finding {
	all := append(append(Findings(nil), l.Recognised...), l.Changes...)
	paths := make([]string, len(all))
	for i, f := range all {
		paths[i] = l.Resolve(f).Field.Path
	}
	f := Finding{Kind: KindEdit, Severity: fn.Info, Field: Field{Path: commonPath(paths)}}
	if len(all) == 1 {
		f.Field = l.Resolve(all[0]).Field
	}
	f.Detail = strings.Join(l.Changes.Strings(), "; ")
	if len(l.Recognised) > 0 {
		f.Detail = "recognised " + strings.Join(l.Recognised.Strings(), "; ") + "; " + f.Detail
	}
	if validate {
		f.Severity = fn.Error
		f.Detail = "not as configured; to fix, run sidecar-lifecycle with action: mutate, which makes these changes: " + f.Detail
	}
	return f
}

// Resolve returns the finding with its field's path from the item's root.
func (l *Log) Resolve(f Finding) Finding {
	switch f.Field.Base {
	case InPodSpec:
		f.Field.Path = join(l.PodSpec, f.Field.Path)
	case InPodMeta:
		f.Field.Path = join(l.PodMeta, f.Field.Path)
	}
	f.Field.Base = InItem
	return f
}

// Result is the result of one finding about the resource and file (either
// may be nil), with the finding's field when its path is known. The
// finding's path must start from the item's root (see Log.Resolve).
func Result(f Finding, ref *fn.ResourceRef, file *fn.File) *fn.Result {
	r := &fn.Result{Message: f.Detail, Severity: f.Severity, ResourceRef: ref, File: file, Tags: map[string]string{KindTag: string(f.Kind)}}
	if f.Field.Path != "" {
		r.Field = &fn.Field{Path: f.Field.Path, CurrentValue: f.Field.Current, ProposedValue: f.Field.Proposed}
	}
	return r
}

// commonPath is the longest path that every path lies in, or the first
// path when they share none.
func commonPath(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	common := pathSteps(paths[0])
	for _, p := range paths[1:] {
		steps := pathSteps(p)
		n := 0
		for n < len(common) && n < len(steps) && common[n] == steps[n] {
			n++
		}
		common = common[:n]
	}
	if len(common) == 0 {
		return paths[0]
	}
	return strings.Join(common, ".")
}

// pathSteps splits a path at the dots outside brackets:
// metadata.annotations[proxy.istio.io/config] is two steps.
func pathSteps(path string) []string {
	var steps []string
	depth, start := 0, 0
	for i, c := range path {
		switch c {
		case '[':
			depth++
		case ']':
			depth--
		case '.':
			if depth == 0 {
				steps = append(steps, path[start:i])
				start = i + 1
			}
		}
	}
	return append(steps, path[start:])
}
