// Package native converts sidecars into Kubernetes native sidecars: init
// containers with restartPolicy Always and a startupProbe, placed after the
// mesh's own init containers and before the user's.
package native

import (
	"encoding/json"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/hook"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/podspec"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
)

// Sidecar is one sidecar to convert.
type Sidecar struct {
	// Name is the container name.
	Name string
	// StartupProbe, when set, is the config's probe and replaces any other.
	StartupProbe *corev1.Probe
	// DefaultProbe is the preset's probe, used when the container has none.
	DefaultProbe *corev1.Probe
	// WaitCommand is the ordered-mode wait; a postStart running its program is removed.
	WaitCommand []string
	// PreStop is the preStop exec the mesh's injector gives its native
	// sidecar (Istio's drain); a preStop running the same program with the
	// same last argument is taken as this one and updated.
	PreStop []string
}

// Convert moves the sidecars into spec.initContainers with restartPolicy
// Always and puts the init containers in the order the meshes' injectors
// write them: the mesh's init containers, then the sidecars in the given
// order, then the others, each group in its relative order. Each gets a startupProbe (the config's, the container's own,
// the preset's, or one made from its readinessProbe); a wait postStart and a
// sleep preStop written for ordered mode are removed, because kubelet orders
// start and shutdown of native sidecars itself.
type Convert struct {
	// Sidecars are the sidecars in start order.
	Sidecars []Sidecar
	// MeshInit names the mesh init containers that run before the sidecars.
	MeshInit []string
	// ReplaceHooks removes the sidecars' other postStart and preStop hooks too
	// (existingHooks: replace), as ordered mode would have replaced them.
	ReplaceHooks bool
	// Log receives what changed.
	Log *report.Log
}

var _ kio.Filter = Convert{}

// Filter applies the conversion to each pod spec node.
func (f Convert) Filter(specs []*yaml.RNode) ([]*yaml.RNode, error) {
	return kio.FilterAll(yaml.FilterFunc(f.filter)).Filter(specs)
}

func (f Convert) filter(spec *yaml.RNode) (*yaml.RNode, error) {
	before := podspec.Names(spec, podspec.InitContainers)
	var moved []*yaml.Node
	movedIn := map[string]bool{}
	for _, sc := range f.Sidecars {
		c := take(spec, podspec.Containers, sc.Name)
		if c != nil {
			f.Log.Change(report.Container(podspec.InitContainers, sc.Name), "moved %s to initContainers as a native sidecar", sc.Name)
			movedIn[sc.Name] = true
		} else if c = take(spec, podspec.InitContainers, sc.Name); c == nil {
			continue
		}
		moved = append(moved, c)
		if err := f.native(yaml.NewRNode(c), sc); err != nil {
			return nil, err
		}
	}
	if len(moved) == 0 {
		return spec, nil
	}
	if err := f.place(spec, moved); err != nil {
		return nil, err
	}
	var after []string
	for _, n := range podspec.Names(spec, podspec.InitContainers) {
		if !movedIn[n] {
			after = append(after, n)
		}
	}
	if strings.Join(after, ",") != strings.Join(before, ",") {
		order := podspec.Names(spec, podspec.InitContainers)
		f.Log.Change(report.Pod(podspec.InitContainers).Values(before, order), "put initContainers in the mesh's order: %s", strings.Join(order, ", "))
	}
	return spec, nil
}

// take removes the named container from the list and returns it, or nil.
func take(spec *yaml.RNode, field, name string) *yaml.Node {
	seq := podspec.List(spec, field)
	if seq == nil {
		return nil
	}
	content := seq.YNode().Content
	for i, c := range content {
		if podspec.Name(c) == name {
			seq.YNode().Content = append(content[:i:i], content[i+1:]...)
			return c
		}
	}
	return nil
}

// place puts the init containers in order: the mesh's, the sidecars, the
// others. It creates the list before containers when absent.
func (f Convert) place(spec *yaml.RNode, sidecars []*yaml.Node) error {
	seq := podspec.List(spec, podspec.InitContainers)
	if seq == nil {
		seq = yaml.NewListRNode()
		var err error
		if spec.Field(podspec.InitContainers) != nil { // initContainers: null
			// SetField copies into the existing node: use that one.
			err = spec.PipeE(yaml.SetField(podspec.InitContainers, seq))
			seq = podspec.List(spec, podspec.InitContainers)
		} else {
			err = tree.InsertBefore(spec, podspec.InitContainers, seq, podspec.Containers)
		}
		if err != nil {
			return err
		}
	}
	mesh := map[string]bool{}
	for _, n := range f.MeshInit {
		mesh[n] = true
	}
	var first, rest []*yaml.Node
	for _, c := range seq.YNode().Content {
		if mesh[podspec.Name(c)] {
			first = append(first, c)
		} else {
			rest = append(rest, c)
		}
	}
	seq.YNode().Content = append(append(first, sidecars...), rest...)
	return nil
}

// current is the value of a scalar field for a finding, or nil when it is
// absent.
func current(field *yaml.MapNode) any {
	if field == nil {
		return nil
	}
	return yaml.GetValue(field.Value)
}

// native makes the container a native sidecar. One that is native
// already keeps the hooks it has: its injector wrote them (Istio's
// pilot-agent wait under holdApplicationUntilProxyStarts, Linkerd's
// linkerd-await, a preStop of the pod's own).
func (f Convert) native(c *yaml.RNode, sc Sidecar) error {
	cur := c.Field("restartPolicy")
	wasNative := cur != nil && yaml.GetValue(cur.Value) == "Always"
	if !wasNative {
		if err := c.PipeE(yaml.SetField("restartPolicy", yaml.NewScalarRNode("Always"))); err != nil {
			return err
		}
		f.Log.Change(report.Container(podspec.InitContainers, sc.Name, "restartPolicy").Values(current(cur), "Always"), "set restartPolicy Always on %s", sc.Name)
	}
	// A native sidecar with its mesh's own native preStop is the injector's
	// output: a startupProbe it did not write has no endpoint to pass (Istio
	// writes none when the status server is off).
	if !wasNative || !meshPreStop(c, sc) {
		if err := f.startupProbe(c, sc); err != nil {
			return err
		}
	}
	if wasNative {
		return f.preStop(c, sc)
	}
	if cmd, ok := hook.Exec(c, hook.PostStart); ok && len(sc.WaitCommand) > 0 && len(cmd) > 0 && cmd[0] == sc.WaitCommand[0] {
		if err := hook.Remove(c, hook.PostStart); err != nil {
			return err
		}
		f.Log.Change(report.Container(podspec.InitContainers, sc.Name, "lifecycle", hook.PostStart), "removed the postStart wait of %s (kubelet waits on its startupProbe)", sc.Name)
	}
	if _, ok := hook.SleepSeconds(c, hook.PreStop); ok {
		if err := hook.Remove(c, hook.PreStop); err != nil {
			return err
		}
		f.Log.Change(report.Container(podspec.InitContainers, sc.Name, "lifecycle", hook.PreStop), "removed the preStop sleep of %s (kubelet stops native sidecars after the application)", sc.Name)
	}
	if f.ReplaceHooks {
		for _, name := range []string{hook.PostStart, hook.PreStop} {
			if hook.Get(c, name) == nil || (name == hook.PreStop && meshPreStop(c, sc)) {
				continue
			}
			if err := hook.Remove(c, name); err != nil {
				return err
			}
			f.Log.Change(report.Container(podspec.InitContainers, sc.Name, "lifecycle", name), "removed the %s hook of %s (existingHooks: replace)", name, sc.Name)
		}
	}
	return f.preStop(c, sc)
}

// preStop writes the mesh's native preStop when the sidecar has none. One
// it has is kept: the mesh's own drain on another status port is the port
// its injector was configured with (a vendor's port is never rewritten).
func (f Convert) preStop(c *yaml.RNode, sc Sidecar) error {
	if len(sc.PreStop) == 0 || hook.Get(c, hook.PreStop) != nil {
		return nil
	}
	f.Log.Change(report.Container(podspec.InitContainers, sc.Name, "lifecycle", hook.PreStop).Values(nil, sc.PreStop), "set the preStop of %s to %q, as its mesh's injector does for a native sidecar", sc.Name, strings.Join(sc.PreStop, " "))
	return hook.SetExec(c, hook.PreStop, sc.PreStop)
}

// meshPreStop reports whether the sidecar's preStop is the mesh's native
// one, possibly with other arguments (another status port).
func meshPreStop(c *yaml.RNode, sc Sidecar) bool {
	cmd, ok := hook.Exec(c, hook.PreStop)
	n := len(sc.PreStop)
	return ok && n > 0 && len(cmd) == n && cmd[0] == sc.PreStop[0] && cmd[n-1] == sc.PreStop[n-1]
}

func (f Convert) startupProbe(c *yaml.RNode, sc Sidecar) error {
	existing := c.Field("startupProbe")
	var probe *yaml.RNode
	var err error
	var from string
	switch {
	case sc.StartupProbe != nil:
		if probe, err = Probe(sc.StartupProbe); err != nil {
			return err
		}
		if existing != nil && sameProbe(existing.Value, sc.StartupProbe) {
			return nil
		}
		from = "the config"
	case existing != nil:
		return nil
	case sc.DefaultProbe != nil:
		if probe, err = Probe(sc.DefaultProbe); err != nil {
			return err
		}
		from = "the preset"
	default:
		readiness := c.Field("readinessProbe")
		if readiness == nil {
			f.Log.Warn(report.KindReadiness, report.Container(podspec.InitContainers, sc.Name, "startupProbe"), "%s has no startupProbe and no readinessProbe: kubelet starts the next container as soon as it has started; set startupProbe", sc.Name)
			return nil
		}
		probe, from = readiness.Value.Copy(), "its readinessProbe"
		// A startupProbe succeeds once: the API server rejects another
		// successThreshold, which a readinessProbe may have.
		if _, err := probe.Pipe(yaml.Clear("successThreshold")); err != nil {
			return err
		}
	}
	f.Log.Change(report.Container(podspec.InitContainers, sc.Name, "startupProbe"), "set the startupProbe of %s from %s", sc.Name, from)
	return c.PipeE(yaml.SetField("startupProbe", probe))
}

// Probe encodes a probe as a block-style node.
func Probe(p *corev1.Probe) (*yaml.RNode, error) {
	js, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	n, err := yaml.Parse(string(js)) // JSON is YAML: the field order is kept
	if err != nil {
		return nil, err
	}
	block(n.YNode())
	return n, nil
}

// sameProbe reports whether the node decodes to the same probe.
func sameProbe(n *yaml.RNode, p *corev1.Probe) bool {
	js, err := n.MarshalJSON()
	if err != nil {
		return false
	}
	var got corev1.Probe
	if json.Unmarshal(js, &got) != nil {
		return false
	}
	return equality.Semantic.DeepEqual(&got, p)
}

func block(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		block(c)
	}
}
