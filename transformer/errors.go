package transformer

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kptdev/krm-functions-sdk/go/fn"
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

func resultsError(results fn.Results) error {
	return &ResultsError{Errors: errorLines(results)}
}

// errorLines are the error results, one line each.
func errorLines(results fn.Results) []string {
	var lines []string
	for _, r := range results {
		if r.Severity != fn.Error {
			continue
		}
		line := r.Message
		switch {
		case r.Field != nil && r.Field.Path != "":
			line = r.Field.Path + ": " + line
		case r.ResourceRef != nil:
			line = fmt.Sprintf("%s %s: %s", r.ResourceRef.Kind, qualifiedName(r.ResourceRef), line)
		}
		lines = append(lines, line)
	}
	return lines
}

func qualifiedName(r *fn.ResourceRef) string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}
