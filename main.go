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
	crashguard.Guard("sidecar-lifecycle") // a crash (out of memory) is one line, not every goroutine's stack
	os.Exit(cli.Main())
}
