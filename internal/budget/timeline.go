package budget

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/deadline"
)

// Bar is a stretch of a pod's shutdown: a container's preStop, or a load
// balancer that still sends.
type Bar struct {
	// Row is the container's name, or the load balancer's resources.
	Row string
	// Label says what runs.
	Label string
	// Start and End are seconds after termination starts.
	Start, End int64
	// Unknown is set when the duration cannot be read: End is then Start.
	Unknown bool
	// Breaks is set when the bar is part of a budget break.
	Breaks bool
}

// sends is the label of a load balancer's bar.
const sends = "sends"

// LoadBalancer says whether the bar is a load balancer's, which still
// sends: its Row names the load balancer's resources.
func (b Bar) LoadBalancer() bool { return b.Label == sends }

// Mark is one moment of a pod's shutdown.
type Mark struct {
	// At is seconds after termination starts.
	At int64
	// Text says what happens.
	Text string
	// Breaks is set when the moment is part of a budget break.
	Breaks bool
}

// Step is one container in start-up order.
type Step struct {
	// Name is the container's name.
	Name string
	// Text says how it starts and what the next container waits for.
	Text string
}

// Timeline is one workload's start-up order and shutdown, as kubelet runs
// them: each container is taken to exit when it gets SIGTERM.
type Timeline struct {
	// Name is the workload, "Kind namespace/name".
	Name string
	// Grace is terminationGracePeriodSeconds.
	Grace int64
	// Startup lists the containers in the order kubelet starts them.
	Startup []Step
	// Bars are the stretches of the shutdown, in container order, then the load balancers.
	Bars []Bar
	// Marks are the moments of the shutdown, in time order.
	Marks []Mark
	// Breaks says where the budget does not hold.
	Breaks []string
	// Nodes are the node deadlines that end the shutdown before the
	// grace does, the shortest first (see AddNodeDeadlines).
	Nodes []NodeDeadline
	// Tail is how long the containers still in their preStop, and the
	// native sidecars still running, when the grace period ends get
	// between SIGTERM and SIGKILL (0 when there are none).
	Tail int64
}

// NodeDeadline is a node deadline drawn on a timeline: where it holds,
// when, and whether it cuts the shutdown; Tail is how long the containers
// it cuts and the native sidecars still running then get between SIGTERM
// and SIGKILL (0 when there are none).
type NodeDeadline struct {
	Where string
	At    int64
	Cuts  bool
	Tail  int64
}

// NewTimeline lays out a workload's shutdown: every container in
// spec.containers gets its preStop at t=0 and SIGTERM when it ends; native
// sidecars run their preStops from t=0 too, and get SIGTERM once those have
// exited, the last one first, and their own preStop has ended; the load
// balancers send until their delay ends; the grace period ends with SIGKILL,
// and, where a preStop or a native sidecar is still running then, with the
// tail of kubelet's minimum grace (see markTail).
func NewTimeline(name string, pod Pod, routes []Route) Timeline {
	tl := Timeline{Name: name, Grace: pod.Grace}
	tl.Startup = startup(pod)
	mark := func(at int64, breaks bool, format string, args ...any) {
		tl.Marks = append(tl.Marks, Mark{At: at, Text: fmt.Sprintf(format, args...), Breaks: breaks})
	}
	mark(0, false, "termination starts: the pod leaves the Service endpoints and the load balancers start deregistering it")
	drain := pod.Drain()
	var mainEnd, appEnd int64
	var unplaced []string // containers whose exit cannot be placed
	for _, c := range pod.Containers {
		end := c.stop(0, &tl, mark)
		mainEnd = max(mainEnd, end)
		if !c.Sidecar {
			appEnd = max(appEnd, end)
		}
		if c.PreStop.Present && !c.PreStop.Known {
			unplaced = append(unplaced, c.Name)
		}
		if c.Sidecar && c.PreStop.Known && drain.Container != "" && drain.Seconds > 0 && end <= drain.Seconds {
			tl.Breaks = append(tl.Breaks, fmt.Sprintf("%s leaves at %ds, before the preStop of %s (%ds) ends", c.Name, end, drain.Container, drain.Seconds))
			tl.Marks[len(tl.Marks)-1].Breaks = true
			if c.PreStop.Present {
				tl.Bars[len(tl.Bars)-1].Breaks = true
			}
		}
	}
	for _, in := range pod.Injected {
		mainEnd = max(mainEnd, in.stop(drain, appEnd, len(unplaced) > 0, &tl, mark))
	}
	for _, in := range pod.Injected {
		if in.Native {
			mark(mainEnd, false, "%s (injected): a native sidecar; kubelet stops it once every container has exited", in.Name)
		}
	}
	stopNative(pod, mainEnd, unplaced, &tl, mark)
	for _, r := range routes {
		switch {
		case r.Problem != "":
			mark(0, false, "%s: %s", r.Via, r.Problem)
			continue
		case r.Delay == 0:
			continue
		}
		b := Bar{Row: r.Via, Label: sends, End: r.Delay, Breaks: r.Delay > drain.Seconds && len(drain.Unknown) == 0 && !r.Default}
		tl.Bars = append(tl.Bars, b)
		mark(r.Delay, b.Breaks, "%s stops sending (%s)", r.Via, r.Source)
		if b.Breaks {
			tl.Breaks = append(tl.Breaks, fmt.Sprintf("%s sends for %ds, %ds after the application's drain (%ds) ends", r.Via, r.Delay, r.Delay-drain.Seconds, drain.Seconds))
		}
	}
	// late: a preStop ends at or after the grace (a native sidecar still
	// running then waits for one), so kubelet's minimum grace follows it.
	late := false
	for i := range tl.Bars {
		b := &tl.Bars[i]
		if b.LoadBalancer() {
			continue
		}
		late = late || pod.Grace > 0 && !b.Unknown && b.End >= pod.Grace
		if b.End > pod.Grace {
			b.Breaks = true
			tl.Breaks = append(tl.Breaks, fmt.Sprintf("%s of %s runs to %ds, past the grace period (%ds): kubelet kills it at %ds", b.Label, b.Row, b.End, pod.Grace, pod.Grace))
		}
	}
	if late {
		mark(pod.Grace, false, "the grace period ends: SIGKILL to every container that got SIGTERM before it and still runs")
		tl.Tail = tl.markTail(pod.Grace, "grace period")
	} else {
		mark(pod.Grace, false, "the grace period ends: SIGKILL to every container still running")
	}
	sort.SliceStable(tl.Marks, func(i, j int) bool { return tl.Marks[i].At < tl.Marks[j].At })
	return tl
}

// markTail marks what kubelet's killContainer does when a grace ends at
// the moment at: a container still in its preStop, and a native sidecar
// still waiting for its turn, gets SIGTERM with what is left of the grace
// raised to kubelet's minimum (2 s), then SIGKILL (the sidecar tail of
// KEP-753). who names the grace; markTail returns the tail's length.
func (tl *Timeline) markTail(at int64, who string) int64 {
	tail := deadline.Data().SidecarTail.Seconds
	tl.Marks = append(tl.Marks,
		Mark{At: at, Text: fmt.Sprintf("%s: every container still in its preStop, and every native sidecar still running, gets SIGTERM with kubelet's %ds minimum grace", who, tail)},
		Mark{At: at + tail, Text: who + ": SIGKILL to every container still running"})
	return tail
}

// stopNative lays out the native sidecars' shutdown as kubelet's
// killContainer runs it: each one's preStop starts with the termination,
// alongside the containers'; its SIGTERM comes at the later of its
// preStop's end and its turn: every container has exited (at mainEnd) and
// the native sidecars after it in the init list have left. Where a
// container's exit cannot be placed (a preStop of unknown duration), the
// sidecars' SIGTERMs are said to wait for it, and not placed.
func stopNative(pod Pod, mainEnd int64, unplaced []string, tl *Timeline, mark func(int64, bool, string, ...any)) {
	var native []Container
	for i := len(pod.Init) - 1; i >= 0; i-- {
		if pod.Init[i].Native {
			native = append(native, pod.Init[i])
		}
	}
	if len(native) == 0 {
		return
	}
	blocked := "" // what the sidecars' turns wait for, where it cannot be placed
	if len(unplaced) > 0 {
		who, has := unplaced[0], "has"
		if len(unplaced) > 1 {
			who, has = strings.Join(unplaced[:len(unplaced)-1], ", ")+" and "+unplaced[len(unplaced)-1], "have"
		}
		blocked = fmt.Sprintf("%s %s exited", who, has)
		mark(mainEnd, false, "kubelet stops the native sidecars, the last one first, once %s, which cannot be placed", blocked)
	} else {
		mark(mainEnd, false, "every container has exited: kubelet stops the native sidecars, the last one first")
	}
	turn, group := mainEnd, blocked != ""
	for _, c := range native {
		turn = c.stopNative(turn, blocked, group, tl, mark)
		if blocked == "" && c.PreStop.Present && !c.PreStop.Known {
			blocked = c.Name + " has exited"
		}
	}
}

// stopNative lays out one native sidecar's preStop, from 0, and its
// SIGTERM at the later of the preStop's end and turn, and returns when it
// leaves; blocked says what its turn waits for where that cannot be
// placed: its SIGTERM is then not placed, and where that holds for the
// whole group (one mark says so), a sidecar without a preStop gets no mark.
func (c Container) stopNative(turn int64, blocked string, group bool, tl *Timeline, mark func(int64, bool, string, ...any)) int64 {
	who := c.Name + " (sidecar)"
	end := turn
	switch {
	case !c.PreStop.Present:
	case !c.PreStop.Known:
		tl.Bars = append(tl.Bars, Bar{Row: c.Name, Label: "preStop", Unknown: true})
		mark(0, false, "%s: preStop starts with the termination; its duration cannot be read (%s), so its SIGTERM is not placed", who, c.PreStop.Form)
		return turn
	default:
		tl.Bars = append(tl.Bars, Bar{Row: c.Name, Label: "preStop", End: c.PreStop.Seconds})
		mark(0, false, "%s: preStop starts with the termination (%ds, %s); its SIGTERM waits for its turn too", who, c.PreStop.Seconds, c.PreStop.Form)
		end = max(turn, c.PreStop.Seconds)
	}
	switch {
	case blocked != "" && c.PreStop.Present:
		mark(c.PreStop.Seconds, false, "%s: preStop ends; SIGTERM once %s, which cannot be placed", who, blocked)
	case blocked != "" && !group:
		mark(turn, false, "%s: stopped once %s, which cannot be placed", who, blocked)
	case blocked != "":
	case !c.PreStop.Present:
		mark(turn, false, "%s: no preStop; SIGTERM, it leaves", who)
	case c.PreStop.Seconds >= turn:
		mark(end, false, "%s: preStop ends; SIGTERM, it leaves", who)
	default:
		mark(c.PreStop.Seconds, false, "%s: preStop ends; its SIGTERM waits for its turn", who)
		mark(turn, false, "%s: its turn; SIGTERM, it leaves", who)
	}
	return end
}

// stop lays out one container's preStop and SIGTERM from start, and returns
// when it leaves.
func (c Container) stop(start int64, tl *Timeline, mark func(int64, bool, string, ...any)) int64 {
	who, leaves := c.Name, ""
	if c.Sidecar {
		who, leaves = c.Name+" (sidecar)", ", it leaves"
	}
	switch {
	case !c.PreStop.Present:
		mark(start, false, "%s: no preStop; SIGTERM%s", who, leaves)
		return start
	case !c.PreStop.Known:
		tl.Bars = append(tl.Bars, Bar{Row: c.Name, Label: "preStop", Start: start, End: start, Unknown: true})
		mark(start, false, "%s: preStop starts; its duration cannot be read (%s), so its SIGTERM is not placed", who, c.PreStop.Form)
		return start
	}
	end := start + c.PreStop.Seconds
	tl.Bars = append(tl.Bars, Bar{Row: c.Name, Label: "preStop", Start: start, End: end})
	mark(start, false, "%s: preStop starts (%ds, %s)", who, c.PreStop.Seconds, c.PreStop.Form)
	mark(end, false, "%s: preStop ends; SIGTERM%s", who, leaves)
	return end
}

// startup lists the containers in the order kubelet starts them: the
// injected sidecars first, where their injectors put them.
func startup(pod Pod) []Step {
	var out []Step
	for _, in := range pod.Injected {
		out = append(out, Step{in.Name + " (injected)", in.Start})
	}
	for _, c := range pod.Init {
		switch {
		case c.Native && c.StartupProbe:
			out = append(out, Step{c.Name, "native sidecar: the next container starts once its startupProbe passes"})
		case c.Native:
			out = append(out, Step{c.Name, "native sidecar without a startupProbe: the next container starts as soon as it runs"})
		default:
			out = append(out, Step{c.Name, "init container: runs to completion before the next starts"})
		}
	}
	for _, c := range pod.Containers {
		switch {
		case len(c.PostStart) > 0:
			out = append(out, Step{c.Name, fmt.Sprintf("postStart %q holds the next container until it returns", strings.Join(c.PostStart, " "))})
		case c.Sidecar:
			out = append(out, Step{c.Name, "sidecar without a postStart: the next container starts without waiting for it"})
		default:
			out = append(out, Step{c.Name, "container"})
		}
	}
	return out
}

// Shutdown is what the pod's shutdown needs, as its timeline lays it
// out: the end of every preStop and exit delay whose duration reads,
// which a node deadline may cut.
func (p Pod) Shutdown() deadline.Shutdown {
	s := deadline.Shutdown{Grace: p.Grace}
	for _, b := range NewTimeline("", p, nil).Bars {
		if !b.Unknown && b.End > 0 {
			s.Exits = append(s.Exits, deadline.Exit{Who: "the " + b.Label + " of " + b.Row, At: b.End})
		}
	}
	for _, c := range p.Init {
		s.Native = s.Native || c.Native
	}
	for _, in := range p.Injected {
		s.Native = s.Native || in.Native
	}
	return s
}

// AddNodeDeadlines draws the node deadlines that reach the pod (see
// deadline.Reaching) on its timeline: where the grace then ends, every
// container still in its preStop, and every native sidecar still running,
// gets SIGTERM with kubelet's minimum grace (the sidecar tail, KEP-753),
// then SIGKILL; what ends after the deadline is a break.
func (tl *Timeline) AddNodeDeadlines(pod Pod, sends []deadline.Exit, reaching []deadline.Cut) {
	s := pod.Shutdown()
	for _, r := range reaching {
		nd := NodeDeadline{Where: r.Nodes(), At: r.Effective}
		var cut []string
		for _, e := range append(slices.Clone(s.Exits), sends...) {
			if e.At > r.Effective {
				cut = append(cut, fmt.Sprintf("%s (%ds)", e.Who, e.At))
			}
		}
		nd.Cuts = len(cut) > 0
		tl.Marks = append(tl.Marks, Mark{At: r.Effective, Breaks: nd.Cuts,
			Text: fmt.Sprintf("node deadline of %s: %s (%ds): the grace ends", r.Nodes(), r.Deadline.Says, r.Deadline.Seconds)})
		if nd.Cuts || s.Native {
			nd.Tail = tl.markTail(r.Effective, "node deadline")
		}
		if nd.Cuts {
			tl.Breaks = append(tl.Breaks, fmt.Sprintf("the node deadline of %s (%ds) cuts %s", r.Nodes(), r.Effective, strings.Join(cut, ", ")))
		}
		tl.Nodes = append(tl.Nodes, nd)
	}
	sort.SliceStable(tl.Marks, func(i, j int) bool { return tl.Marks[i].At < tl.Marks[j].At })
}
