package output

import (
	"encoding/json"
	"io"
	"strconv"

	"github.com/kptdev/krm-functions-sdk/go/fn"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// LineTag is the tag of a JSON result that holds the line, from 1, of
// the resource in its file, where the input gives one (a plain stream).
const LineTag = "line"

// jsonReport is the JSON report: the results, as a ResourceList's results
// field holds them.
type jsonReport struct {
	Results fn.Results `json:"results"`
}

// writeJSON writes the findings as {"results": [...]}, each a kpt result
// whose tags hold its kind (report.KindTag) and, in a plain stream, its
// line (LineTag), and whose file is the input file the resource came
// from, as the input named it.
func writeJSON(w io.Writer, run Run) error {
	out := jsonReport{Results: fn.Results{}}
	for _, f := range run.Findings {
		out.Results = append(out.Results, jsonResult(f))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// jsonResult is the finding's result with its kind, file and line.
func jsonResult(f Finding) *fn.Result {
	r := *f.Result
	r.Tags = map[string]string{}
	for k, v := range f.Result.Tags {
		r.Tags[k] = v
	}
	r.Tags[report.KindTag] = string(f.Kind())
	if f.File != "" && (r.File == nil || r.File.Path == "") {
		r.File = &fn.File{Path: f.File}
	}
	if f.Line > 0 {
		r.Tags[LineTag] = strconv.Itoa(f.Line)
	}
	return &r
}
