// Command gendoc writes docs_gen.go: the doc comments of the config types'
// fields, keyed "Type.Field", so that the JSON schema can describe them.
//
//	go run ./transformer/config/internal/gendoc -out transformer/config/docs_gen.go transformer/config/types.go
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config/internal/gendoc/docs"
)

func main() {
	out := flag.String("out", "", "file to write")
	flag.Parse()
	src, err := docs.Generate(flag.Args()...)
	if err == nil && *out != "" {
		err = os.WriteFile(*out, src, 0o644)
	} else if err == nil {
		_, err = os.Stdout.Write(src)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gendoc:", err)
		os.Exit(1)
	}
}
