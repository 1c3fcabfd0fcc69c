package deadline

import (
	"fmt"
	"slices"
	"strings"
)

// Exit is a moment of a pod's shutdown the deadline may cut: a
// container's preStop or exit delay ending, or a load balancer that
// stops sending.
type Exit struct {
	// Who says what ends, such as "the preStop of app".
	Who string
	// At is seconds after termination starts.
	At int64
}

// Shutdown is what a pod's shutdown needs: its grace, when each of its
// containers' preStops and exits end, and whether it has native sidecars
// (which get the sidecar tail when the grace ends).
type Shutdown struct {
	Grace  int64
	Exits  []Exit
	Native bool
}

// Cut is one deadline that ends a pod's shutdown before it is done: the
// classes that give it (the same deadline), the effective grace (the
// smaller of the pod's and the deadline), and what falls after it.
type Cut struct {
	Classes   []Class
	Deadline  Deadline
	Effective int64
	Cut       []Exit
	// Tail is set when native sidecars are still running at Effective.
	Tail bool
}

// Reaching are the deadlines of the classes the pod may land on that are
// shorter than its grace, one per deadline (its classes together), the
// shortest first: each ends the pod's shutdown early.
func Reaching(p Placement, grace int64, classes []Class) []Cut {
	var out []Cut
	for _, c := range classes {
		if !p.CanLand(c) {
			continue
		}
		d := c.Deadline
		if p.Critical && c.Critical != nil {
			d = *c.Critical
		}
		if d.Seconds >= grace {
			continue // the pod's own grace ends it first: the grace-period check says so
		}
		if i := slices.IndexFunc(out, func(x Cut) bool { return x.Deadline == d }); i >= 0 {
			out[i].Classes = append(out[i].Classes, c)
			continue
		}
		out = append(out, Cut{Classes: []Class{c}, Deadline: d, Effective: d.Seconds})
	}
	slices.SortStableFunc(out, func(a, b Cut) int { return int(a.Effective - b.Effective) })
	return out
}

// Cuts are the deadlines that reach the pod (Reaching) and cut its
// shutdown or a load balancer's sending to it (sends): what ends after
// the effective grace.
func Cuts(p Placement, s Shutdown, sends []Exit, classes []Class) []Cut {
	var out []Cut
	for _, c := range Reaching(p, s.Grace, classes) {
		for _, e := range append(slices.Clone(s.Exits), sends...) {
			if e.At > c.Effective {
				c.Cut = append(c.Cut, e)
			}
		}
		if len(c.Cut) > 0 {
			c.Tail = s.Native
			out = append(out, c)
		}
	}
	return out
}

// Message says what the cut is and what to do; the workload is named
// by the result's resource.
func (c Cut) Message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s gives its pods %ds (%s). Its shutdown is cut at %ds: ", c.where(), c.Deadline.Says, c.Deadline.Seconds, c.Deadline.Source, c.Effective)
	cut := slices.Clone(c.Cut)
	slices.SortStableFunc(cut, func(a, b Exit) int { return int(a.At - b.At) })
	for i, e := range cut {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s ends at %ds", e.Who, e.At)
	}
	if c.Tail {
		fmt.Fprintf(&b, "; its native sidecars still running then get SIGTERM and, %ds later, SIGKILL", Data().SidecarTail.Seconds)
	}
	advice := []string{fmt.Sprintf("shorten the drain to end by %ds", c.Effective)}
	if off := c.pinOff(); off != "" {
		advice = append(advice, "keep the workload off these nodes ("+off+")")
	}
	if c.Deadline.Raise != "" {
		advice = append(advice, c.Deadline.Raise)
	}
	fmt.Fprintf(&b, ". %s", upper(strings.Join(advice, ", or ")))
	return b.String()
}

// where says where the pod is held to the deadline.
func (c Cut) where() string {
	if c.Classes[0].Every {
		return "on " + c.Nodes()
	}
	return "may land on " + c.Nodes()
}

// Nodes names the classes and their Nodes: "spot nodes (Node a, b)", or
// "every node (graceful node shutdown)".
func (c Cut) Nodes() string {
	var names, nodes []string
	for _, class := range c.Classes {
		if !slices.Contains(names, class.Name) {
			names = append(names, class.Name)
		}
		nodes = append(nodes, class.Nodes...)
	}
	s := strings.Join(names, " and ") + " nodes"
	if c.Classes[0].Every {
		s = "every node (" + strings.Join(names, " and ") + ")"
	}
	switch {
	case len(nodes) > 3:
		s += fmt.Sprintf(" (Node %s and %d more)", strings.Join(nodes[:3], ", "), len(nodes)-3)
	case len(nodes) > 0:
		s += " (Node " + strings.Join(nodes, ", ") + ")"
	}
	return s
}

// pinOff is a node affinity term that keeps a pod off the classes, or ""
// when none is known or the classes hold every node.
func (c Cut) pinOff() string {
	for _, class := range c.Classes {
		if class.PinOff != "" {
			return "a required node affinity term " + class.PinOff
		}
	}
	return ""
}

// upper is s with its first letter upper-case.
func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
