package preset

import (
	"slices"
	"strings"
)

// NamespaceNameLabel is the label Kubernetes sets on every Namespace to its
// name, which webhooks select by.
const NamespaceNameLabel = "kubernetes.io/metadata.name"

// Target is where a pod is admitted: what an injector's webhooks and code
// read besides the pod's labels and annotations.
type Target struct {
	// Namespace is the pod's Namespace's name; empty when the input does not say.
	Namespace string
	// NamespaceKnown says the Namespace is in the input: when it is not,
	// it is taken as Kubernetes creates it, with its name label alone.
	NamespaceKnown bool
	// HostNetwork says the pod uses the node's network.
	HostNetwork bool
	// Containers are the pod's init containers and containers.
	Containers []Container
}

// Container is a container of a pod as injectors read it.
type Container struct {
	Name, Image string
	// Init says it is an init container.
	Init bool
}

// Injects reports whether the injector sees the pod at admission and does
// not refuse it: one of its webhooks selects the pod's Namespace and
// labels, and none of its refusals holds (see refuses). An injector with no webhooks in
// its entry is taken to see every pod.
func (in *Injector) Injects(pod Pod, ns Meta, at Target) bool {
	if in == nil {
		return false
	}
	for _, r := range in.Refuses {
		if refuses(r, pod, ns, at) {
			return false
		}
	}
	if len(in.Webhooks) == 0 {
		return true
	}
	nsLabel := func(key string) (string, bool) {
		if key == NamespaceNameLabel && at.Namespace != "" {
			if v, ok := ns.Labels[key]; ok {
				return v, true
			}
			return at.Namespace, true
		}
		v, ok := ns.Labels[key]
		return v, ok
	}
	for _, w := range in.Webhooks {
		if matches(w.NamespaceSelector, nsLabel) && matches(w.ObjectSelector, pod.TemplateLabel) {
			return true
		}
	}
	return false
}

// ByNamespace reports whether the injector's webhooks leave the pod out by
// their namespace selectors alone: none of its refusals holds, and one of
// its webhooks selects the pod's labels. A verdict on a Namespace the
// input lacks rests then on what was assumed of it.
func (in *Injector) ByNamespace(pod Pod, ns Meta, at Target) bool {
	if in == nil || len(in.Webhooks) == 0 || in.Injects(pod, ns, at) {
		return false
	}
	for _, r := range in.Refuses {
		if refuses(r, pod, ns, at) {
			return false
		}
	}
	for _, w := range in.Webhooks {
		if matches(w.ObjectSelector, pod.TemplateLabel) {
			return true
		}
	}
	return false
}

// matches reports whether labels, read by key, satisfy the selector s, as
// Kubernetes reads one: every matchLabels pair and every expression holds.
func matches(s *SelectorFact, label func(string) (string, bool)) bool {
	if s == nil {
		return true
	}
	for k, want := range s.MatchLabels {
		if v, ok := label(k); !ok || v != want {
			return false
		}
	}
	for _, e := range s.MatchExpressions {
		v, ok := label(e.Key)
		in := false
		for _, x := range e.Values {
			in = in || (ok && v == x)
		}
		var holds bool
		switch e.Operator {
		case "In":
			holds = in
		case "NotIn":
			holds = !in
		case "Exists":
			holds = ok
		case "DoesNotExist":
			holds = !ok
		}
		if !holds {
			return false
		}
	}
	return true
}

// refuses reports whether the refusal r holds for the pod: any one of its
// fields does.
func refuses(r RefusalFact, pod Pod, ns Meta, at Target) bool {
	if r.HostNetwork && at.HostNetwork {
		return true
	}
	if at.Namespace != "" && slices.Contains(r.Namespaces, at.Namespace) {
		return true
	}
	for _, c := range at.Containers {
		names, images := r.Containers, r.Images
		if c.Init {
			names, images = append(slices.Clip(names), r.InitContainers...), append(slices.Clip(images), r.InitImages...)
		}
		if slices.Contains(names, c.Name) || slices.ContainsFunc(images, func(prefix string) bool { return strings.HasPrefix(c.Image, prefix) }) {
			return true
		}
	}
	for k, want := range r.Labels {
		if v, ok := pod.TemplateLabel(k); ok && (want == AnyValue || v == want) {
			return true
		}
	}
	for k, want := range r.Annotations {
		if v, ok := pod.Annotation(k); ok && (want == AnyValue && v != "" || v == want) {
			return true
		}
	}
	if x := r.Invalid; x != nil {
		invalid := func(read func(string) (string, bool)) bool {
			v, ok := read(x.Annotation)
			return ok && v != "" && !slices.Contains(x.Values, v)
		}
		if invalid(pod.Annotation) || x.Namespace && invalid(ns.Annotation) {
			return true
		}
	}
	return false
}

// WillNotInject reports whether the sidecar's injector certainly leaves
// the pod without it, for a sidecar the config names rather than the
// catalog: its code refuses the pod, no switch is set where the injector
// reads one (on the pod, or on a Namespace the input holds), or one is and
// its webhooks leave the pod out for a reason other than a Namespace the
// input lacks.
// Without an injector, or with a switch it may read on an unknown
// Namespace, the config's word stands.
func (p Preset) WillNotInject(pod Pod, ns Meta, at Target) bool {
	if p.Injector == nil {
		return false
	}
	for _, r := range p.Injector.Refuses {
		if refuses(r, pod, ns, at) {
			return true
		}
	}
	if _, _, ok := p.Admitted(pod, ns); ok {
		return !p.Injector.Injects(pod, ns, at) && (at.NamespaceKnown || !p.Injector.ByNamespace(pod, ns, at))
	}
	if at.NamespaceKnown {
		return true
	}
	for _, s := range p.Injector.Enabled {
		if s.Namespace {
			return false
		}
	}
	return true
}
