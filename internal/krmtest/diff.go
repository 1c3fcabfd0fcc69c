package krmtest

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Diff shows the lines of want and got that differ, with line numbers.
func Diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	n := max(len(w), len(g))
	shown := 0
	for i := 0; i < n && shown < 40; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want: %s\n  got:  %s\n", i+1, wl, gl)
			shown++
		}
	}
	return b.String()
}

// ResultsYAML encodes an output's results list, or nothing when absent.
func ResultsYAML(o Output) ([]byte, error) {
	if o.Results == nil {
		return nil, nil
	}
	s, err := yaml.String(o.Results.YNode())
	return []byte(s), err
}
