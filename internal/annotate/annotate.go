// Package annotate sets a mesh's own pod-template annotations for a sidecar
// the mesh injects at admission, so that its injector orders the proxy.
package annotate

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/hook"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
)

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
		if !ok || m.Preset.Injector.Annotations == nil {
			continue
		}
		write := f.absent
		if m.InPod {
			write = f.inPod
		}
		if err := write(meta, m, d); err != nil {
			return nil, err
		}
	}
	return meta, nil
}

// absent writes the annotations of a mesh that injects the sidecar at
// admission: those the dialect writes in the mode, then the native switch.
func (f Filter) absent(meta *yaml.RNode, m Mesh, d dialect) error {
	a := m.Preset.Injector.Annotations
	var writes []write
	if !m.Native || d.HoldsInNative {
		writes = holds(a)
	}
	lastHold := ""
	if len(writes) > 0 {
		lastHold = writes[len(writes)-1].key
	}
	if !m.Native || d.ExitInNative == exitWrites {
		if w, ok := exitWrite(m, d.delay); ok {
			writes = append(writes, w)
		}
	}
	last, ok, err := f.apply(meta, writes)
	if err != nil || !ok {
		return err
	}
	if m.Native {
		if a.Native == nil {
			return nil // the injector writes native sidecars on its own, or not at all
		}
		if err := f.set(meta, a.Native.Key, a.Native.Value, last); err != nil {
			return err
		}
		if d.ExitInNative == exitRemove {
			return f.remove(meta, exitKey(a), "a native sidecar needs no exit delay")
		}
		return nil
	}
	switch {
	case a.Native == nil:
	case d.NativeOff != "":
		// After both the holds and the exit delay, wherever an exit delay
		// of the input stands, so that native mode, which drops the delay,
		// puts the switch in the same place.
		if err := f.set(meta, a.Native.Key, d.NativeOff, later(meta, lastHold, exitKey(a))); err != nil {
			return err
		}
		f.warnOtherSwitches(meta, m, d.NativeOff)
	case d.RemoveNative:
		if v, _ := get(meta, a.Native.Key); v == a.Native.Value {
			return f.remove(meta, a.Native.Key, "ordered mode")
		}
	}
	return nil
}

// apply writes plain annotations one after the other, then merges the
// keys of mapping annotations; it returns the last annotation written, and
// false when a mapping annotation's value is not one (logged).
func (f Filter) apply(meta *yaml.RNode, writes []write) (string, bool, error) {
	after := ""
	var merges []merge
	for _, w := range writes {
		if w.field != "" {
			merges = addField(merges, w.key, w.field, w.value)
			continue
		}
		if err := f.set(meta, w.key, w.value.(string), after); err != nil {
			return "", false, err
		}
		after = w.key
	}
	if len(merges) == 0 {
		return after, true, nil
	}
	ok, err := f.merge(meta, merges)
	return merges[len(merges)-1].key, ok, err
}

// warnOtherSwitches warns about each native key of the injector, other
// than the one written, whose value says otherwise than off: the injector
// versions that read it inject a native sidecar.
func (f Filter) warnOtherSwitches(meta *yaml.RNode, m Mesh, off string) {
	native := m.Preset.Injector.Annotations.Native
	for _, key := range m.Preset.Injector.Native.Keys {
		if v, ok := get(meta, key); ok && key != native.Key && v != off {
			f.Log.Warn(report.KindMeshAnnotation, report.Annotation(key).Values(v, nil), "annotation %s: %q wins over %s: %q where the %s injector reads it, which then injects a native sidecar; remove it, or use mode native",
				key, v, native.Key, off, m.Preset.Title)
		}
	}
}

// inPod keeps the annotations of a proxy already in the pod true to the
// edits: the exit delay the function set, and the native switch where the
// dialect writes one in both modes. It adds none.
func (f Filter) inPod(meta *yaml.RNode, m Mesh, d dialect) error {
	a := m.Preset.Injector.Annotations
	switch e := a.ExitDelay; {
	case e == nil:
	case m.Native && d.ExitInNative == exitRemove:
		if err := f.remove(meta, e.Key, "a native sidecar needs no exit delay"); err != nil {
			return err
		}
	case !m.Native && m.WaitBeforeExit > 0:
		want := d.delay(e.Format, m.WaitBeforeExit)
		current, present := get(meta, e.Key)
		if e.Field == "" {
			if present && current != want {
				if err := f.set(meta, e.Key, want, ""); err != nil {
					return err
				}
			}
			break
		}
		if cur, ok := ProxyConfigValue(current, e.Field); ok && cur != want {
			if _, err := f.merge(meta, []merge{{e.Key, [][2]any{{e.Field, want}}}}); err != nil {
				return err
			}
		}
	}
	if d.NativeOff == "" || a.Native == nil {
		return nil
	}
	want := d.NativeOff
	if m.Native {
		want = a.Native.Value
	}
	if cur, ok := get(meta, a.Native.Key); ok && cur != want {
		return f.set(meta, a.Native.Key, want, "")
	}
	return nil
}

// merge is the keys set in one mapping annotation.
type merge struct {
	key    string
	fields [][2]any
}

// addField adds a key to the merge of its annotation, a new merge when it
// is the first of that annotation.
func addField(merges []merge, key, field string, value any) []merge {
	for i := range merges {
		if merges[i].key == key {
			merges[i].fields = append(merges[i].fields, [2]any{field, value})
			return merges
		}
	}
	return append(merges, merge{key, [][2]any{{field, value}}})
}

// merge sets the keys in their annotations; false, with a failure logged,
// when an annotation's value is not a mapping.
func (f Filter) merge(meta *yaml.RNode, merges []merge) (bool, error) {
	for _, mg := range merges {
		current, _ := get(meta, mg.key)
		merged, err := MergeProxyConfig(current, mg.fields)
		if err != nil {
			f.Log.Fail(report.KindMeshAnnotation, report.Annotation(mg.key).Values(current, nil), "annotation %s: %v", mg.key, err)
			return false, nil
		}
		if err := f.set(meta, mg.key, merged, ""); err != nil {
			return false, err
		}
	}
	return true, nil
}

// typed is a field's value as ProxyConfig holds it: a boolean as a
// boolean, anything else as a string.
func typed(v string) any {
	if b, err := strconv.ParseBool(v); err == nil {
		return b
	}
	return v
}

// ProxyConfigValue returns a top-level key of Istio's ProxyConfig annotation value.
func ProxyConfigValue(value, key string) (string, bool) {
	return tree.MappingValue(value, key)
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
			return "", fmt.Errorf("is not a YAML or JSON mapping: %s; write it as one, such as {%s: %v}, or remove it", report.Quote(current), keys[0][0], keys[0][1])
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
	n, err := tree.Lookup(meta, yaml.AnnotationsField, key)
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
	annotations, err := tree.Lookup(meta, yaml.AnnotationsField)
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
