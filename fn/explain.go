package fn

import (
	"io"
	"strings"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/explain"
)

// runExplain prints each workload's start-up order and shutdown timeline
// for the ResourceList on stdin, and returns the exit code: 1 when the
// input or its functionConfig cannot be read.
func runExplain(arg string, stdin io.Reader, stdout io.Writer, stderr lines) int {
	_, value, _ := strings.Cut(arg, "=")
	format, err := explain.ParseFormat(value)
	if err == nil {
		err = explain.Run(stdin, stdout, format)
	}
	if err != nil {
		stderr.fail(err.Error())
		return 1
	}
	return 0
}
