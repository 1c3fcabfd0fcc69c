// Command yamlv3-identity is the bare baseline of the benchmarks: it
// decodes stdin into one yaml.v3 node tree (kyaml's) and encodes it back to
// stdout, with none of kyaml's kio reading and writing around it.
package main

import (
	"fmt"
	"io"
	"os"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

func main() {
	in, err := io.ReadAll(os.Stdin)
	if err == nil {
		var doc yaml.Node
		if err = yaml.Unmarshal(in, &doc); err == nil {
			enc := yaml.NewEncoder(os.Stdout)
			if err = enc.Encode(&doc); err == nil {
				err = enc.Close()
			}
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "yamlv3-identity: %v\n", err)
		os.Exit(1)
	}
}
