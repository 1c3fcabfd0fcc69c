package fn

import (
	"io"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/explain"
)

// runExplain prints each workload's start-up order and shutdown timeline,
// for the ResourceList on stdin, or with --config for the plain stream of
// the named files and directories (stdin without them) read as the
// plain-stream mode reads it. It returns the exit code: 1 when the
// arguments, the input or the config cannot be read.
func runExplain(a args, stdin io.Reader, stdout io.Writer, stderr lines) int {
	err := writeExplanation(a, stdin, stdout)
	if err != nil {
		stderr.fail(err.Error())
		return 1
	}
	return 0
}

// writeExplanation writes the explanation the arguments ask for.
func writeExplanation(a args, stdin io.Reader, stdout io.Writer) error {
	format, err := explain.ParseFormat(a.format)
	if err != nil {
		return err
	}
	if a.config == "" {
		return explain.Run(stdin, stdout, format)
	}
	cfg, err := readConfig(a.config)
	if err != nil {
		return err
	}
	in, closeAll, err := openInputs(a.inputs, stdin)
	if err != nil {
		return err
	}
	defer closeAll()
	return explain.RunPlain(cfg, in, stdout, format)
}

// openInputs opens the plain stream's inputs as one stream, as the
// plain-stream mode reads them: the files, and each directory's YAML and
// JSON files in name order, with "---" between files; stdin without them.
func openInputs(inputs []string, stdin io.Reader) (io.Reader, func(), error) {
	if len(inputs) == 0 {
		return stdin, func() {}, nil
	}
	files, err := inputFiles(inputs)
	if err != nil {
		return nil, nil, err
	}
	return concatenate(files)
}
