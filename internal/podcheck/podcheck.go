// Package podcheck checks, before any edit, the types and ranges of every
// field of a workload that the function reads or writes: the pod spec, its
// containers and their hooks and probes, and the metadata its annotations
// come from. The filters can then rely on the shapes. Paths are built with
// k8s.io/apimachinery's field package, with list indexes and YAML names.
package podcheck

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// Error is one field of the wrong type or out of range.
type Error struct {
	// Path is the field, such as spec.template.spec.containers[1].lifecycle.
	Path *field.Path
	// Found says what the field holds, quoted and shortened.
	Found string
	// Want says what the field must hold, and what to do.
	Want string
	// Value is the scalar the field holds, or nil for a list, a mapping or
	// an absent field.
	Value any
}

// Error formats the error as "path: found ...; want ...".
func (e Error) Error() string {
	return fmt.Sprintf("%s: found %s; want %s", e.Path, e.Found, e.Want)
}

// Finding is the error as a finding: a field value at its path, with the
// value it holds.
func (e Error) Finding() report.Finding {
	return report.Finding{Kind: report.KindFieldValue, Severity: fn.Error,
		Field: report.At(e.Path.String()).Values(e.Value, nil), Detail: report.Clean(e.Error())}
}

// Errors is every problem found in one workload.
type Errors []Error

// Findings returns the errors as findings, in order.
func (e Errors) Findings() report.Findings {
	out := make(report.Findings, len(e))
	for i, err := range e {
		out[i] = err.Finding()
	}
	return out
}

func (e *Errors) add(p *field.Path, n *yaml.Node, want string) {
	*e = append(*e, Error{Path: p, Found: describe(n), Want: want, Value: scalar(n)})
}

// scalar is the value of a scalar node, its alias followed, or nil.
func scalar(n *yaml.Node) any {
	n = resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return nil
	}
	return n.Value
}

// int64Max is the largest value of the API server's int64 fields.
const int64Max = "9223372036854775807"

// pastInt64 reports whether the node is a decimal integer too large for an
// int64 that yaml.v3 still resolves as an integer (one that fits in a
// uint64); report.Found names larger ones, which it resolves as floats,
// as out of range itself.
func pastInt64(n *yaml.Node) bool {
	n = resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() != yaml.NodeTagInt || !decimal.MatchString(n.Value) {
		return false
	}
	_, err := strconv.ParseInt(n.Value, 10, 64)
	return err != nil
}

// describe says in a few words what a node holds, following an alias to
// its anchor.
func describe(n *yaml.Node) string {
	if n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		return describe(n.Alias)
	}
	return report.Found(n)
}

// resolve follows an alias to its anchored node.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// isNull reports whether the field is absent or null, which Kubernetes
// reads as unset.
func isNull(n *yaml.Node) bool {
	n = resolve(n)
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == yaml.NodeTagNull)
}

// fieldOf returns the value of key in a mapping node, or nil.
func fieldOf(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return resolve(m.Content[i+1])
		}
	}
	return nil
}

// decimal is a non-negative integer written in decimal without leading
// zeros: YAML 1.1 readers (kubectl) take 030 as octal 24, YAML 1.2 readers
// as 30, so such a value is refused rather than guessed.
var decimal = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)

// intValue returns the value of a non-negative integer node written in decimal
// that fits in int64, which is what Kubernetes' int64 fields accept.
func intValue(n *yaml.Node) (int64, bool) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() != yaml.NodeTagInt || !decimal.MatchString(n.Value) {
		return 0, false
	}
	v, err := strconv.ParseInt(n.Value, 10, 64)
	return v, err == nil
}

// isString reports whether the node is a string scalar.
func isString(n *yaml.Node) bool {
	n = resolve(n)
	return n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == yaml.NodeTagString
}

// wantString is what to do with a scalar that is not a string.
func wantString(what string, n *yaml.Node) string {
	n = resolve(n)
	if n != nil && n.Kind == yaml.ScalarNode {
		return fmt.Sprintf("%s: quote it (%s)", what, strconv.Quote(n.Value))
	}
	return what
}

// wantInt is what to do with a value that is not a non-negative integer.
func wantInt(what string, n *yaml.Node) string {
	n = resolve(n)
	if n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == yaml.NodeTagString && decimal.MatchString(strings.TrimSpace(n.Value)) {
		if _, err := strconv.ParseInt(strings.TrimSpace(n.Value), 10, 64); err == nil {
			return what + ": remove the quotes"
		}
	}
	return what
}

// mapping reports a field that is set and is not a mapping, and
// returns the mapping or nil.
func (e *Errors) mapping(n *yaml.Node, p *field.Path, want string) *yaml.Node {
	return e.ofKind(n, p, yaml.MappingNode, want)
}

// list reports a field that is set and is not a list, and returns the list or nil.
func (e *Errors) list(n *yaml.Node, p *field.Path, want string) *yaml.Node {
	return e.ofKind(n, p, yaml.SequenceNode, want)
}

// ofKind reports a field that is set and is not of the kind, and returns
// the node, its alias resolved, or nil.
func (e *Errors) ofKind(n *yaml.Node, p *field.Path, kind yaml.Kind, want string) *yaml.Node {
	n = resolve(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != kind {
		e.add(p, n, want)
		return nil
	}
	return n
}

// stringList reports a field that is set and is not a list of strings.
func (e *Errors) stringList(n *yaml.Node, p *field.Path) {
	seq := e.list(n, p, "a list of strings, such as [/bin/sleep, \"5\"]")
	if seq == nil {
		return
	}
	for i, item := range seq.Content {
		if !isString(item) {
			e.add(p.Index(i), resolve(item), wantString("a string", item))
		}
	}
}

// nonNegative reports a field that is set and is not a non-negative integer.
func (e *Errors) nonNegative(n *yaml.Node, p *field.Path, what string) {
	if isNull(n) {
		return
	}
	if _, ok := intValue(n); ok {
		return
	}
	if pastInt64(n) {
		*e = append(*e, Error{Path: p, Found: describe(n) + ", past the int64 maximum " + int64Max, Want: what, Value: scalar(n)})
		return
	}
	e.add(p, resolve(n), wantInt(what, n))
}
