package preset_test

import (
	"slices"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
)

// pod is a workload's annotations and pod template labels.
type pod struct{ annotations, labels map[string]string }

func (p pod) Annotation(key string) (string, bool) {
	v, ok := p.annotations[key]
	return v, ok
}

func (p pod) TemplateLabel(key string) (string, bool) {
	v, ok := p.labels[key]
	return v, ok
}

func TestInjectorSwitches(t *testing.T) {
	for _, tc := range []struct {
		name, preset   string
		pod            pod
		notInjected    bool
		optedOut       bool // in ordered mode
		optedOutNative bool
	}{
		{"linkerd, nothing set", preset.Linkerd, pod{}, false, false, false},
		{"linkerd inject disabled", preset.Linkerd, pod{annotations: map[string]string{"linkerd.io/inject": "disabled"}}, true, false, false},
		{"linkerd inject enabled", preset.Linkerd, pod{annotations: map[string]string{"linkerd.io/inject": "enabled"}}, false, false, false},
		{"linkerd await disabled", preset.Linkerd, pod{annotations: map[string]string{"config.linkerd.io/proxy-await": "disabled"}}, false, true, true},
		{"linkerd await enabled", preset.Linkerd, pod{annotations: map[string]string{"config.linkerd.io/proxy-await": "enabled"}}, false, false, false},
		{"linkerd native off is a boolean", preset.Linkerd, pod{annotations: map[string]string{"config.linkerd.io/proxy-enable-native-sidecar": "0"}}, false, false, true},
		{"linkerd GA key read before beta", preset.Linkerd, pod{annotations: map[string]string{"config.linkerd.io/proxy-enable-native-sidecar": "true", "config.beta.linkerd.io/proxy-enable-native-sidecar": "false"}}, false, false, false},
		{"linkerd beta key", preset.Linkerd, pod{annotations: map[string]string{"config.beta.linkerd.io/proxy-enable-native-sidecar": "False"}}, false, false, true},
		{"linkerd alpha key is the function's own", preset.Linkerd, pod{annotations: map[string]string{"config.alpha.linkerd.io/proxy-enable-native-sidecar": "false"}}, false, false, false},
		{"linkerd native switch not a boolean", preset.Linkerd, pod{annotations: map[string]string{"config.linkerd.io/proxy-enable-native-sidecar": "no"}}, false, false, false},
		{"istio inject label false", preset.Istio, pod{labels: map[string]string{"sidecar.istio.io/inject": "false"}}, true, false, false},
		{"istio inject annotation false", preset.Istio, pod{annotations: map[string]string{"sidecar.istio.io/inject": "false"}}, true, false, false},
		{"istio inject label true wins over annotation false", preset.Istio, pod{labels: map[string]string{"sidecar.istio.io/inject": "true"}, annotations: map[string]string{"sidecar.istio.io/inject": "false"}}, false, false, false},
		{"istio inject label of no meaning wins over annotation false", preset.Istio, pod{labels: map[string]string{"sidecar.istio.io/inject": "yes"}, annotations: map[string]string{"sidecar.istio.io/inject": "false"}}, false, false, false},
		{"istio inject true", preset.Istio, pod{labels: map[string]string{"sidecar.istio.io/inject": "true"}}, false, false, false},
		{"istio hold false, JSON", preset.Istio, pod{annotations: map[string]string{"proxy.istio.io/config": `{"holdApplicationUntilProxyStarts": false}`}}, false, true, true},
		{"istio hold false, YAML", preset.Istio, pod{annotations: map[string]string{"proxy.istio.io/config": "holdApplicationUntilProxyStarts: false\n"}}, false, true, true},
		{"istio hold true", preset.Istio, pod{annotations: map[string]string{"proxy.istio.io/config": `{"holdApplicationUntilProxyStarts": true}`}}, false, false, false},
		{"istio ProxyConfig not a mapping", preset.Istio, pod{annotations: map[string]string{"proxy.istio.io/config": "false"}}, false, false, false},
		{"istio native off is exactly false", preset.Istio, pod{annotations: map[string]string{"sidecar.istio.io/nativeSidecar": "false"}}, false, false, true},
		{"istio native 0 is not off", preset.Istio, pod{annotations: map[string]string{"sidecar.istio.io/nativeSidecar": "0"}}, false, false, false},
		{"cloud-sql-proxy has no injector", preset.CloudSQLProxy, pod{annotations: map[string]string{"linkerd.io/inject": "disabled", "sidecar.istio.io/nativeSidecar": "false"}}, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := preset.Lookup(tc.preset)
			if got := p.NotInjected(tc.pod); got != tc.notInjected {
				t.Errorf("NotInjected = %v, want %v", got, tc.notInjected)
			}
			if got := p.OptedOut(tc.pod, false); got != tc.optedOut {
				t.Errorf("OptedOut(ordered) = %v, want %v", got, tc.optedOut)
			}
			if got := p.OptedOut(tc.pod, true); got != tc.optedOutNative {
				t.Errorf("OptedOut(native) = %v, want %v", got, tc.optedOutNative)
			}
		})
	}
}

func TestNativeSwitch(t *testing.T) {
	p, _ := preset.Lookup(preset.Linkerd)
	key, v, off := p.NativeSwitch(pod{annotations: map[string]string{"config.beta.linkerd.io/proxy-enable-native-sidecar": "false"}})
	if key != "config.beta.linkerd.io/proxy-enable-native-sidecar" || v != "false" || !off {
		t.Errorf("NativeSwitch = %q, %q, %v", key, v, off)
	}
	if key, _, off := p.NativeSwitch(pod{}); key != "" || off {
		t.Errorf("NativeSwitch of a pod without one = %q, %v", key, off)
	}
}

func TestNativePreStopFor(t *testing.T) {
	istio, _ := preset.Lookup(preset.Istio)
	if got, want := istio.NativePreStopFor(pod{}), istioDrain("15020"); !slices.Equal(got, want) {
		t.Errorf("default: %q, want %q", got, want)
	}
	withPort := pod{annotations: map[string]string{"status.sidecar.istio.io/port": "15999"}}
	if got, want := istio.NativePreStopFor(withPort), istioDrain("15999"); !slices.Equal(got, want) {
		t.Errorf("with the status port annotation: %q, want %q", got, want)
	}
	if again := istio.NativePreStopFor(pod{}); !slices.Equal(again, istioDrain("15020")) {
		t.Errorf("the preset's own preStop changed: %q", again)
	}
	linkerd, _ := preset.Lookup(preset.Linkerd)
	if got := linkerd.NativePreStopFor(withPort); got != nil {
		t.Errorf("linkerd: %q, want none", got)
	}
}

// istioDrain is the preStop Istio's injection template writes on a native
// istio-proxy (manifests/charts/istio-control/istio-discovery/files/injection-template.yaml).
func istioDrain(port string) []string {
	return []string{"pilot-agent", "request", "--debug-port=" + port, "POST", "drain"}
}
