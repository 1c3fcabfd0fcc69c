// Package annotate sets a mesh's own pod-template annotations for a sidecar
// the mesh injects at admission, so that its injector orders the proxy.
package annotate

import (
	"encoding/json"
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/hook"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlnode"
)

// istioDrain is the ProxyConfig key for how long the proxy drains on shutdown.
const istioDrain = "terminationDrainDuration"

// Mesh is one absent sidecar whose mesh reads annotations.
type Mesh struct {
	// Preset is the sidecar's preset, whose injector's dialect says which
	// annotations to set.
	Preset preset.Preset
	// Native asks the mesh for a native sidecar.
	Native bool
	// WaitBeforeExit is the proxy's exit delay in seconds; 0 sets none.
	WaitBeforeExit int64
	// InPod marks a proxy already in the pod: its mesh's settings that are
	// present are kept true to the pod, none is added.
	InPod bool
}

// Filter sets each mesh's annotations on pod template metadata nodes,
// keeping every other annotation and every other key of Istio's ProxyConfig.
type Filter struct {
	// Meshes are the absent sidecars to annotate for.
	Meshes []Mesh
	// Log receives what changed.
	Log *report.Log
}

var _ kio.Filter = Filter{}

// Filter applies the annotations to each metadata node.
func (f Filter) Filter(metas []*yaml.RNode) ([]*yaml.RNode, error) {
	return kio.FilterAll(yaml.FilterFunc(f.filter)).Filter(metas)
}

func (f Filter) filter(meta *yaml.RNode) (*yaml.RNode, error) {
	for _, m := range f.Meshes {
		d, ok := dialectOf(m.Preset)
		if !ok {
			continue
		}
		if err := d.set(f, meta, m); err != nil {
			return nil, err
		}
	}
	return meta, nil
}

// linkerd sets Linkerd's await and its native switch for the mode, and the
// exit delay in ordered mode. The switch is written either way, so that the
// output does the same on Linkerd versions that default to native sidecars
// (2.20 and later) and on those that do not.
func (f Filter) linkerd(meta *yaml.RNode, m Mesh) error {
	if m.InPod {
		return f.linkerdInPod(meta, m)
	}
	if err := f.set(meta, preset.LinkerdProxyAwait, "enabled", ""); err != nil {
		return err
	}
	if m.Native {
		if err := f.set(meta, preset.LinkerdNativeSidecar, "true", preset.LinkerdProxyAwait); err != nil {
			return err
		}
		// Linkerd before 2.20 refuses to inject a native sidecar with an
		// exit delay, and kubelet stops native sidecars last anyway.
		return f.remove(meta, preset.LinkerdWaitBeforeExit, "a native sidecar needs no exit delay")
	}
	if m.WaitBeforeExit > 0 {
		if err := f.set(meta, preset.LinkerdWaitBeforeExit, fmt.Sprint(m.WaitBeforeExit), preset.LinkerdProxyAwait); err != nil {
			return err
		}
	}
	// The switch goes after both, wherever an exit delay of the input stands,
	// so that native mode, which drops the delay, puts it in the same place.
	if err := f.set(meta, preset.LinkerdNativeSidecar, "false", later(meta, preset.LinkerdProxyAwait, preset.LinkerdWaitBeforeExit)); err != nil {
		return err
	}
	for _, key := range []string{preset.LinkerdNativeSidecarGA, preset.LinkerdNativeSidecarBeta} {
		if v, ok := get(meta, key); ok && v != "false" {
			f.Log.Warn(report.KindMeshAnnotation, report.Annotation(key).Values(v, nil), "annotation %s: %q wins over %s: \"false\" on Linkerd 2.19 and later, which then inject a native sidecar; remove it, or use mode native",
				key, v, preset.LinkerdNativeSidecar)
		}
	}
	return nil
}

// linkerdInPod keeps the Linkerd annotations of a proxy injected by hand
// true to it: the exit delay the function set, the native switch.
func (f Filter) linkerdInPod(meta *yaml.RNode, m Mesh) error {
	want := "false"
	if m.Native {
		want = "true"
		if err := f.remove(meta, preset.LinkerdWaitBeforeExit, "a native sidecar needs no exit delay"); err != nil {
			return err
		}
	} else if cur, ok := get(meta, preset.LinkerdWaitBeforeExit); ok && m.WaitBeforeExit > 0 && cur != fmt.Sprint(m.WaitBeforeExit) {
		if err := f.set(meta, preset.LinkerdWaitBeforeExit, fmt.Sprint(m.WaitBeforeExit), ""); err != nil {
			return err
		}
	}
	if cur, ok := get(meta, preset.LinkerdNativeSidecar); ok && cur != want {
		return f.set(meta, preset.LinkerdNativeSidecar, want, "")
	}
	return nil
}

func (f Filter) istio(meta *yaml.RNode, m Mesh) error {
	current, _ := get(meta, preset.IstioProxyConfig)
	if m.InPod {
		// The exit delay the function set in ordered mode is the proxy's
		// drain: a terminationDrainDuration present must say the same.
		drain, ok := ProxyConfigValue(current, istioDrain)
		if m.Native || m.WaitBeforeExit == 0 || !ok || drain == fmt.Sprintf("%ds", m.WaitBeforeExit) {
			return nil
		}
		merged, err := MergeProxyConfig(current, [][2]any{{istioDrain, fmt.Sprintf("%ds", m.WaitBeforeExit)}})
		if err != nil {
			f.Log.Fail(report.KindMeshAnnotation, report.Annotation(preset.IstioProxyConfig).Values(current, nil), "annotation %s: %v", preset.IstioProxyConfig, err)
			return nil
		}
		return f.set(meta, preset.IstioProxyConfig, merged, "")
	}
	keys := [][2]any{{preset.IstioHold, true}}
	if m.WaitBeforeExit > 0 {
		keys = append(keys, [2]any{istioDrain, fmt.Sprintf("%ds", m.WaitBeforeExit)})
	}
	merged, err := MergeProxyConfig(current, keys)
	if err != nil {
		f.Log.Fail(report.KindMeshAnnotation, report.Annotation(preset.IstioProxyConfig).Values(current, nil), "annotation %s: %v", preset.IstioProxyConfig, err)
		return nil
	}
	if err := f.set(meta, preset.IstioProxyConfig, merged, ""); err != nil {
		return err
	}
	if m.Native {
		return f.set(meta, preset.IstioNativeSidecar, "true", preset.IstioProxyConfig)
	}
	// Ordered mode takes the native switch back out (native mode wrote it);
	// it writes no "false", which is Istio's own opt-out that native mode
	// honours.
	if v, _ := get(meta, preset.IstioNativeSidecar); v == "true" {
		return f.remove(meta, preset.IstioNativeSidecar, "ordered mode")
	}
	return nil
}

// ProxyConfigValue returns a top-level key of Istio's ProxyConfig annotation value.
func ProxyConfigValue(value, key string) (string, bool) {
	return yamlnode.MappingValue(value, key)
}

// MergeProxyConfig sets keys in a ProxyConfig given as JSON or YAML, keeping
// every other key. JSON (or nothing) comes back as JSON, YAML as YAML.
func MergeProxyConfig(current string, keys [][2]any) (string, error) {
	trimmed := strings.TrimSpace(current)
	asJSON := trimmed == "" || strings.HasPrefix(trimmed, "{")
	rn := yaml.NewMapRNode(nil)
	if trimmed != "" {
		var err error
		if rn, err = yaml.Parse(current); err != nil || rn.YNode().Kind != yaml.MappingNode {
			return "", fmt.Errorf("is not a YAML or JSON mapping: %s; write it as one, such as {holdApplicationUntilProxyStarts: true}, or remove it", report.Quote(current))
		}
	}
	changed := false
	for _, kv := range keys {
		key := kv[0].(string)
		want := fmt.Sprint(kv[1])
		if f := rn.Field(key); f != nil && yaml.GetValue(f.Value) == want {
			continue
		}
		v := yaml.NewStringRNode(want)
		if _, ok := kv[1].(bool); ok {
			v = yaml.NewScalarRNode(want)
			v.YNode().Tag = yaml.NodeTagBool
		}
		if err := rn.PipeE(yaml.SetField(key, v)); err != nil {
			return "", err
		}
		changed = true
	}
	if !changed {
		return current, nil
	}
	if asJSON {
		return orderedJSON(rn.YNode())
	}
	s, err := rn.String()
	return s, err
}

// orderedJSON encodes a mapping node as compact JSON in its key order.
func orderedJSON(n *yaml.Node) (string, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(n.Content); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(n.Content[i].Value)
		var v any
		if err := n.Content[i+1].Decode(&v); err != nil {
			return "", err
		}
		vs, err := json.Marshal(v)
		if err != nil {
			return "", err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(vs)
	}
	b.WriteByte('}')
	return b.String(), nil
}

func get(meta *yaml.RNode, key string) (string, bool) {
	n, err := yamlnode.Lookup(meta, yaml.AnnotationsField, key)
	if err != nil || n == nil {
		return "", false
	}
	return yaml.GetValue(n), true
}

// set sets an annotation; a new one goes right after the annotation named
// after when that is present, so that the keys of one mesh stay together in
// the same order whichever mode wrote them first.
func (f Filter) set(meta *yaml.RNode, key, value, after string) error {
	cur, ok := get(meta, key)
	if ok && cur == value {
		return nil
	}
	f.Log.Change(report.Annotation(key).Values(current(cur, ok), value), "set annotation %s: %q", key, value)
	return put(meta, key, value, after, ok)
}

// current is an annotation's value for a finding: nil when it is absent.
func current(value string, present bool) any {
	if !present {
		return nil
	}
	return value
}

// later returns whichever of two annotations stands later; a when b is absent.
func later(meta *yaml.RNode, a, b string) string {
	annotations, err := yamlnode.Lookup(meta, yaml.AnnotationsField)
	if err != nil || annotations == nil {
		return a
	}
	out := a
	content := annotations.YNode().Content
	for i := 0; i+1 < len(content); i += 2 {
		if content[i].Value == a || content[i].Value == b {
			out = content[i].Value
		}
	}
	return out
}

// put writes an annotation as set does, without reporting it; present says
// whether the key is there already.
func put(meta *yaml.RNode, key, value, after string, present bool) error {
	v := yaml.NewStringRNode(value)
	if strings.HasPrefix(value, "{") && !strings.Contains(value, "'") {
		v.YNode().Style = yaml.SingleQuotedStyle // JSON reads best without escapes
	}
	annotations, err := meta.Pipe(yaml.LookupCreate(yaml.MappingNode, yaml.AnnotationsField))
	if err != nil {
		return err
	}
	if !present && after != "" {
		content := annotations.YNode().Content
		for i := 0; i+1 < len(content); i += 2 {
			if content[i].Value == after {
				k := yaml.NewScalarRNode(key).YNode()
				annotations.YNode().Content = append(append(append([]*yaml.Node{}, content[:i+2]...), k, v.YNode()), content[i+2:]...)
				return nil
			}
		}
	}
	return annotations.PipeE(yaml.SetField(key, v))
}

func (f Filter) remove(meta *yaml.RNode, key, why string) error {
	cur, ok := get(meta, key)
	if !ok {
		return nil
	}
	f.Log.Change(report.Annotation(key).Values(cur, nil), "removed annotation %s (%s)", key, why)
	return hook.RemoveField(meta, yaml.AnnotationsField, key)
}
