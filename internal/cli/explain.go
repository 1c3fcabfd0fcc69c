package cli

import (
	"errors"
	"io"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/explain"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// runExplain prints each workload's start-up order and shutdown timeline,
// for the ResourceList on stdin, or (the explain verb, --config or inputs)
// for the plain stream of
// the named files and directories (stdin without them) read as the
// plain-stream mode reads it, with errors about a place in it named by
// file and line. It returns the exit code: 1 when the arguments, the input
// or the config cannot be read.
func runExplain(a args, stdin io.Reader, stdout io.Writer, stderr lines) int {
	format, err := explain.ParseFormat(a.format)
	if err == nil && !a.plain() {
		err = explain.Run(stdin, stdout, format)
	}
	if err != nil || !a.plain() {
		return failed(stderr, err)
	}
	cfg, err := readOptionalConfig(a.config)
	if err != nil {
		return failed(stderr, err)
	}
	src, err := openInputs(a.inputs, stdin, stderr)
	if err != nil {
		return failed(stderr, err)
	}
	defer src.close()
	if err := explain.RunPlain(cfg, src.reader(), stdout, format); err != nil {
		msg, at := src.explain(err)
		var cfgErrs config.Errors
		if errors.As(err, &cfgErrs) && len(cfgErrs) > 0 { // at the first error's field
			at = configPosition(a.config, cfg, cfgErrs[0].Path)
		}
		stderr.failAt(msg, at)
		return 1
	}
	return 0
}

// failed writes err, if any, and returns the exit code for it.
func failed(stderr lines, err error) int {
	if err == nil {
		return 0
	}
	stderr.fail(err.Error())
	return 1
}
