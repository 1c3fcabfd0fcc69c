package preset

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
}

// Injects reports whether the injector sees the pod at admission and does
// not refuse it: one of its webhooks selects the pod's Namespace and
// labels, and none of its refusals holds. An injector with no webhooks in
// its entry is taken to see every pod.
func (in *Injector) Injects(pod Pod, ns Meta, at Target) bool {
	if in == nil {
		return false
	}
	for _, r := range in.Refuses {
		if r.HostNetwork && at.HostNetwork {
			return false
		}
		for _, n := range r.Namespaces {
			if n == at.Namespace && at.Namespace != "" {
				return false
			}
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
