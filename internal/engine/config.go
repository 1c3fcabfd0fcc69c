package engine

import (
	"github.com/kptdev/krm-functions-sdk/go/fn"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// configResults turns config errors into error results that name the
// field.
func configResults(err error) fn.Results {
	var out fn.Results
	if errs, ok := err.(config.Errors); ok {
		for _, e := range errs {
			out = append(out, report.Result(configFinding(e), nil, nil))
		}
		return out
	}
	return fn.Results{report.Result(report.NewFinding(report.KindConfig, fn.Error, report.At(""), "%s", err.Error()), nil, nil)}
}

// configFinding is a config error as a finding.
func configFinding(e config.FieldError) report.Finding {
	return report.NewFinding(report.KindConfig, fn.Error, report.At(e.Path), "%s", e.Message)
}
