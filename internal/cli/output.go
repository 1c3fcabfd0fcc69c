package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	krm "github.com/kptdev/krm-functions-sdk/go/fn"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/output"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// The environment variables that set --output and --output-file when
// they are not given.
const (
	outputEnv     = "SIDECAR_LIFECYCLE_OUTPUT"
	outputFileEnv = "SIDECAR_LIFECYCLE_OUTPUT_FILE"
)

// outputExamples are the examples of the output flags' errors.
var outputExamples = map[string]string{
	"--output":      "--output=sarif (text, github, sarif, junit or json)",
	"--output-file": "--output-file=results.sarif (- for stdout)",
}

// setOutput takes --output or --output-file, once each.
func (a *args) setOutput(name, value string) error {
	target := &a.output
	if name == "--output-file" {
		target = &a.outputFile
	}
	switch {
	case *target != "":
		return fmt.Errorf("%s is given twice: one per run", name)
	case value == "":
		return fmt.Errorf("%s needs a value: %s", name, outputExamples[name])
	case name == "--output":
		if _, err := output.Parse(value); err != nil {
			return err
		}
	}
	*target = value
	return nil
}

// checkOutput refuses the output flags where they do nothing: with
// explain, and --output-file with a format that is not a report.
func (a args) checkOutput() error {
	switch {
	case a.command == cmdExplain && (a.output != "" || a.outputFile != ""):
		return errors.New("explain takes no --output or --output-file: it prints the timelines (--format text|markdown)")
	case a.outputFile != "" && a.output == "":
		return errors.New("--output-file needs a report format: --output=sarif, junit or json")
	case a.outputFile != "" && !output.Format(a.output).Report():
		return fmt.Errorf("--output-file takes a report, not --output=%s: use --output=sarif, junit or json", a.output)
	}
	return nil
}

// outputs are where a run's findings go: its format, and for a report
// the file (empty or "-" for stdout).
type outputs struct {
	format output.Format
	// given reports that the format was chosen (flag or environment),
	// not the default.
	given bool
	file  string
}

// outputs are the output flags, each else its variable in the
// environment (getenv): SIDECAR_LIFECYCLE_OUTPUT and
// SIDECAR_LIFECYCLE_OUTPUT_FILE. Explain reads neither.
func (a args) outputs(getenv func(string) string) (outputs, error) {
	if a.command == cmdExplain {
		return outputs{format: output.Text}, nil
	}
	o := outputs{format: output.Text, file: a.outputFile}
	if o.file == "" {
		o.file = getenv(outputFileEnv)
	}
	name := a.output
	if name == "" {
		name = getenv(outputEnv)
	}
	if name == "" {
		return o, nil
	}
	f, err := output.Parse(name)
	if err != nil {
		return outputs{}, fmt.Errorf("%s: %w", outputEnv, err)
	}
	o.format, o.given = f, true
	if !f.Report() {
		o.file = ""
	}
	return o, nil
}

// toStdout reports whether the report goes to stdout, which then carries
// no manifests.
func (o outputs) toStdout() bool { return o.format.Report() && (o.file == "" || o.file == "-") }

// lines sets the stderr lines' form: --output=github chooses workflow
// commands and --output=text plain lines; otherwise GITHUB_ACTIONS=true
// chooses.
func (o outputs) lines(l lines) lines {
	if o.given && o.format == output.GitHub {
		l.github = true
	}
	if o.given && o.format == output.Text {
		l.github = false
	}
	return l
}

// findings collects a run's findings for its report, each at its place
// in the input.
type findings struct {
	list      []output.Finding
	workloads []output.Workload
}

// addWorkloads takes the workloads a run counted, each at its place in
// the input (at gives it from the workload's line), else at the file
// its resourceRef's file annotation names.
func (f *findings) addWorkloads(list []driver.Workload, at func(line int) position) {
	for _, w := range list {
		file := ""
		if w.File != nil {
			file = w.File.Path
		}
		p := at(w.Line)
		if p.file != "" {
			file = p.file
		}
		f.workloads = append(f.workloads, output.Workload{Ref: w.Ref, File: file, Line: p.line, Skipped: w.Skipped})
	}
}

// add takes a warning or error result about a place in the input; the
// result's own file when the place is not known.
func (f *findings) add(r *krm.Result, at position) {
	if _, ok := r.Tags[report.WorkloadsTag]; ok {
		return // listed for each workload (driver.Report.Shared)
	}
	file := report.File(r)
	if at.file != "" {
		file = at.file
	}
	f.list = append(f.list, output.Finding{Result: r, File: file, Line: at.line})
}

// dropChanges leaves out the infos that list a workload's changes: a
// failed run writes none of them.
func (f *findings) dropChanges() {
	f.list = slices.DeleteFunc(f.list, func(x output.Finding) bool {
		return x.Result.Severity == krm.Info && x.Kind() == report.KindEdit
	})
}

// fail takes an error that is not a result: input the run cannot read.
func (f *findings) fail(msg string, at position) {
	r := report.Result(report.NewFinding(report.KindInput, krm.Error, report.Field{}, "%s", msg), nil, nil)
	f.list = append(f.list, output.Finding{Result: r, File: at.file, Line: at.line})
}

// write writes the report, to stdout or the file, and returns the exit
// code: code, or 1 when the report cannot be written. A failed run
// (code 1) writes no change, so the report says none.
func (o outputs) write(f *findings, code int, stdout io.Writer, stderr lines) int {
	if !o.format.Report() {
		return code
	}
	if code != 0 {
		f.dropChanges()
	}
	run := output.Run{Version: Version(), Findings: f.list, Workloads: f.workloads, URI: stderr.reportPath}
	w := stdout
	var file *os.File
	if !o.toStdout() {
		var err error
		if file, err = os.Create(o.file); err != nil {
			stderr.fail(fmt.Sprintf("writing the %s report: %v", o.format, unwrapPath(err)))
			return 1
		}
		w = file
	}
	err := output.Write(w, o.format, run)
	if file != nil {
		if cerr := file.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		if brokenPipe(err) {
			return exitBrokenPipe
		}
		stderr.fail(fmt.Sprintf("writing the %s report: %v", o.format, err))
		return 1
	}
	return code
}

// fail writes an error that ends the run before it reads the input, on
// stderr and as the report's one finding, and returns exit code 1.
func (o outputs) fail(msg string, stdout io.Writer, stderr lines) int {
	stderr.fail(msg)
	var f findings
	f.fail(msg, position{})
	return o.write(&f, 1, stdout, stderr)
}
