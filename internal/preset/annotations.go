package preset

// The meshes' own pod-template annotations and labels that the presets'
// injectors read, and that package annotate writes.
const (
	// LinkerdProxyAwait makes Linkerd's injector add the linkerd-await
	// postStart ("enabled"); "disabled" is the workload's opt-out.
	LinkerdProxyAwait = "config.linkerd.io/proxy-await"
	// LinkerdWaitBeforeExit makes Linkerd's injector add a preStop sleep.
	LinkerdWaitBeforeExit = "config.alpha.linkerd.io/proxy-wait-before-exit-seconds"
	// LinkerdNativeSidecar switches Linkerd's native sidecar on ("true") or
	// off ("false"). Every Linkerd with native sidecars reads this key (2.15
	// and later; since 2.19 with less precedence than the keys below).
	LinkerdNativeSidecar = "config.alpha.linkerd.io/proxy-enable-native-sidecar"
	// LinkerdNativeSidecarBeta is the same switch as Linkerd 2.19 and later read it.
	LinkerdNativeSidecarBeta = "config.beta.linkerd.io/proxy-enable-native-sidecar"
	// LinkerdNativeSidecarGA is the same switch as Linkerd 2.20 (edge-26.5.2)
	// and later read it first; those turn native sidecars on by default.
	LinkerdNativeSidecarGA = "config.linkerd.io/proxy-enable-native-sidecar"
	// LinkerdInject "disabled" tells Linkerd's injector to leave the pod alone.
	LinkerdInject = "linkerd.io/inject"
	// IstioProxyConfig is Istio's per-pod ProxyConfig, as YAML or JSON.
	IstioProxyConfig = "proxy.istio.io/config"
	// IstioHold is the ProxyConfig key that holds the app until the proxy is ready.
	IstioHold = "holdApplicationUntilProxyStarts"
	// IstioNativeSidecar makes Istio's injector add the proxy as a native sidecar.
	IstioNativeSidecar = "sidecar.istio.io/nativeSidecar"
	// IstioStatusPortAnnotation sets the port of Istio's agent, which the
	// native proxy's drain request goes to.
	IstioStatusPortAnnotation = "status.sidecar.istio.io/port"
	// IstioInject "false", as a pod template label or an annotation, tells
	// Istio's injector to leave the pod alone.
	IstioInject = "sidecar.istio.io/inject"
)
