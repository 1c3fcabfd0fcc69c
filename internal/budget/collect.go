package budget

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kptdev/krm-functions-sdk/go/fn"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/deadline"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// Fact is what the budget keeps of one item: at most one field is set.
type Fact struct {
	// Workload is a workload the function handles.
	Workload *Workload
	// Ingress is an Ingress.
	Ingress *Ingress
	// Service is a Service.
	Service *Service
	// Referenced is an object whose field holds a Service's delay.
	Referenced *Referenced
	// Classes are node classes an item makes: a Karpenter NodePool's,
	// or the cluster-autoscaler's (beside its Workload).
	Classes []deadline.Class
}

// Workload is what the budget keeps of a workload, as the function writes it.
type Workload struct {
	Ref
	// Labels are its pod template's labels. The Collector keeps them
	// packed (see Collector.Add) and drops the map.
	Labels map[string]string
	// labels are Labels packed: each key and value followed by a zero
	// byte, keys sorted.
	labels string
	// Drain is its application's drain.
	Drain Drain
	// Sidecars are its sidecars in spec.containers (ordered mode).
	Sidecars []string
	// Placement is where its pods may land; Shutdown what their
	// shutdown needs, which node deadlines may cut.
	Placement deadline.Placement
	Shutdown  deadline.Shutdown
	// GraceField is the path of its terminationGracePeriodSeconds, which
	// a node deadline's finding names.
	GraceField string
}

// Route is a load balancer that sends to a workload, and how long it keeps
// sending once the pod is terminating.
type Route struct {
	// Via names the load balancer's resources, such as "Ingress shop/web → Service shop/web".
	Via string
	// Owner is the Ingress or Service whose setting the delay is.
	Owner Ref
	// Delay is the deregistration delay or draining timeout, in seconds.
	Delay int64
	// Source says where the delay comes from.
	Source string
	// Default is set when the delay is the load balancer's default, not
	// set in the input; Setting names the setting that would set it.
	Default bool
	Setting string
	// Problem says why the delay cannot be read; Delay is then not valid.
	Problem string
}

// Collector gathers facts as the items stream past and resolves them at
// the end. It keeps small facts, never the items: of a workload, its
// labels in one string, not a map (a map of two labels and its strings
// took about 450 bytes, kept for every workload of the list).
type Collector struct {
	workloads []*Workload
	ingresses []*Ingress
	services  []*Service
	configs   map[[3]string]*Referenced
	classes   []deadline.Class
}

// AddClasses keeps node classes: the config's, the input's Nodes'.
func (c *Collector) AddClasses(classes ...deadline.Class) {
	c.classes = append(c.classes, classes...)
}

// Classes are the node classes kept, in the order they were added.
func (c *Collector) Classes() []deadline.Class { return c.classes }

// Add keeps an item's fact.
func (c *Collector) Add(f Fact) {
	c.classes = append(c.classes, f.Classes...)
	switch {
	case f.Workload != nil:
		if packed, ok := packLabels(f.Workload.Labels); ok {
			f.Workload.labels, f.Workload.Labels = packed, nil
		}
		c.workloads = append(c.workloads, f.Workload)
	case f.Ingress != nil:
		c.ingresses = append(c.ingresses, f.Ingress)
	case f.Service != nil:
		c.services = append(c.services, f.Service)
	case f.Referenced != nil:
		if c.configs == nil {
			c.configs = map[[3]string]*Referenced{}
		}
		c.configs[[3]string{f.Referenced.Controller.Name, f.Referenced.namespace(), f.Referenced.Resource.Name}] = f.Referenced
	}
}

// Routed is a route to one workload.
type Routed struct {
	Route
	// Workload is where the route sends.
	Workload *Workload
}

// Routes resolves every load balancer in the input to the workloads it
// sends to: Ingress → backend Service (same namespace) → selector → pod
// template labels, and a Service's own load balancer settings. The order
// follows the input.
func (c *Collector) Routes() []Routed {
	var out []Routed
	services := map[[2]string]*Service{}
	for _, s := range c.services {
		services[[2]string{s.namespace(), s.Resource.Name}] = s
	}
	byNamespace := map[string][]*Workload{}
	for _, w := range c.workloads {
		byNamespace[w.namespace()] = append(byNamespace[w.namespace()], w)
	}
	for _, in := range c.ingresses {
		if in.Controller == nil {
			continue
		}
		for _, name := range in.Services {
			s := services[[2]string{in.namespace(), name}]
			if s == nil {
				continue
			}
			r := ingressRoute(in, s)
			for _, w := range selected(s, byNamespace[s.namespace()]) {
				out = append(out, Routed{Route: r, Workload: w})
			}
		}
	}
	for _, s := range c.services {
		for _, r := range c.serviceRoutes(s) {
			for _, w := range selected(s, byNamespace[s.namespace()]) {
				out = append(out, Routed{Route: r, Workload: w})
			}
		}
	}
	return out
}

// ingressRoute is the delay of an Ingress's load balancer for a Service:
// the Service's attribute takes precedence over the Ingress's.
func ingressRoute(in *Ingress, s *Service) Route {
	c := in.Controller
	r := Route{Via: in.String() + " → " + s.String(), Owner: in.Ref}
	a, on := in.Attributes, in.String()
	if o, ok := s.Overrides[c.Name]; ok {
		a, on, r.Owner = o, s.String(), s.Ref
	}
	return attributeRoute(r, a, c, c.Attributes.Ingress.Annotation+" on "+on)
}

// attributeRoute is a route whose delay is the controller's attribute a,
// read in source, or its default.
func attributeRoute(r Route, a Attribute, c *Controller, source string) Route {
	delay := c.Attributes.Delay
	r.Setting = delay.Attribute
	switch {
	case a.Known:
		r.Delay, r.Source = a.Seconds, delay.Attribute+" in "+source
	case a.Problem != "":
		r.Problem, r.Source = a.Problem, source
	default:
		r.Delay, r.Default, r.Source = delay.Default, true, delay.Says
	}
	return r
}

// serviceRoutes are a Service's own load balancers: one a controller
// makes of it, and the objects it names for its delay that are in the input.
func (c *Collector) serviceRoutes(s *Service) []Route {
	var out []Route
	if ctl := s.Controller; ctl != nil {
		out = append(out, attributeRoute(Route{Via: s.String(), Owner: s.Ref}, s.Attributes, ctl, ctl.Attributes.Service.Annotation+" on "+s.String()))
	}
	ref := s.ReferencedBy
	if ref == nil {
		return out
	}
	if s.Problem != "" {
		out = append(out, Route{Via: s.String(), Owner: s.Ref, Problem: s.Problem, Source: ref.Reference.ServiceAnnotations.Keys[0]})
	}
	for _, name := range s.Referenced {
		b := c.configs[[3]string{ref.Name, s.namespace(), name}]
		if b == nil {
			continue
		}
		r := Route{Via: s.String() + " → " + b.String(), Owner: s.Ref, Delay: b.Seconds,
			Source: ref.Reference.Object.Field + " of " + b.String(), Problem: b.Problem}
		out = append(out, r)
	}
	return out
}

// selected are the workloads, of the Service's namespace, whose pod labels
// match its selector.
func selected(s *Service, workloads []*Workload) []*Workload {
	if len(s.Selector) == 0 {
		return nil
	}
	var out []*Workload
	for _, w := range workloads {
		if w.matches(s.Selector) {
			out = append(out, w)
		}
	}
	return out
}

// matches reports whether the workload's labels hold every key and value
// of the selector.
func (w *Workload) matches(selector map[string]string) bool {
	for k, v := range selector {
		if got, ok := w.label(k); !ok || got != v {
			return false
		}
	}
	return true
}

// label is the value of a label of the workload, packed or not.
func (w *Workload) label(key string) (string, bool) {
	if w.Labels != nil {
		v, ok := w.Labels[key]
		return v, ok
	}
	for rest := w.labels; rest != ""; {
		k, v, tail := unpackPair(rest)
		if k == key {
			return v, true
		}
		rest = tail
	}
	return "", false
}

// packLabels packs labels into one string, each key and value followed by
// a zero byte, keys sorted; false when a key or value holds a zero byte
// itself, and the map is kept.
func packLabels(labels map[string]string) (string, bool) {
	keys := slices.Sorted(maps.Keys(labels))
	var b strings.Builder
	for _, k := range keys {
		v := labels[k]
		if strings.IndexByte(k, 0) >= 0 || strings.IndexByte(v, 0) >= 0 {
			return "", false
		}
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(v)
		b.WriteByte(0)
	}
	return b.String(), true
}

// unpackPair reads the first key and value of packed labels and returns
// the rest.
func unpackPair(packed string) (key, value, rest string) {
	key, rest, _ = strings.Cut(packed, "\x00")
	value, rest, _ = strings.Cut(rest, "\x00")
	return key, value, rest
}

// Results checks every route against its workload's drain: a delay longer
// than the drain is a break (a warning, an error with action validate)
// that names the load balancer's resource, the delay and the drain. A
// delay that is the load balancer's default, and a delay or drain the
// function cannot read, are info results.
func (c *Collector) Results(action config.Action) fn.Results {
	var out fn.Results
	for _, w := range c.workloads {
		if len(w.Sidecars) > 0 && len(w.Drain.Unknown) > 0 {
			u := w.Drain.Unknown[0]
			out = append(out, closing(fn.Info, nil, "%s: the preStop of %s has a duration the function cannot read (%s): whether %s outlives it is not checked",
				w, u.Name, u.PreStop.Form, strings.Join(w.Sidecars, " and ")))
		}
	}
	routes := c.Routes()
	for _, r := range routes {
		if res := r.check(action); res != nil {
			out = append(out, res)
		}
	}
	return append(out, c.deadlineResults(routes, action)...)
}

// deadlineResults are the node-deadline findings: for each workload, each
// deadline of the node classes it may land on that cuts its shutdown or a
// load balancer's sending to it.
func (c *Collector) deadlineResults(routes []Routed, action config.Action) fn.Results {
	if len(c.classes) == 0 {
		return nil
	}
	var out fn.Results
	for _, w := range c.workloads {
		for _, cut := range deadline.Cuts(w.Placement, w.Shutdown, Sends(w, routes), c.classes) {
			f := report.NewFinding(report.KindNodeDeadline, Severity(action), report.Field{Path: w.GraceField, Current: w.Shutdown.Grace}, "%s", cut.Message())
			out = append(out, report.Result(f, w.Resource, w.File))
		}
	}
	return out
}

// Sends are the moments the load balancers that route to the workload
// stop sending to it.
func Sends(w *Workload, routes []Routed) []deadline.Exit {
	var out []deadline.Exit
	for _, r := range routes {
		if r.Workload == w && r.Problem == "" && r.Delay > 0 {
			out = append(out, deadline.Exit{Who: r.Via + " stops sending (" + r.Source + ")", At: r.Delay})
		}
	}
	return out
}

// check is the result of one route, or nil when the budget holds.
func (r Routed) check(action config.Action) *fn.Result {
	d := r.Workload.Drain
	drain := "the drain of " + r.Workload.String() + " (" + d.describe() + ")"
	switch {
	case r.Problem != "":
		return closing(fn.Info, nil, "%s: %s: the deregistration delay towards %s is not checked", r.Via, r.Problem, r.Workload)
	case r.Delay <= d.Seconds:
		return nil
	case len(d.Unknown) > 0:
		return closing(fn.Info, nil, "%s keeps sending to %s for %ds (%s); not checked: the preStop of %s has a duration the function cannot read (%s)",
			r.Via, r.Workload, r.Delay, r.Source, d.Unknown[0].Name, d.Unknown[0].PreStop.Form)
	case r.Default:
		return closing(fn.Info, nil, "%s sets no %s: %s of %ds is longer than %s; set it to %d or less, or make the application drain longer",
			r.Via, r.Setting, r.Source, r.Delay, drain, d.Seconds)
	}
	return closing(Severity(action), &r.Owner, "%s keeps sending to %s for %ds (%s), %ds after %s ends: lower the delay to %ds or less, or make the application drain longer",
		r.Via, r.Workload, r.Delay, r.Source, r.Delay-d.Seconds, drain, d.Seconds)
}

// closing is a termination-budget finding across items, about the
// resource at (nil: about none) and named by no field.
func closing(sev fn.Severity, at *Ref, format string, args ...any) *fn.Result {
	f := report.NewFinding(report.KindBudget, sev, report.Field{}, format, args...)
	if at == nil {
		return report.Result(f, nil, nil)
	}
	return report.Result(f, at.Resource, at.File)
}

// describe says what the drain is.
func (d Drain) describe() string {
	if d.Container == "" {
		return "no preStop, 0s"
	}
	return fmt.Sprintf("preStop of %s, %ds", d.Container, d.Seconds)
}
