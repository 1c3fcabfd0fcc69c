// Package cli is the command line of sidecar-lifecycle: it reads a
// ResourceList on stdin and writes it, with results, on stdout (a KRM
// function), or with --config edits a plain multi-document YAML stream (a
// Helm post-renderer), and prints every warning and error on stderr.
package cli

import (
	krm "github.com/kptdev/krm-functions-sdk/go/fn"

	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// version is stamped at build time with -ldflags
// "-X github.com/sidecar-lifecycle/sidecar-lifecycle/internal/cli.version=...";
// without it, the module version go install recorded, else "dev".
var version = ""

// commit is the source revision, stamped the same way (".../cli.commit=...")
// by `make build` and the release; --version prints it after the version.
var commit = ""

// Version is the version this binary reports.
func Version() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}

// Main runs the command with the process's arguments, standard streams and
// environment, and returns the exit code.
func Main() int {
	dir, _ := os.Getwd()
	tuneGC(os.Getenv)
	return run(os.Args[1:], os.Stdin, os.Stdout, newLines(os.Stderr, os.Getenv, dir))
}

// run handles the flags, or runs the function from stdin to stdout, and
// returns the exit code. Every warning and error goes to stderr as one line.
func run(list []string, stdin io.Reader, stdout io.Writer, stderr lines) int {
	if len(list) > 0 && list[0] == "webhook" {
		return runWebhook(list[1:], os.Getenv, os.Stderr)
	}
	a, err := parseArgs(list)
	if err != nil {
		stderr.fail(err.Error())
		return 1
	}
	opts, err := a.options(os.Getenv)
	if err != nil {
		stderr.fail(err.Error())
		return 1
	}
	out, err := a.outputs(os.Getenv)
	if err != nil {
		stderr.fail(err.Error())
		return 1
	}
	stderr = out.lines(stderr)
	switch {
	case a.command == cmdHelp:
		fmt.Fprint(stdout, usage)
		return 0
	case a.command == cmdSchema:
		b, err := config.Schema()
		if err != nil {
			stderr.fail(err.Error())
			return 1
		}
		stdout.Write(b)
		return 0
	case a.command == cmdVersion:
		if commit != "" {
			fmt.Fprintf(stdout, "sidecar-lifecycle %s (commit %s)\n", Version(), commit)
		} else {
			fmt.Fprintf(stdout, "sidecar-lifecycle %s\n", Version())
		}
		return 0
	case a.command == cmdExplain:
		return runExplain(a, stdin, stdout, stderr)
	}
	opts.Infos = out.format.Report()
	if a.plain() {
		return runPlain(a, opts, out, stdin, stdout, stderr)
	}
	return runResourceList(opts, out, stdin, stdout, stderr)
}

// runResourceList is the KRM function: a ResourceList on stdin, edited to
// stdout, or with a report format the report to stdout or its file.
func runResourceList(opts driver.Options, out outputs, stdin io.Reader, stdout io.Writer, stderr lines) int {
	manifests := stdout
	if out.toStdout() {
		manifests = io.Discard
	}
	var found findings
	rep, err := driver.ResourceListWith(stdin, manifests, opts)
	for _, r := range rep.Problems {
		if !rep.Shown && r.Severity != krm.Info { // kpt fn render shows them among the results
			stderr.result(r)
		}
		found.add(r, position{})
	}
	for _, r := range rep.Shared {
		found.add(r, position{})
	}
	found.addWorkloads(rep.Workloads, func(int) position { return position{} })
	switch {
	case err == nil:
		return out.write(&found, 0, stdout, stderr)
	case brokenPipe(err):
		return exitBrokenPipe
	case !errors.Is(err, report.ErrResults):
		stderr.fail(err.Error())
		found.fail(err.Error(), position{})
	case len(rep.Problems) > 0 && !rep.Shown:
		stderr.note("nothing was changed")
	}
	return out.write(&found, 1, stdout, stderr)
}
