package cli

import (
	"errors"
	"syscall"
)

// exitBrokenPipe is the exit code when the reader of the output went away
// (`... | head -1`): the code a shell reports for a program that SIGPIPE
// ended, 128 + 13, which is how Unix tools end then, quietly.
const exitBrokenPipe = 128 + int(syscall.SIGPIPE)

// brokenPipe reports whether err is a write to a pipe whose reader is
// gone. Go ends the program by SIGPIPE on such a write to stdout unless
// the signal is ignored (a parent that ignores it passes that on): then
// the write returns EPIPE, and the run ends as quietly.
func brokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }
