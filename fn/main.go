// Command sidecar-lifecycle is a KRM function that makes sidecar containers
// start before the application containers and stop after them. It reads a
// ResourceList on stdin and writes it, with results, on stdout.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/report"
)

// version is stamped at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	dir, _ := os.Getwd()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, newLines(os.Stderr, os.Getenv, dir)))
}

// run handles the flags, or runs the function from stdin to stdout, and
// returns the exit code. Every warning and error goes to stderr as one line.
func run(args []string, stdin io.Reader, stdout io.Writer, stderr lines) int {
	if len(args) > 0 {
		switch args[0] {
		case "--help", "-h", "help":
			fmt.Fprint(stdout, usage)
			return 0
		case "--schema", "schema":
			b, err := config.Schema()
			if err != nil {
				stderr.fail(err.Error())
				return 1
			}
			stdout.Write(b)
			return 0
		case "--version", "version":
			fmt.Fprintf(stdout, "sidecar-lifecycle %s\n", version)
			return 0
		default:
			stderr.fail(fmt.Sprintf("unknown argument %s; see --help", report.Quote(args[0])))
			return 1
		}
	}
	diags, err := transformer.RunReport(stdin, stdout)
	printed := false
	for _, d := range diags {
		if !d.Shown { // kpt fn render shows it among the results
			stderr.diagnostic(d)
			printed = true
		}
	}
	switch {
	case err == nil:
		return 0
	case !errors.Is(err, transformer.ErrResults):
		stderr.fail(err.Error())
	case printed:
		stderr.note("nothing was changed")
	}
	return 1
}
