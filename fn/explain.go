package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/explain"
)

// runExplain prints each workload's start-up order and shutdown timeline
// for the ResourceList on stdin, and returns the exit code: 1 when the
// input or its functionConfig cannot be read.
func runExplain(arg string, stdin io.Reader, stdout, stderr io.Writer) int {
	_, value, _ := strings.Cut(arg, "=")
	format, err := explain.ParseFormat(value)
	if err == nil {
		err = explain.Run(stdin, stdout, format)
	}
	if err != nil {
		fmt.Fprintf(stderr, "sidecar-lifecycle: %s\n", strings.ReplaceAll(err.Error(), "\n", "; "))
		return 1
	}
	return 0
}
