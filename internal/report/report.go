// Package report collects what the edits of one workload changed, warned
// about and failed on, as typed findings, and builds the function's
// results from them.
package report

import (
	"errors"

	"github.com/kptdev/krm-functions-sdk/go/fn"
)

// Log collects the findings of one workload's edits: changes, warnings and
// errors, each with its kind and field. Every message is made one safe
// line with Clean when it is recorded.
type Log struct {
	// PodSpec is the path of the workload's pod spec in the item, and
	// PodMeta that of its pod template's metadata: what fields at
	// InPodSpec and InPodMeta start from.
	PodSpec, PodMeta string
	// Recognised says which sidecars of the catalog were recognised, and by what.
	Recognised Findings
	// Changes says what was changed, one line each.
	Changes Findings
	// Warnings says what may not work as asked.
	Warnings Findings
	// Shared says what may not work as asked because of the config or the
	// catalog alone: a warning that reads the same for every workload it
	// is found in. A run says each once, with the workloads, among its
	// closing results, not once per workload.
	Shared Findings
	// Errors says what cannot be done; any error leaves the input unchanged.
	Errors Findings
	// Breaks says where the termination budget does not hold: warnings,
	// errors with action validate, as the budget finds them
	// (budget.Pod.OrderedBreaks). They do not stop the edit.
	Breaks Findings
}

// Recognise records a sidecar of the catalog recognised in the workload,
// at its container.
func (l *Log) Recognise(at Field, format string, args ...any) {
	l.Recognised = append(l.Recognised, NewFinding(KindRecognition, fn.Info, at, format, args...))
}

// Change records a change of the field.
func (l *Log) Change(at Field, format string, args ...any) {
	l.Changes = append(l.Changes, NewFinding(KindEdit, fn.Info, at, format, args...))
}

// Warn records a warning about the field.
func (l *Log) Warn(kind Kind, at Field, format string, args ...any) {
	l.Warnings = append(l.Warnings, NewFinding(kind, fn.Warning, at, format, args...))
}

// WarnShared records a warning that the config or the catalog alone
// decides: its text names no value of the workload's own but the
// container names the config or the catalog gives (see Shared).
func (l *Log) WarnShared(kind Kind, at Field, format string, args ...any) {
	l.Shared = append(l.Shared, NewFinding(kind, fn.Warning, at, format, args...))
}

// Fail records an error about the field.
func (l *Log) Fail(kind Kind, at Field, format string, args ...any) {
	l.Errors = append(l.Errors, NewFinding(kind, fn.Error, at, format, args...))
}

// FailWith records an error: the finding it is when it is a Finder, else
// an input error about the item.
func (l *Log) FailWith(err error) {
	var f Finder
	if errors.As(err, &f) {
		found := f.Finding()
		found.Severity, found.Detail = fn.Error, Clean(err.Error())
		l.Errors = append(l.Errors, found)
		return
	}
	l.Fail(KindInput, At(""), "%v", err)
}

// Failed reports whether any error was recorded.
func (l *Log) Failed() bool { return len(l.Errors) > 0 }
