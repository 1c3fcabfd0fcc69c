package krmtest

import (
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/list"
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
		ins, outs, err := resources(in.Items[i], out.Items[i])
		if err != nil {
			errs = append(errs, fmt.Errorf("item %d: %w", i, err))
			continue
		}
		for j := range ins {
			errs = append(errs, checkResource(ins[j], outs[j], failed, reported)...)
		}
	}
	return errs
}

// resources pairs an input item with its output item as resources: a List
// (see list.Items) as its entries, once its own fields are found
// unchanged; any other item as itself.
func resources(in, out *yaml.RNode) ([]*yaml.RNode, []*yaml.RNode, error) {
	inEntries, inList := list.Items(in)
	outEntries, outList := list.Items(out)
	if !inList {
		return []*yaml.RNode{in}, []*yaml.RNode{out}, nil
	}
	if !outList || len(inEntries) != len(outEntries) {
		return nil, nil, fmt.Errorf("List %s came out as %s", ID(in), ID(out))
	}
	text, err := Strings([]*yaml.RNode{list.Without(in), list.Without(out)})
	if err != nil {
		return nil, nil, err
	}
	if text[0] != text[1] {
		return nil, nil, fmt.Errorf("List %s changed beside its items:\n--- in\n%s--- out\n%s", ID(in), text[0], text[1])
	}
	ins, outs := make([]*yaml.RNode, len(inEntries)), make([]*yaml.RNode, len(outEntries))
	for j := range inEntries {
		ins[j], outs[j] = yaml.NewRNode(inEntries[j]), yaml.NewRNode(outEntries[j])
	}
	return ins, outs, nil
}

// checkResource checks one resource from input to output (see Check).
func checkResource(in, out *yaml.RNode, failed bool, reported map[string]bool) []error {
	text, err := Strings([]*yaml.RNode{in, out})
	if err != nil {
		return []error{err}
	}
	inText, outText := text[0], text[1]
	id := ID(in)
	if got := ID(out); got != id {
		return []error{fmt.Errorf("%s came out as %s", id, got)}
	}
	var errs []error
	changed := inText != outText
	switch {
	case changed && failed:
		errs = append(errs, fmt.Errorf("%s changed although the run has error results", id))
	case changed && !reported[id] && !rewritten(in, out):
		errs = append(errs, fmt.Errorf("%s changed but no info result names it:\n--- in\n%s--- out\n%s", id, inText, outText))
	case !changed && reported[id]:
		errs = append(errs, fmt.Errorf("%s has an info result but did not change", id))
	}
	for _, c := range Comments(in) {
		if !strings.Contains(outText, c) {
			errs = append(errs, fmt.Errorf("%s lost comment %q", id, c))
		}
	}
	if changed {
		if err := Valid(out); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", id, err))
		}
		if a, b := containerNames(in), containerNames(out); a != b {
			errs = append(errs, fmt.Errorf("%s: containers %s became %s", id, a, b))
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
