// Package report collects what the edits of one workload changed, warned
// about and failed on.
package report

import "fmt"

// Log collects the changes, warnings and errors of one workload's edits.
// Every message is made one safe line with Clean when it is recorded.
type Log struct {
	// Recognised says which sidecars of the catalog were recognised, and by what.
	Recognised []string
	// Changes says what was changed, one line each.
	Changes []string
	// Warnings says what may not work as asked.
	Warnings []string
	// Shared says what may not work as asked because of the config or the
	// catalog alone: a warning that reads the same for every workload it
	// is found in. A run says each once, with the workloads, among its
	// closing results, not once per workload.
	Shared []string
	// Errors says what cannot be done; any error leaves the input unchanged.
	Errors []string
	// Breaks says where the termination budget does not hold: warnings,
	// errors with action validate. They do not stop the edit.
	Breaks []string
}

// Recognise records a sidecar of the catalog recognised in the workload.
func (l *Log) Recognise(format string, args ...any) {
	l.Recognised = append(l.Recognised, Clean(fmt.Sprintf(format, args...)))
}

// Change records a change.
func (l *Log) Change(format string, args ...any) {
	l.Changes = append(l.Changes, Clean(fmt.Sprintf(format, args...)))
}

// Warn records a warning.
func (l *Log) Warn(format string, args ...any) {
	l.Warnings = append(l.Warnings, Clean(fmt.Sprintf(format, args...)))
}

// WarnShared records a warning that the config or the catalog alone
// decides: its text names no value of the workload's own but the
// container names the config or the catalog gives (see Shared).
func (l *Log) WarnShared(format string, args ...any) {
	l.Shared = append(l.Shared, Clean(fmt.Sprintf(format, args...)))
}

// Fail records an error.
func (l *Log) Fail(format string, args ...any) {
	l.Errors = append(l.Errors, Clean(fmt.Sprintf(format, args...)))
}

// Break records a break of the termination budget.
func (l *Log) Break(format string, args ...any) {
	l.Breaks = append(l.Breaks, fmt.Sprintf(format, args...))
}

// Failed reports whether any error was recorded.
func (l *Log) Failed() bool { return len(l.Errors) > 0 }
