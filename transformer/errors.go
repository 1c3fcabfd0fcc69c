package transformer

import (
	"errors"
	"strings"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/report"
)

// ErrResults is returned by Run when the output carries error results.
var ErrResults = errors.New("the function reported errors; see results")

// ResultsError is Run's error when the output carries error results: it
// lists them, because kustomize shows only stderr when a function fails.
type ResultsError struct {
	// Errors are the error results, one line each.
	Errors []string
}

// Error joins the error results.
func (e *ResultsError) Error() string { return strings.Join(e.Errors, "; ") }

// Is makes errors.Is(err, ErrResults) true.
func (e *ResultsError) Is(target error) bool { return target == ErrResults }

// resultsError is the ResultsError of a run's diagnostics, or nil when
// none is an error.
func resultsError(diags []Diagnostic) error {
	var lines []string
	for _, d := range diags {
		if d.Severity == fn.Error {
			lines = append(lines, d.Text)
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return &ResultsError{Errors: lines}
}

// Diagnostic is a warning or error result as one line of text, for stderr
// (kustomize shows a function's stderr, never its results).
type Diagnostic struct {
	// Severity is fn.Warning or fn.Error.
	Severity fn.Severity
	// Text names the resource ("Deployment shop/web") or the config field
	// path, then says what is wrong. It holds no control character.
	Text string
	// File is the resource's file, from the path annotation the
	// orchestrator set, or empty.
	File string
	// Shown reports that the orchestrator shows the result itself: kpt
	// fn render prints every result and then the function's stderr.
	Shown bool
}

// String is the line without the program name: "error: " or "warning: "
// and the text.
func (d Diagnostic) String() string { return string(d.Severity) + ": " + d.Text }

// Diagnostics are the warning and error results as one line each, named
// and escaped as on stderr, for programs that embed the transformer.
func Diagnostics(results fn.Results) []Diagnostic { return diagnostics(results, false) }

// diagnostics are the warning and error results, one line each; shown
// says whether the orchestrator shows them itself.
func diagnostics(results fn.Results, shown bool) []Diagnostic {
	var out []Diagnostic
	for _, r := range results {
		if r.Severity != fn.Error && r.Severity != fn.Warning {
			continue
		}
		d := diagnostic(r)
		d.Shown = shown
		out = append(out, d)
	}
	return out
}

// packagePathAnnotation is set by kpt fn render, and only by it, on every
// item: the package's directory.
const packagePathAnnotation = "internal.config.kubernetes.io/package-path"

// shownByOrchestrator reports whether the item comes from kpt fn render,
// which shows the results and, after them, the function's stderr:
// printing the results on stderr too would show each one twice. kpt fn
// eval shows both as well but marks its items with nothing of its own.
func shownByOrchestrator(item *yaml.RNode) bool {
	return item.GetAnnotations(packagePathAnnotation)[packagePathAnnotation] != ""
}

// diagnostic formats one result: the field path of a config error, or
// the resource it is about, then the message. Names from the input are
// quoted when they hold more than letters, digits and . _ : @ -.
func diagnostic(r *fn.Result) Diagnostic {
	text := report.Clean(r.Message)
	switch {
	case r.Field != nil && r.Field.Path != "":
		text = report.Escape(r.Field.Path) + ": " + text
	case r.ResourceRef != nil:
		text = report.Resource(r.ResourceRef.Kind, r.ResourceRef.Namespace, r.ResourceRef.Name) + ": " + text
	}
	d := Diagnostic{Severity: r.Severity, Text: text}
	if r.File != nil {
		d.File = r.File.Path
	}
	return d
}
