// Package preset holds what the function knows of each mesh's sidecar: its
// container, its wait command, its native startup probe, how it sleeps and the
// mesh's own annotations. The values follow the meshes' own injectors.
package preset

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
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

// Preset is what the function knows of one sidecar.
type Preset struct {
	// Name is the preset's name.
	Name string
	// Container is the sidecar's usual container name.
	Container string
	// WaitCommand blocks until the sidecar is ready; nil when unknown.
	WaitCommand []string
	// StartupProbe is the native-mode probe; nil when unknown.
	StartupProbe *corev1.Probe
	// SleepCommand sleeps in the sidecar's image; nil when the image has none.
	SleepCommand []string
	// NativePreStop is the preStop exec the mesh's injector gives its native
	// sidecar; nil when it writes none.
	NativePreStop []string
	// InitContainers are the mesh's own init containers that must run before it.
	InitContainers []string
	// Annotates reports whether the mesh injects at admission and reads annotations.
	Annotates bool
}

// IstioStatusPort is the default port of Istio's agent, which its drain
// request goes to; the pod annotation status.sidecar.istio.io/port changes it.
const IstioStatusPort = "15020"

// IstioDrain is the preStop Istio's injector writes on a native istio-proxy:
// it starts Envoy's drain when the pod starts shutting down; kubelet sends
// SIGTERM once the application containers have exited.
func IstioDrain(statusPort string) []string {
	return []string{"pilot-agent", "request", "--debug-port=" + statusPort, "POST", "drain"}
}

// DefaultSleepCommand is the sleep used below Kubernetes 1.30 unless a preset says otherwise.
var DefaultSleepCommand = []string{"/bin/sleep"}

func httpProbe(path string, port int, period, timeout, failures int32) *corev1.Probe {
	return &corev1.Probe{
		ProbeHandler: corev1.ProbeHandler{
			HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(int32(port))},
		},
		PeriodSeconds:    period,
		TimeoutSeconds:   timeout,
		FailureThreshold: failures,
	}
}

// all returns the presets by name; a function so that callers cannot share mutable values.
func all() map[string]Preset {
	return map[string]Preset{
		Linkerd: {
			Name:           Linkerd,
			Container:      "linkerd-proxy",
			WaitCommand:    []string{"/usr/lib/linkerd/linkerd-await", "--timeout=2m", "--port=4191"},
			StartupProbe:   httpProbe("/ready", 4191, 1, 0, 120),
			SleepCommand:   DefaultSleepCommand,
			InitContainers: []string{"linkerd-init", "linkerd-network-validator"},
			Annotates:      true,
		},
		Istio: {
			Name:           Istio,
			Container:      "istio-proxy",
			WaitCommand:    []string{"pilot-agent", "wait"},
			StartupProbe:   httpProbe("/healthz/ready", 15021, 1, 3, 600),
			NativePreStop:  IstioDrain(IstioStatusPort),
			SleepCommand:   DefaultSleepCommand,
			InitContainers: []string{"istio-init", "istio-validation"},
			Annotates:      true,
		},
		// The Cloud SQL Auth Proxy's wait command and probe are fitted to
		// each container's own settings by package cloudsql; these are
		// the defaults (port 9090, the operator's probe timings).
		CloudSQLProxy: {
			Name:         CloudSQLProxy,
			Container:    "cloud-sql-proxy",
			WaitCommand:  []string{"/cloud-sql-proxy", "wait", "--max=30s", "--http-port", "9090"},
			StartupProbe: httpProbe("/startup", 9090, 1, 10, 60),
		},
		None: {Name: None, SleepCommand: DefaultSleepCommand},
	}
}

// Lookup returns the named preset.
func Lookup(name string) (Preset, bool) {
	p, ok := all()[name]
	return p, ok
}

// Names lists the preset names, sorted.
func Names() []string {
	var names []string
	for n := range all() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Meshes lists the presets an empty config applies, in start order: the mesh
// proxies first, then the Cloud SQL Auth Proxy, which needs the mesh's network.
func Meshes() []Preset {
	m := all()
	return []Preset{m[Linkerd], m[Istio], m[CloudSQLProxy]}
}

// MeshInitContainers lists every mesh's own init containers.
func MeshInitContainers() []string {
	var names []string
	for _, p := range Meshes() {
		names = append(names, p.InitContainers...)
	}
	return names
}
