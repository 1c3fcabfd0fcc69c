package preset

import (
	"strconv"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
)

// Injector is the admission webhook that adds a sidecar to pods, as the
// workload's labels and annotations switch it.
type Injector struct {
	// Enabled are the switches of which any one makes the injector add the
	// sidecar.
	Enabled []Switch
	// Disabled are the switches with which the injector leaves the pod
	// alone; any one of them is enough.
	Disabled []Switch
	// OptOuts are the workload's switches that turn the sidecar's ordering
	// off; any one of them is enough.
	OptOuts []Switch
	// Native is the injector's per-workload native sidecar switch.
	Native NativeSwitch
	// Dialect names the annotations the function writes for the injector;
	// empty when it writes none.
	Dialect Dialect
	// Annotations are what the function writes for the injector, in its dialect.
	Annotations *Annotations
	// Record is the annotation in which the injector lists the containers
	// it added; empty when it keeps none.
	Record string
	// Ordering says what the injector itself offers to start the sidecar
	// first and stop it last.
	Ordering string
	// Webhooks are its webhook configuration's webhooks; Refuses the pods
	// its code leaves alone (see Injects).
	Webhooks []WebhookFact
	Refuses  []RefusalFact
}

// Pod is what a preset reads of a workload.
type Pod interface {
	// Annotation returns an annotation of the pod template or, when it is
	// not there, of the workload's own metadata.
	Annotation(key string) (string, bool)
	// TemplateLabel returns a label of the pod template.
	TemplateLabel(key string) (string, bool)
}

// Switch is one setting of an injector on a workload: an annotation or a
// pod template label with a value, or a key of an annotation whose value is
// a YAML or JSON mapping (Istio's ProxyConfig).
type Switch struct {
	// Label reads the pod template label Key instead of an annotation.
	Label bool
	// Key is the annotation's or label's key.
	Key string
	// Field, when set, is the top-level key of the annotation's value,
	// read as YAML or JSON, that holds the value.
	Field string
	// Value is the value that sets the switch.
	Value string
	// Namespace says the injector reads the switch on the pod's Namespace too.
	Namespace bool
	// UnlessLabel is a pod template label that, present, wins over the switch.
	UnlessLabel string
}

// set reports whether the pod has the switch set.
func (s Switch) set(pod Pod) bool {
	if s.UnlessLabel != "" {
		if _, won := pod.TemplateLabel(s.UnlessLabel); won {
			return false
		}
	}
	read := pod.Annotation
	if s.Label {
		read = pod.TemplateLabel
	}
	v, ok := read(s.Key)
	if ok && s.Field != "" {
		v, ok = tree.MappingValue(v, s.Field)
	}
	return ok && (v == s.Value || s.Value == AnyValue)
}

// AnyValue, as a switch's value, is set by any value of its key; an
// injector's disabled switches are read first.
const AnyValue = "*"

// anySet reports whether the pod has any of the switches set.
func anySet(pod Pod, switches []Switch) bool {
	for _, s := range switches {
		if s.set(pod) {
			return true
		}
	}
	return false
}

// NativeSwitch is an injector's per-workload switch between a native
// sidecar and a regular container.
type NativeSwitch struct {
	// Keys are its annotations, in the order the injector reads them: the
	// first one present decides.
	Keys []string
	// Boolean says the injector parses the value as a boolean, so that "0"
	// or "False" is off too; otherwise only "false" is off.
	Boolean bool
	// Default is where the injector writes native sidecars by default; nil
	// when it does not.
	Default *Since
	// NoStartupProbe says the native sidecar the injector writes has no
	// startupProbe: kubelet starts the application without waiting for it.
	NoStartupProbe bool
}

// off reports whether a value of the switch turns native sidecars off.
func (s NativeSwitch) off(v string) bool {
	if !s.Boolean {
		return v == "false"
	}
	on, err := strconv.ParseBool(v)
	return err == nil && !on
}

// NotInjected reports whether the workload tells the sidecar's injector
// not to add it, so that there is nothing to annotate for. A sidecar
// injected by hand carries the same switch so that the webhook leaves it
// alone: it is still ordered.
func (p Preset) NotInjected(pod Pod) bool {
	return p.Injector != nil && anySet(pod, p.Injector.Disabled)
}

// OptedOut reports whether the workload uses the injector's own switch to
// turn the sidecar's ordering off, or, in native mode, its native sidecar
// switch to turn native sidecars off.
func (p Preset) OptedOut(pod Pod, native bool) bool {
	if p.Injector == nil {
		return false
	}
	if anySet(pod, p.Injector.OptOuts) {
		return true
	}
	_, _, off := p.NativeSwitch(pod)
	return native && off
}

// NativeSwitch returns the workload's native sidecar switch for the
// sidecar's injector, the first of its keys present, with its value, and
// whether that turns native sidecars off as the injector reads it.
func (p Preset) NativeSwitch(pod Pod) (key, value string, off bool) {
	if p.Injector == nil {
		return "", "", false
	}
	for _, key := range p.Injector.Native.Keys {
		if v, ok := pod.Annotation(key); ok {
			return key, v, p.Injector.Native.off(v)
		}
	}
	return "", "", false
}

// Meta is the labels and annotations of an object: a workload's Namespace.
// It reads as a Pod, so that switches apply to it the same way.
type Meta struct {
	// Labels are the object's labels.
	Labels map[string]string
	// Annotations are the object's annotations.
	Annotations map[string]string
}

// Annotation returns an annotation.
func (m Meta) Annotation(key string) (string, bool) {
	v, ok := m.Annotations[key]
	return v, ok
}

// TemplateLabel returns a label.
func (m Meta) TemplateLabel(key string) (string, bool) {
	v, ok := m.Labels[key]
	return v, ok
}

// String says where the switch is, as a message names it:
// label sidecar.istio.io/inject: "true".
func (s Switch) String() string {
	kind := "annotation"
	if s.Label {
		kind = "label"
	}
	key := s.Key
	if s.Field != "" {
		key += " " + s.Field
	}
	if s.Value == AnyValue {
		return kind + " " + key
	}
	return kind + " " + key + ": " + strconv.Quote(s.Value)
}

// Admitted returns the switch with which the sidecar's injector adds it to
// the workload's pods at admission, on the pod template or, for a switch the
// injector reads there too, on the workload's Namespace; onNamespace says
// which. It reports false when no switch is set or one tells the injector
// to leave the pod alone, the pod's own switches first.
func (p Preset) Admitted(pod Pod, ns Meta) (s Switch, onNamespace, ok bool) {
	if p.Injector == nil || anySet(pod, p.Injector.Disabled) {
		return Switch{}, false, false
	}
	for _, s := range p.Injector.Enabled {
		if s.set(pod) {
			return s, false, true
		}
	}
	for _, s := range p.Injector.Disabled {
		if s.Namespace && s.set(ns) {
			return Switch{}, false, false
		}
	}
	for _, s := range p.Injector.Enabled {
		if s.Namespace && s.set(ns) {
			return s, true, true
		}
	}
	return Switch{}, false, false
}
