// Command gentable writes the generated tables of README.md,
// docs/catalog.md and docs/configuration.md, between their markers, from
// the built-in catalog (transformer/config/catalog/*.yaml), in docs/catalog.md
// the load balancer catalog (internal/budget/loadbalancers.yaml), and the
// config's defaults.
//
//	go run ./internal/preset/internal/gentable -root .
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset/internal/gentable/tables"
)

func main() {
	root := flag.String("root", ".", "the repository's root directory")
	flag.Parse()
	if err := write(*root); err != nil {
		fmt.Fprintln(os.Stderr, "gentable:", err)
		os.Exit(1)
	}
}

// write rewrites every page that holds a generated table.
func write(root string) error {
	pages, err := tables.Generate(root)
	if err != nil {
		return err
	}
	for _, p := range pages {
		if err := os.WriteFile(filepath.Join(root, p.Path), p.Text, 0o644); err != nil {
			return err
		}
	}
	return nil
}
