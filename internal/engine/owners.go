package engine

import (
	"fmt"
	"strings"

	"github.com/kptdev/krm-functions-sdk/go/fn"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/item"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/owner"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// owners gathers, in the order Add counts them, the workloads of the input
// and those left to their controllers, and closes with one note per
// controller. It keeps names, never the items.
type owners struct {
	// present are the workloads of the input, by owner.Ref.Key.
	present map[string]*item.Member
	// left are the workloads left to their controllers, in input order.
	left []*item.Member
}

// add keeps a workload's member; nil is ignored.
func (o *owners) add(m *item.Member) {
	if m == nil {
		return
	}
	if o.present == nil {
		o.present = map[string]*item.Member{}
	}
	if _, seen := o.present[m.Self.Key()]; !seen {
		o.present[m.Self.Key()] = m
	}
	if m.Left {
		o.left = append(o.left, m)
	}
}

// maxOwnerDepth bounds the walk up a chain of controllers: Kubernetes
// chains are two deep (Deployment, ReplicaSet, Pod), and a cycle of
// ownerReferences must not loop.
const maxOwnerDepth = 8

// top is where the fix for a workload left to controller c goes: the
// first controller up the chain that is in the input with no controller
// of its own, or the first that is not in the input (found is false).
func (o *owners) top(c owner.Ref) (ref owner.Ref, at *item.Member, found bool) {
	for range maxOwnerDepth {
		m := o.present[c.Key()]
		if m == nil {
			return c, nil, false
		}
		if m.Controller == nil || !m.Left {
			return c, m, true
		}
		c = *m.Controller
	}
	return c, o.present[c.Key()], o.present[c.Key()] != nil
}

// note is the closing note of one controller: the workloads left to it.
type note struct {
	top   owner.Ref
	at    *item.Member
	found bool
	first *item.Member
	count int
}

// results are the closing notes, one per controller where a fix goes, in
// the order of the first workload left to it. A controller in the input
// gets an info result: it is checked itself. One that is not in the input
// gets a warning when it is a kind of workload the function checks (the
// input misses it, so its workloads went unchecked), else an info result
// (a Node's static pods, a custom controller's pods).
func (o *owners) results(extra []config.PodSpecPath) fn.Results {
	var notes []*note
	byTop := map[string]*note{}
	for _, m := range o.left {
		top, at, found := o.top(*m.Controller)
		n := byTop[top.Key()]
		if n == nil {
			n = &note{top: top, at: at, found: found, first: m}
			byTop[top.Key()] = n
			notes = append(notes, n)
		}
		n.count++
	}
	out := make(fn.Results, 0, len(notes))
	for _, n := range notes {
		out = append(out, n.result(extra))
	}
	return out
}

// result is the note's result. It names the controller in its message and
// has no resourceRef: an info result with one says what changed.
func (n *note) result(extra []config.PodSpecPath) *fn.Result {
	what, which, own, those := n.first.Self.String(), "which is", "its", "it is"
	if n.count > 1 {
		what += " and " + plural(n.count-1, "more object")
		which, own, those = "which are", "their", "they are"
	}
	left := fmt.Sprintf("%s not edited or checked on %s own (the API server refuses edits to a Pod's containers or a Job's template, and a controller rewrites what it owns)", which, own)
	switch {
	case n.found:
		return controlled(fn.Info, n.at.File,
			"%s controls %s in the input, %s: the fix goes in %s, which is checked itself", n.top, what, left, n.top)
	case workload.IsKind(n.top.APIVersion, n.top.Kind, extra):
		return controlled(fn.Warning, n.first.File,
			"%s controls %s in the input but is not in it, so %s not checked: a controller's objects are checked through it; add it to the input (kubectl get %ss)",
			n.top, what, those, strings.ToLower(n.top.Kind))
	}
	return controlled(fn.Info, n.first.File,
		"%s controls %s in the input, %s, and %s is not a kind of workload the function checks: the fix goes wherever %s takes %s pod spec from",
		n.top, what, left, report.Name(n.top.Kind), n.top, own)
}

// controlled is a note about objects left to their controller, in the
// file of the object it names; no resourceRef (see note.result).
func controlled(sev fn.Severity, file *fn.File, format string, args ...any) *fn.Result {
	return report.Result(report.NewFinding(report.KindController, sev, report.Field{}, format, args...), nil, file)
}
