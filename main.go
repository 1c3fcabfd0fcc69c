// Command sidecar-lifecycle is a KRM function that makes sidecar containers
// start before the application containers and stop after them, with no
// change to any image. `go install
// github.com/sidecar-lifecycle/sidecar-lifecycle@VERSION` installs it under
// that name; the wiring is in internal/cli, the library in transformer.
package main

import (
	"os"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/cli"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/crashguard"
)

func main() {
	// A crash (out of memory) is one line, not every goroutine's stack;
	// except for the webhook, a server whose crash report is read from its
	// pod's previous log, where a second process would only take memory.
	if len(os.Args) < 2 || os.Args[1] != "webhook" {
		crashguard.Guard("sidecar-lifecycle")
	}
	os.Exit(cli.Main())
}
