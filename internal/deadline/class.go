package deadline

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// Class is a kind of node a pod may land on: the labels and taints its
// nodes carry and the deadlines it gives a pod once a node goes away.
type Class struct {
	// Name names the class: a config class, a provider's title, a NodePool.
	Name string
	// Nodes are the input's Nodes of the class, if any.
	Nodes []string
	// Labels are the values each label may take on its nodes.
	Labels map[string][]string
	// Complete is set when Labels are every label of its nodes (a Node
	// of the input); else a label it does not list may be anything.
	Complete bool
	// Every is set for a class that holds every node (the
	// cluster-autoscaler, graceful node shutdown): any pod may land on it.
	Every bool
	// Taints are the taints its nodes carry.
	Taints []config.Taint
	// Deadline is what it gives a regular pod; Critical, where set, a
	// critical one.
	Deadline Deadline
	Critical *Deadline
	// PinOff is a node affinity term that keeps a pod off it, if one is known.
	PinOff string
}

// Taint is a node taint.
type Taint = config.Taint

// Deadline is how long a node gives a pod, what it stands for, where it
// was read, and what raises it (empty when nothing can).
type Deadline struct {
	Seconds int64
	Says    string
	Source  string
	Raise   string
}

// FromConfig are the node classes the config declares, and the class of
// every node that kubelet's graceful node shutdown makes of its shutdown
// settings. The config's provider names are checked by CheckConfig.
func FromConfig(n config.Nodes) []Class {
	facts := Data()
	var out []Class
	for _, c := range n.Classes {
		class := Class{Name: c.Name, Labels: map[string][]string{}, Taints: slices.Clone(c.Taints)}
		if p, ok := facts.Provider(c.Provider); ok {
			class = providerClass(p, facts)
			class.Name = c.Name
			class.Taints = append(class.Taints, c.Taints...)
		}
		for k, v := range c.Labels {
			class.Labels[k] = []string{v}
		}
		if c.Deadline.IsSet() {
			class.Deadline = Deadline{Seconds: config.Seconds(c.Deadline.Value), Says: "the deadline of node class " + c.Name, Source: "spec.nodes.classes[name=" + c.Name + "].deadline"}
			class.Critical = nil
		}
		out = append(out, class)
	}
	if s := n.Shutdown; s.GracePeriod.Value > 0 {
		grace, critical := config.Seconds(s.GracePeriod.Value), config.Seconds(s.CriticalPodsGracePeriod.Value)
		sd := facts.NodeShutdown
		out = append(out, Class{Name: "graceful node shutdown", Every: true,
			Deadline: Deadline{Seconds: max(grace-critical, 0), Says: sd.Says, Source: "spec.nodes.shutdown; " + sourceText(sd.Source), Raise: sd.Raise},
			Critical: &Deadline{Seconds: grace, Says: "kubelet's graceful node shutdown (shutdownGracePeriod, for critical pods)", Source: "spec.nodes.shutdown; " + sourceText(sd.Source), Raise: sd.Raise}})
	}
	return out
}

// CheckConfig checks the config's node classes against the data: each
// provider must be one the data names. It returns config errors naming
// the field, or nil.
func CheckConfig(n config.Nodes) error {
	var errs config.Errors
	names := Data().ProviderNames()
	for i, c := range n.Classes {
		if c.Provider != "" && !slices.Contains(names, c.Provider) {
			errs = append(errs, config.FieldError{Path: fmt.Sprintf("spec.nodes.classes[%d].provider", i),
				Message: fmt.Sprintf("unknown provider %q: use one of %s, or give a deadline", c.Provider, strings.Join(names, ", "))})
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// providerClass is the class a provider's data describes.
func providerClass(p Provider, facts Facts) Class {
	c := Class{Name: p.Title, Labels: map[string][]string{}, PinOff: p.PinOff,
		Deadline: Deadline{Seconds: p.Deadline.Seconds, Says: p.Deadline.Says, Source: sourceText(p.Deadline.Source)}}
	for k, v := range p.NodeLabels.Labels {
		c.Labels[k] = []string{v}
	}
	if p.Taints != nil {
		c.Taints = slices.Clone(p.Taints.Taints)
	}
	if p.Critical != nil {
		c.Critical = &Deadline{Seconds: p.Critical.Seconds, Says: p.Critical.Says, Source: sourceText(p.Critical.Source)}
	}
	return c
}

// sourceText is a fact's source with each key replaced by what it names.
func sourceText(source string) string {
	parts := strings.Split(source, "; ")
	for i, part := range parts {
		key, rest, _ := strings.Cut(part, " ")
		if s, ok := Data().Sources[key]; ok {
			parts[i] = s.String() + " " + rest
		}
	}
	return strings.Join(parts, "; ")
}

// ReadNode is the class of one Node of the input: a provider's, when the
// Node carries its labels (and its providerID, where it has one, starts
// as the provider's); false when it is none.
func ReadNode(node *yaml.RNode) (Class, bool) {
	labels := node.GetLabels()
	providerID := stringAt(node, "spec", "providerID")
	facts := Data()
	for _, p := range facts.Providers {
		if !hasLabels(labels, p.NodeLabels.Labels) || (providerID != "" && !strings.HasPrefix(providerID, p.ProviderID)) {
			continue
		}
		c := providerClass(p, facts)
		c.Nodes, c.Complete, c.Taints = []string{node.GetName()}, true, readTaints(node, "spec", "taints")
		c.Labels = map[string][]string{}
		for k, v := range labels {
			c.Labels[k] = []string{v}
		}
		return c, true
	}
	return Class{}, false
}

// hasLabels reports whether labels hold every key and value of want.
func hasLabels(labels, want map[string]string) bool {
	for k, v := range want {
		if labels[k] != v {
			return false
		}
	}
	return len(want) > 0
}

// IsNodePool reports whether the item is a Karpenter NodePool.
func IsNodePool(item *yaml.RNode) bool {
	np := Data().NodePool
	return item.GetKind() == np.Kind && strings.HasPrefix(item.GetApiVersion(), np.Group+"/")
}

// ReadNodePool reads a Karpenter NodePool: the classes of its nodes, one
// for its terminationGracePeriod and, when its requirements let its
// nodes be spot, one for the spot notice. Its nodes carry its
// template's labels, the values its requirements allow, and its name.
func ReadNodePool(item *yaml.RNode) []Class {
	facts := Data()
	np := facts.NodePool
	labels := map[string][]string{np.NodeLabel: {item.GetName()}}
	if m, err := item.Pipe(yaml.Lookup(path(np.Labels)...)); err == nil && m != nil {
		if fields, err := m.Fields(); err == nil {
			for _, k := range fields {
				labels[k] = []string{stringAt(m, k)}
			}
		}
	}
	spot := false
	if reqs, err := item.Pipe(yaml.Lookup(path(np.Requirements)...)); err == nil && reqs != nil && reqs.YNode().Kind == yaml.SequenceNode {
		for _, r := range reqs.Content() {
			req := yaml.NewRNode(r)
			key, op := stringAt(req, "key"), stringAt(req, "operator")
			values := stringsAt(req, "values")
			if op == "In" {
				labels[key] = values
			}
			if key == np.CapacityType.Key && op == "In" && slices.Contains(values, np.CapacityType.Spot) {
				spot = true
			}
		}
	}
	if v, ok := labels[np.CapacityType.Key]; ok && slices.Contains(v, np.CapacityType.Spot) {
		spot = true
	}
	taints := readTaints(item, path(np.Taints)...)
	name := np.Title + " " + item.GetName()
	var out []Class
	if tgp := stringAt(item, path(np.TerminationGracePeriod)...); tgp != "" {
		if d, err := config.ParseDuration(tgp); err == nil {
			out = append(out, Class{Name: name, Labels: labels, Taints: taints,
				Deadline: Deadline{Seconds: config.Seconds(d), Says: np.Says, Source: strings.ReplaceAll(np.TerminationGracePeriod, "/", ".") + " " + strconv.Quote(tgp) + " of " + name + "; " + sourceText(np.Source), Raise: np.Raise}})
		}
	}
	if p, ok := facts.Provider(np.CapacityType.Provider); ok && spot {
		c := providerClass(p, facts)
		c.Name, c.Labels, c.Taints = name+" ("+p.Title+")", labels, taints
		out = append(out, c)
	}
	return out
}

// ReadAutoscaler is the class of every node the cluster-autoscaler
// scales down, when a container of the pod spec runs it: its
// --max-graceful-termination-sec, or the default.
func ReadAutoscaler(spec *yaml.RNode) (Class, bool) {
	a := Data().Autoscaler
	containers, err := spec.Pipe(yaml.Lookup("containers"))
	if err != nil || containers == nil || containers.YNode().Kind != yaml.SequenceNode {
		return Class{}, false
	}
	for _, n := range containers.Content() {
		c := yaml.NewRNode(n)
		image := stringAt(c, "image")
		repo, _, _ := strings.Cut(image, "@")
		if i := strings.LastIndex(repo, ":"); i > strings.LastIndex(repo, "/") {
			repo = repo[:i]
		}
		if !strings.HasSuffix(repo, a.Image) {
			continue
		}
		seconds, source := a.Default, "no --"+a.Flag+": its default "+strconv.FormatInt(a.Default, 10)+"; "+sourceText(a.Source)
		args := append(stringsAt(c, "command"), stringsAt(c, "args")...)
		for i, arg := range args {
			v, ok := strings.CutPrefix(arg, "--"+a.Flag+"=")
			if !ok && arg == "--"+a.Flag && i+1 < len(args) {
				v, ok = args[i+1], true
			}
			if n, err := strconv.ParseInt(v, 10, 64); ok && err == nil && n >= 0 {
				seconds, source = n, "--"+a.Flag+"="+v+"; "+sourceText(a.Source)
			}
		}
		return Class{Name: a.Title, Every: true,
			Deadline: Deadline{Seconds: seconds, Says: a.Says, Source: source, Raise: a.Raise}}, true
	}
	return Class{}, false
}

// path splits a slash-separated field path.
func path(p string) []string { return strings.Split(p, "/") }

// stringAt is the scalar at the path, or "".
func stringAt(node *yaml.RNode, fields ...string) string {
	n, err := tree.Lookup(node, fields...)
	if err != nil || n == nil || n.YNode().Kind != yaml.ScalarNode {
		return ""
	}
	return yaml.GetValue(n)
}

// stringsAt are the scalars of the sequence at the path.
func stringsAt(node *yaml.RNode, fields ...string) []string {
	n, err := tree.Lookup(node, fields...)
	if err != nil || n == nil || n.YNode().Kind != yaml.SequenceNode {
		return nil
	}
	var out []string
	for _, v := range n.Content() {
		if v.Kind == yaml.ScalarNode {
			out = append(out, v.Value)
		}
	}
	return out
}

// readTaints reads a list of taints at the path.
func readTaints(node *yaml.RNode, fields ...string) []config.Taint {
	n, err := node.Pipe(yaml.Lookup(fields...))
	if err != nil || n == nil || n.YNode().Kind != yaml.SequenceNode {
		return nil
	}
	var out []config.Taint
	for _, t := range n.Content() {
		r := yaml.NewRNode(t)
		out = append(out, config.Taint{Key: stringAt(r, "key"), Value: stringAt(r, "value"), Effect: stringAt(r, "effect")})
	}
	return out
}
