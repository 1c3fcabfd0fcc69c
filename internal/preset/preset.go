// Package preset holds what the function knows of each sidecar kind: its
// container, its wait command, its native startup probe, how it sleeps, and
// how the injector that adds it at admission is switched and annotated. The
// engine asks a Preset; it never compares preset names. The values follow
// the vendors' own injectors and images.
package preset

import (
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// Preset names.
const (
	// Linkerd is the Linkerd proxy.
	Linkerd = "linkerd"
	// Istio is the Istio (Envoy) proxy.
	Istio = "istio"
	// CloudSQLProxy is the Cloud SQL Auth Proxy v2.
	CloudSQLProxy = "cloud-sql-proxy"
	// None is a sidecar the function knows nothing about.
	None = "none"
)

// Preset is what the function knows of one sidecar kind.
type Preset struct {
	// Name is the preset's name.
	Name string
	// Title is one line for the catalog table.
	Title string
	// Container is the sidecar's usual container name; empty for none.
	Container string
	// Containers are every container name that recognises the sidecar,
	// Container first.
	Containers []string
	// Images are the image patterns that recognise the sidecar (MatchImage).
	Images []string
	// Mesh says the sidecar carries the pod's network traffic: it starts
	// before every other sidecar.
	Mesh bool
	// WaitCommand blocks until the sidecar is ready; nil when unknown.
	WaitCommand []string
	// StartupProbe is the native-mode probe; nil when unknown.
	StartupProbe *corev1.Probe
	// SleepCommand sleeps in the sidecar's image; nil when the image has none.
	SleepCommand []string
	// NoShell says the sidecar's image has no shell.
	NoShell bool
	// ShellTags and NoShellTags are the entry's image.shellTags and
	// image.noShellTags (ShellLess).
	ShellTags, NoShellTags []string
	// ExitDelays are the sidecar's own exit settings, which the
	// termination budget reads.
	ExitDelays []Delay
	// NoSleep says, in a message, what the sidecar itself offers instead
	// of a preStop sleep when its image has none (SleepCommand nil) and the
	// cluster has no sleep action; empty when it offers nothing.
	NoSleep string
	// NativePreStop is the preStop exec the mesh's injector gives its native
	// sidecar; nil when it writes none.
	NativePreStop []string
	// NativePreStopArg is the argument of NativePreStop that a pod
	// annotation sets; nil when none does.
	NativePreStopArg *AnnotatedArg
	// InitContainers are the mesh's own init containers that must run before it.
	InitContainers []string
	// Ready is how the sidecar tells it is ready, as its entry states it;
	// nil when the entry says nothing. ReadinessFor reads it.
	Ready *Ready
	// Injector is the admission webhook that adds the sidecar to pods; nil
	// when none does.
	Injector *Injector
	// LeaveAlone are the vendor's own words on a pod that its sidecar there
	// runs as the vendor wrote it.
	LeaveAlone []Word
}

// Annotates reports whether an injector adds the sidecar at admission and
// reads annotations the function writes (ifAbsent: annotate).
func (p Preset) Annotates() bool {
	return p.Injector != nil && p.Injector.Dialect != ""
}

// AsksToOrder reports whether the annotations the function writes for the
// sidecar's injector ask it to order the sidecar in the mode: Linkerd's and
// Istio's always; the generic dialect's when its entry lists annotations
// for the mode (native, or holding the application until it is ready).
func (p Preset) AsksToOrder(native bool) bool {
	switch {
	case !p.Annotates():
		return false
	case p.Injector.Dialect != GenericDialect:
		return true
	case p.Injector.Annotations == nil:
		return false
	case native:
		return p.Injector.Annotations.Native != nil
	}
	return len(p.Injector.Annotations.Ordered) > 0
}

// NativePreStopFor returns the preStop exec the injector gives the native
// sidecar in this pod; nil when it writes none.
func (p Preset) NativePreStopFor(pod Pod) []string {
	if p.NativePreStopArg == nil {
		return p.NativePreStop
	}
	v, ok := pod.Annotation(p.NativePreStopArg.Annotation)
	if !ok {
		return p.NativePreStop
	}
	cmd := slices.Clone(p.NativePreStop)
	for i, arg := range cmd {
		if strings.HasPrefix(arg, p.NativePreStopArg.Prefix) {
			cmd[i] = p.NativePreStopArg.Prefix + v
		}
	}
	return cmd
}

// DefaultSleepCommand is the sleep used below Kubernetes 1.30 unless a preset says otherwise.
var DefaultSleepCommand = []string{"/bin/sleep"}

// Lookup returns the named preset.
func Lookup(name string) (Preset, bool) {
	if name == None {
		return none(), true
	}
	if e, ok := config.BuiltinEntry(name); ok {
		return Of(e), true
	}
	return Preset{}, false
}

// Names lists the preset names, sorted.
func Names() []string {
	var names []string
	for _, p := range all() {
		names = append(names, p.Name)
	}
	sort.Strings(names)
	return names
}

// Catalog lists the presets an empty config applies, in start order: every
// entry of the catalog, the meshes first.
func Catalog() []Preset {
	var entries []Preset
	for _, p := range all() {
		if p.Name != None {
			entries = append(entries, p)
		}
	}
	return entries
}

// MeshInitContainers lists every mesh's own init containers.
func MeshInitContainers() []string {
	var names []string
	for _, e := range Builtin() {
		if e.Mesh {
			for _, c := range e.InitContainers {
				names = append(names, c.Name)
			}
		}
	}
	return names
}
