package cli

import (
	"bytes"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	krm "github.com/kptdev/krm-functions-sdk/go/fn"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// prefix starts every line the function writes on stderr.
const prefix = "sidecar-lifecycle: "

// lines writes the function's warnings and errors on stderr, one line
// each: "sidecar-lifecycle: error: ..." and "sidecar-lifecycle: warning:
// ...", or, in GitHub Actions, the same as workflow commands
// ("::error file=...::sidecar-lifecycle: ...") that annotate the file.
type lines struct {
	w io.Writer
	// github writes workflow commands (GITHUB_ACTIONS=true).
	github bool
	// workspace is GITHUB_WORKSPACE and dir the working directory: a
	// resource's file is given to GitHub relative to the workspace.
	workspace, dir string
}

// newLines returns the stderr writer for the environment getenv reads.
func newLines(w io.Writer, getenv func(string) string, dir string) lines {
	return lines{
		w:         safeWriter{w},
		github:    getenv("GITHUB_ACTIONS") == "true",
		workspace: resolved(getenv("GITHUB_WORKSPACE")),
		dir:       resolved(dir),
	}
}

// result writes one warning or error result, formatted by report.Line.
func (l lines) result(r *krm.Result) { l.resultAt(r, position{}) }

// resultAt writes a result about the resource at a place in the input:
// "file:line: " before it, and the file and line for GitHub, which
// otherwise gets the result's own file, if any.
func (l lines) resultAt(r *krm.Result, at position) {
	file, line := report.File(r), 0
	if at.file != "" {
		file, line = at.file, at.line
	}
	l.line(r.Severity, at.prefix()+report.Line(r), file, line)
}

// fail writes an error that is not a result: bad input, a bad argument.
func (l lines) fail(msg string) { l.failAt(msg, position{}) }

// failAt writes an error about a place in the input.
func (l lines) failAt(msg string, at position) {
	l.line(krm.Error, at.prefix()+report.Clean(msg), at.file, at.line)
}

// warn writes a warning that is not a result.
func (l lines) warn(msg string) { l.line(krm.Warning, report.Clean(msg), "", 0) }

// line writes "sidecar-lifecycle: error: text", or its workflow command
// with the file and the line, when known.
func (l lines) line(severity krm.Severity, text, file string, line int) {
	if !l.github {
		io.WriteString(l.w, prefix+string(severity)+": "+text+"\n")
		return
	}
	cmd := "::" + string(severity)
	if file != "" {
		cmd += " file=" + escapeProperty(l.githubPath(file))
		if line > 0 {
			cmd += ",line=" + strconv.Itoa(line)
		}
	}
	io.WriteString(l.w, cmd+"::"+escapeData(prefix+text)+"\n")
}

// note writes a line that is neither a warning nor an error.
func (l lines) note(msg string) {
	io.WriteString(l.w, prefix+msg+"\n")
}

// resolved is dir with its symbolic links resolved, or dir when that fails.
func resolved(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return dir
}

// githubPath is the file as GitHub names it, relative to the workspace
// (the repository's root), when it lies in the workspace; else as given.
// A relative path is taken from the working directory, as kustomize's
// origin annotation (relative to the kustomization built, which is where
// kustomize runs an exec function) is.
func (l lines) githubPath(file string) string { return l.under(l.workspace, file) }

// reportPath is the file as a report names it: relative to the workspace
// under GitHub Actions, else to the working directory, when it lies
// there; else as given.
func (l lines) reportPath(file string) string {
	if l.workspace != "" {
		return l.githubPath(file)
	}
	return l.under(l.dir, file)
}

// under is the file relative to root when it lies in root, else as given;
// a relative file is taken from the working directory.
func (l lines) under(root, file string) string {
	if root == "" {
		return file
	}
	abs := file
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(l.dir, file)
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return file
	}
	return filepath.ToSlash(rel)
}

// escapeData escapes a workflow command's message as GitHub's own toolkit
// does (actions/toolkit, packages/core/src/command.ts, escapeData).
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value as GitHub's
// own toolkit does (command.ts, escapeProperty).
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// safeWriter is the last guard on stderr: each Write is one line, and
// every control character in it but the final newline is escaped, so that
// nothing from the input can start a line of its own or reach a terminal.
type safeWriter struct{ w io.Writer }

// Write escapes p and writes it with one final newline.
func (s safeWriter) Write(p []byte) (int, error) {
	line := report.Escape(string(bytes.TrimSuffix(p, []byte("\n"))))
	if _, err := io.WriteString(s.w, line+"\n"); err != nil {
		return 0, err
	}
	return len(p), nil
}
