package krmtest

import (
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Result is one result of an output ResourceList, flattened.
type Result struct {
	// Severity is info, warning or error.
	Severity string
	// Message is the result's message.
	Message string
	// Ref is "kind/namespace/name" of the resourceRef, or "".
	Ref string
}

// Results flattens an output's results.
func (o Output) ResultList() []Result {
	if o.Results == nil {
		return nil
	}
	var out []Result
	for _, n := range o.Results.YNode().Content {
		rn := yaml.NewRNode(n)
		r := Result{Severity: value(rn, "severity"), Message: value(rn, "message")}
		if ref := rn.Field("resourceRef"); ref != nil {
			r.Ref = value(ref.Value, "kind") + "/" + value(ref.Value, "namespace") + "/" + value(ref.Value, "name")
		}
		out = append(out, r)
	}
	return out
}

func value(rn *yaml.RNode, field string) string {
	if f := rn.Field(field); f != nil {
		return yaml.GetValue(f.Value)
	}
	return ""
}

// ID is an item's "kind/namespace/name".
func ID(item *yaml.RNode) string {
	return item.GetKind() + "/" + item.GetNamespace() + "/" + item.GetName()
}

// HasErrors reports whether any result is an error.
func HasErrors(results []Result) bool {
	for _, r := range results {
		if r.Severity == "error" {
			return true
		}
	}
	return false
}

// Check verifies the invariants of one run from input to output: without
// error results the output parses with a strict YAML reader (no alias
// before its anchor, no duplicate key); every item comes out in order; an item differs from
// kyaml's round trip of its input exactly when an info result names it (so
// untouched items are byte-identical), except an untouched item written
// with the same data so that it reads back the same (see rewritten); every
// comment of an input item is in its output item; every edited workload is
// valid; with error results nothing changed.
func Check(input, output []byte) []error {
	var errs []error
	in, err := Split(input)
	if err != nil {
		return []error{fmt.Errorf("input: %w", err)}
	}
	out, err := Split(output)
	if err != nil {
		return append(errs, fmt.Errorf("output: %w", err))
	}
	if len(in.Items) != len(out.Items) {
		return append(errs, fmt.Errorf("%d items in, %d out", len(in.Items), len(out.Items)))
	}
	inText, err := Strings(in.Items)
	if err != nil {
		return []error{err}
	}
	outText, err := Strings(out.Items)
	if err != nil {
		return []error{err}
	}
	results := out.ResultList()
	reported := map[string]bool{}
	for _, r := range results {
		if r.Severity == "info" && r.Ref != "" {
			reported[r.Ref] = true
		}
	}
	failed := HasErrors(results)
	if err := Strict(output); err != nil && !failed {
		errs = append(errs, fmt.Errorf("output: %w", err))
	}
	for i := range in.Items {
		id := ID(in.Items[i])
		if got := ID(out.Items[i]); got != id {
			errs = append(errs, fmt.Errorf("item %d: %s came out as %s", i, id, got))
			continue
		}
		changed := inText[i] != outText[i]
		switch {
		case changed && failed:
			errs = append(errs, fmt.Errorf("%s changed although the run has error results", id))
		case changed && !reported[id] && !rewritten(in.Items[i], out.Items[i]):
			errs = append(errs, fmt.Errorf("%s changed but no info result names it:\n--- in\n%s--- out\n%s", id, inText[i], outText[i]))
		case !changed && reported[id]:
			errs = append(errs, fmt.Errorf("%s has an info result but did not change", id))
		}
		for _, c := range Comments(in.Items[i]) {
			if !strings.Contains(outText[i], c) {
				errs = append(errs, fmt.Errorf("%s lost comment %q", id, c))
			}
		}
		if changed {
			if err := Valid(out.Items[i]); err != nil {
				errs = append(errs, fmt.Errorf("%s: %v", id, err))
			}
			if a, b := containerNames(in.Items[i]), containerNames(out.Items[i]); a != b {
				errs = append(errs, fmt.Errorf("%s: containers %s became %s", id, a, b))
			}
		}
	}
	return errs
}

// containerNames lists, sorted, the names of every entry of any containers
// or initContainers list of the item, aliases and merge keys resolved.
func containerNames(rn *yaml.RNode) string {
	var data any
	if err := rn.YNode().Decode(&data); err != nil {
		return "undecodable: " + err.Error()
	}
	var names []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				if list, ok := c.([]any); ok && (k == "containers" || k == "initContainers") {
					for _, e := range list {
						if m, ok := e.(map[string]any); ok {
							names = append(names, fmt.Sprint(m["name"]))
						}
					}
				}
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(data)
	sort.Strings(names)
	return fmt.Sprint(names)
}

// Comments lists every comment line of a node tree, sorted.
func Comments(rn *yaml.RNode) []string {
	var out []string
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		for _, c := range []string{n.HeadComment, n.LineComment, n.FootComment} {
			for _, line := range strings.Split(c, "\n") {
				if line = strings.TrimSpace(line); line != "" {
					out = append(out, line)
				}
			}
		}
		for _, k := range n.Content {
			walk(k)
		}
	}
	walk(rn.YNode())
	sort.Strings(out)
	return out
}

// Reported lists the results that say a resource changed (info results with a
// resourceRef) or that something failed: a second run must report none.
func Reported(results []Result) []Result {
	var out []Result
	for _, r := range results {
		if r.Severity == "error" || (r.Severity == "info" && r.Ref != "") {
			out = append(out, r)
		}
	}
	return out
}
