package cli

import (
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// configPosition is where a config field path (spec.sidecars[0].name,
// data.mode) stands in the config file: the line of its key, or of the
// nearest enclosing field the file has (a missing required field is
// reported at its mapping). Without a path it is the file's first line.
func configPosition(file string, cfg *yaml.RNode, path string) position {
	at := position{file: file, line: 1}
	if cfg == nil {
		return at
	}
	n := cfg.YNode()
	at.line = max(n.Line, 1)
	for _, step := range pathSteps(path) {
		next, line := childOf(n, step)
		if next == nil {
			break
		}
		n, at.line = next, line
	}
	return at
}

// pathSteps splits a field path into its keys and list indexes:
// spec.sidecars[0].name is spec, sidecars, [0], name.
func pathSteps(path string) []string {
	var steps []string
	for _, part := range strings.Split(path, ".") {
		key, rest, _ := strings.Cut(part, "[")
		if key != "" {
			steps = append(steps, key)
		}
		for rest != "" {
			index, after, _ := strings.Cut(rest, "]")
			steps = append(steps, "["+index+"]")
			_, rest, _ = strings.Cut(after, "[")
		}
	}
	return steps
}

// childOf is the node a step leads to from n, with the line of the step:
// a key's own line, or a list entry's.
func childOf(n *yaml.Node, step string) (*yaml.Node, int) {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch {
	case n == nil:
		return nil, 0
	case strings.HasPrefix(step, "["):
		i, err := strconv.Atoi(strings.Trim(step, "[]"))
		if err != nil || n.Kind != yaml.SequenceNode || i < 0 || i >= len(n.Content) {
			return nil, 0
		}
		return n.Content[i], n.Content[i].Line
	case n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == step {
				return n.Content[i+1], n.Content[i].Line
			}
		}
	}
	return nil, 0
}
