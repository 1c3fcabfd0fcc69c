// Package output writes a run's findings as a report: SARIF 2.1.0, JUnit
// XML or JSON (the kpt results shape), each built from the same typed
// results, with the kind of finding each one is (report.KindOf) and the
// place in the input it is about.
package output

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kptdev/krm-functions-sdk/go/fn"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// Format is the form of a run's findings: lines on stderr (Text,
// GitHub) or a report (SARIF, JUnit, JSON).
type Format string

// The formats.
const (
	// Text is one line per warning and error on stderr.
	Text Format = "text"
	// GitHub is the same lines as GitHub workflow commands.
	GitHub Format = "github"
	// SARIF is a SARIF 2.1.0 log, for code scanning.
	SARIF Format = "sarif"
	// JUnit is JUnit XML: one test case per workload.
	JUnit Format = "junit"
	// JSON is the results in kpt's shape, for scripts.
	JSON Format = "json"
)

// Formats are every format, in the order --help lists them.
func Formats() []Format { return []Format{Text, GitHub, SARIF, JUnit, JSON} }

// Parse reads a format's name.
func Parse(name string) (Format, error) {
	for _, f := range Formats() {
		if name == string(f) {
			return f, nil
		}
	}
	names := make([]string, len(Formats()))
	for i, f := range Formats() {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown output format %s; use one of %s", report.Quote(name), strings.Join(names, ", "))
}

// Report reports whether the format is a report rather than lines on
// stderr.
func (f Format) Report() bool { return f == SARIF || f == JUnit || f == JSON }

// Finding is one result with the place in the input it is about.
type Finding struct {
	// Result is the result, its kind in report.KindTag.
	Result *fn.Result
	// File is the file the result is about, as the input named it
	// (relative to the working directory, or absolute); empty for stdin
	// or none.
	File string
	// Line is the line in File, from 1, where the resource starts; 0
	// when it is not known.
	Line int
}

// Kind is the finding's kind: its report.KindTag. Every result is built
// from a finding (internal/report), so every result has one; a result
// without it is taken as about the input as a whole.
func (f Finding) Kind() report.Kind {
	if k := report.KindOf(f.Result); k != "" {
		return k
	}
	return report.KindInput
}

// Run is what one report describes: the tool's version and the findings
// of a run, in order.
type Run struct {
	// Version is the function's version.
	Version string
	// Findings are the run's warnings and errors.
	Findings []Finding
	// Workloads are the workloads the run counted, in input order.
	Workloads []Workload
	// URI gives a finding's file as the report names it: relative to the
	// repository's root where it lies in it (see internal/cli's githubPath). Nil
	// keeps the file as it is.
	URI func(file string) string
}

// uri is the file as the report names it.
func (r Run) uri(file string) string {
	if r.URI == nil || file == "" {
		return file
	}
	return r.URI(file)
}

// Write writes the run as a report in the format: SARIF, JUnit or JSON.
// The summary, which is about the run rather than a place in the input,
// is the JSON report's alone: code scanning and test reports count it as
// a finding.
func Write(w io.Writer, f Format, run Run) error {
	switch f {
	case JSON:
		return writeJSON(w, run)
	case SARIF:
		return writeSARIF(w, run.withoutSummary())
	case JUnit:
		return writeJUnit(w, run.withoutSummary())
	}
	return fmt.Errorf("%s is not a report format", f)
}

// withoutSummary is the run without its summary.
func (run Run) withoutSummary() Run {
	run.Findings = slices.DeleteFunc(slices.Clone(run.Findings), func(f Finding) bool { return f.Kind() == report.KindSummary })
	return run
}
