package report

import (
	"errors"
	"strings"

	"github.com/kptdev/krm-functions-sdk/go/fn"
)

// The function's results are the kpt function SDK's: what a ResourceList
// carries in its results field. Every entry point hands them out as
// fn.Results and formats them with Line, so a message reads and is
// escaped the same wherever it is shown.

// Line formats a result as one line: the resource it is about and the
// field path in it ("Deployment shop/web spec.template.spec"), else the
// field path (of the config), then the message. Input text in it is quoted and escaped: it holds no control
// character.
func Line(r *fn.Result) string {
	text := Clean(r.Message)
	switch {
	case r.ResourceRef != nil && r.Field != nil && !namesField(text, r.Field.Path):
		text = Resource(r.ResourceRef.Kind, r.ResourceRef.Namespace, r.ResourceRef.Name) + " " + Escape(r.Field.Path) + ": " + text
	case r.ResourceRef != nil:
		text = Resource(r.ResourceRef.Kind, r.ResourceRef.Namespace, r.ResourceRef.Name) + ": " + text
	case r.Field != nil && r.Field.Path != "":
		text = Escape(r.Field.Path) + ": " + text
	}
	return text
}

// namesField reports whether a message already starts with its field,
// or with a field the path lies in ("metadata: duplicate key labels"), or
// has no field to name.
func namesField(text, path string) bool {
	if path == "" {
		return true
	}
	steps := pathSteps(path)
	for i := range steps {
		if strings.HasPrefix(text, Escape(strings.Join(steps[:i+1], "."))+":") {
			return true
		}
	}
	return false
}

// File is the file a result is about, as the orchestrator named it, or
// empty.
func File(r *fn.Result) string {
	if r.File == nil {
		return ""
	}
	return r.File.Path
}

// Problems are the warning and error results, in order: what is shown on
// stderr.
func Problems(results fn.Results) fn.Results {
	var out fn.Results
	for _, r := range results {
		if r.Severity == fn.Error || r.Severity == fn.Warning {
			out = append(out, r)
		}
	}
	return out
}

// ErrResults is what errors.Is finds in the error of a run whose results
// hold an error: every entry point returns a *ResultsError then.
var ErrResults = errors.New("the function reported errors; see results")

// ResultsError is the error of a run whose results hold an error. It lists
// them, one Line each, because some orchestrators (kustomize) show only a
// function's error or stderr, never its results.
type ResultsError struct {
	// Results are the error results.
	Results fn.Results
}

// Error is every error result's Line, joined with "; ", after the
// program's name.
func (e *ResultsError) Error() string {
	lines := make([]string, len(e.Results))
	for i, r := range e.Results {
		lines[i] = Line(r)
	}
	return "sidecar-lifecycle: " + strings.Join(lines, "; ")
}

// Is makes errors.Is(err, ErrResults) true.
func (e *ResultsError) Is(target error) bool { return target == ErrResults }

// ErrorOf is the *ResultsError of the results, or nil when none is an
// error.
func ErrorOf(results fn.Results) error {
	var errs fn.Results
	for _, r := range results {
		if r.Severity == fn.Error {
			errs = append(errs, r)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &ResultsError{Results: errs}
}
