// Command kyaml-identity is the baseline of the benchmarks: it reads a
// ResourceList from stdin with kyaml's kio.ByteReadWriter and writes it back
// to stdout with no edit, the round trip every kyaml-based KRM function pays.
package main

import (
	"fmt"
	"os"

	"sigs.k8s.io/kustomize/kyaml/kio"
)

func main() {
	rw := &kio.ByteReadWriter{Reader: os.Stdin, Writer: os.Stdout, KeepReaderAnnotations: true}
	items, err := rw.Read()
	if err != nil {
		fmt.Fprintf(os.Stderr, "kyaml-identity: %v\n", err)
		os.Exit(1)
	}
	if err := rw.Write(items); err != nil {
		fmt.Fprintf(os.Stderr, "kyaml-identity: %v\n", err)
		os.Exit(1)
	}
}
