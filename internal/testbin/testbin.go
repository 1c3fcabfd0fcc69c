// Package testbin gives tests the function's binary, built once per
// `go test` run: `make test` builds bin/sidecar-lifecycle and names it in
// $SIDECAR_LIFECYCLE_BINARY; without it, as when one package's tests run
// alone, the first test that asks builds it once for its test process.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Env names the variable that gives the tests a built binary.
const Env = "SIDECAR_LIFECYCLE_BINARY"

// module is the import path of the function's main package.
const module = "github.com/sidecar-lifecycle/sidecar-lifecycle"

var built struct {
	once      sync.Once
	dir, path string
	err       error
}

// Path returns the function's binary: the one $SIDECAR_LIFECYCLE_BINARY
// names, else one built on the first call, in a temporary directory that
// Remove removes.
func Path() (string, error) {
	built.once.Do(func() {
		if p := os.Getenv(Env); p != "" {
			built.path, built.err = filepath.Abs(p)
			if built.err == nil {
				_, built.err = os.Stat(built.path)
			}
			if built.err != nil {
				built.err = fmt.Errorf("%s=%s: %w (make build writes it)", Env, p, built.err)
			}
			return
		}
		built.dir, built.err = os.MkdirTemp("", "sidecar-lifecycle-bin-")
		if built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "sidecar-lifecycle")
		if out, err := exec.Command("go", "build", "-o", built.path, module).CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	return built.path, built.err
}

// Remove removes the binary Path built, if it built one; call it from
// TestMain after the tests.
func Remove() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}

// For is Path for a test, which fails when there is no binary.
func For(tb testing.TB) string {
	tb.Helper()
	path, err := Path()
	if err != nil {
		tb.Fatal(err)
	}
	return path
}
