// Command sidecar-lifecycle is a KRM function that makes sidecar containers
// start before the application containers and stop after them. It reads a
// ResourceList on stdin and writes it, with results, on stdout.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/crashguard"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// version is stamped at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	crashguard.Guard("sidecar-lifecycle") // a crash (out of memory) is one line, not every goroutine's stack
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run handles the flags, or runs the function from stdin to stdout, and
// returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "--help", "-h", "help":
			fmt.Fprint(stdout, usage)
			return 0
		case "--schema", "schema":
			b, err := config.Schema()
			if err != nil {
				fmt.Fprintf(stderr, "sidecar-lifecycle: %v\n", err)
				return 1
			}
			stdout.Write(b)
			return 0
		case "--version", "version":
			fmt.Fprintf(stdout, "sidecar-lifecycle %s\n", version)
			return 0
		default:
			fmt.Fprintf(stderr, "sidecar-lifecycle: unknown argument %q; see --help\n", args[0])
			return 1
		}
	}
	if err := transformer.Run(stdin, stdout); err != nil {
		var results *transformer.ResultsError
		if !errors.As(err, &results) {
			fmt.Fprintf(stderr, "sidecar-lifecycle: %v\n", err)
			return 1
		}
		for _, line := range results.Errors {
			fmt.Fprintf(stderr, "sidecar-lifecycle: %s\n", line)
		}
		fmt.Fprintln(stderr, "sidecar-lifecycle: nothing was changed")
		return 1
	}
	return 0
}
