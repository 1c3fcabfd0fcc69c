package preset

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// all returns every preset in the start order an empty config applies them:
// the mesh proxies first, then the Cloud SQL Auth Proxy, which needs the
// mesh's network; none, which has no container, last. Adding a sidecar kind
// is adding its value here. It is a function so that callers cannot share
// mutable values.
func all() []Preset {
	return []Preset{
		{
			Name:           Linkerd,
			Container:      "linkerd-proxy",
			WaitCommand:    []string{"/usr/lib/linkerd/linkerd-await", "--timeout=2m", "--port=4191"},
			StartupProbe:   httpProbe("/ready", 4191, 1, 0, 120),
			SleepCommand:   DefaultSleepCommand,
			InitContainers: []string{"linkerd-init", "linkerd-network-validator"},
			Injector: &Injector{
				Disabled: []Switch{{Key: LinkerdInject, Value: "disabled"}},
				OptOuts:  []Switch{{Key: LinkerdProxyAwait, Value: "disabled"}},
				// The alpha key is the one the function itself writes, so it
				// is not read as an opt-out.
				Native:  NativeSwitch{Keys: []string{LinkerdNativeSidecarGA, LinkerdNativeSidecarBeta}, Boolean: true},
				Dialect: LinkerdDialect,
			},
		},
		{
			Name:             Istio,
			Container:        "istio-proxy",
			WaitCommand:      []string{"pilot-agent", "wait"},
			StartupProbe:     httpProbe("/healthz/ready", 15021, 1, 3, 600),
			NativePreStop:    IstioDrain(IstioStatusPort),
			NativePreStopArg: &AnnotatedArg{Annotation: IstioStatusPortAnnotation, Prefix: istioDebugPort},
			SleepCommand:     DefaultSleepCommand,
			InitContainers:   []string{"istio-init", "istio-validation"},
			Injector: &Injector{
				Disabled: []Switch{{Label: true, Key: IstioInject, Value: "false"}, {Key: IstioInject, Value: "false"}},
				OptOuts:  []Switch{{Key: IstioProxyConfig, Field: IstioHold, Value: "false"}},
				// Istio's injector template compares the value with "false".
				Native:  NativeSwitch{Keys: []string{IstioNativeSidecar}},
				Dialect: IstioDialect,
			},
		},
		// The Cloud SQL Auth Proxy's wait command and probe are fitted to
		// each container's own settings by package cloudsql; these are
		// the defaults (port 9090, the operator's probe timings).
		{
			Name:         CloudSQLProxy,
			Container:    "cloud-sql-proxy",
			WaitCommand:  []string{"/cloud-sql-proxy", "wait", "--max=30s", "--http-port", "9090"},
			StartupProbe: httpProbe("/startup", 9090, 1, 10, 60),
			Edits:        CloudSQLProxyEdits,
			// cloud-sql-proxy cmd/root.go: --min-sigterm-delay (v2.12.0,
			// CHANGELOG) keeps accepting connections after SIGTERM;
			// --max-sigterm-delay waits for open ones to close; v1's
			// -term_timeout (cmd/cloud_sql_proxy/cloud_sql_proxy.go) too.
			NoSleep: "give the proxy its own --min-sigterm-delay flag (v2.12.0 and later: it keeps accepting connections that long after SIGTERM) " +
				"or --max-sigterm-delay (it waits that long for open connections to close; v1: -term_timeout)",
		},
		{Name: None, SleepCommand: DefaultSleepCommand},
	}
}

// IstioStatusPort is the default port of Istio's agent, which its drain
// request goes to; the pod annotation IstioStatusPortAnnotation changes it.
const IstioStatusPort = "15020"

// istioDebugPort starts the argument of IstioDrain that names the port.
const istioDebugPort = "--debug-port="

// IstioDrain is the preStop Istio's injector writes on a native istio-proxy:
// it starts Envoy's drain when the pod starts shutting down; kubelet sends
// SIGTERM once the application containers have exited.
func IstioDrain(statusPort string) []string {
	return []string{"pilot-agent", "request", istioDebugPort + statusPort, "POST", "drain"}
}

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
