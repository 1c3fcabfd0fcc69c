package annotate

import (
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// dialect is how the function writes one injector's annotations.
type dialect struct {
	// set sets the annotations for one mesh.
	set func(Filter, *yaml.RNode, Mesh) error
	// delay writes an exit delay's seconds in the annotation's format.
	delay func(format string, seconds int64) string
	// nativeStatus, when set, returns the filter that keeps the injector's
	// record of the containers it added true to a proxy that became a
	// native sidecar.
	nativeStatus func(p preset.Preset, proxy string, log *report.Log) kio.Filter
}

// dialects are the writers of each preset.Dialect.
var dialects = map[preset.Dialect]dialect{
	preset.LinkerdDialect: {set: Filter.linkerd, delay: formatDelay},
	preset.GenericDialect: {set: Filter.generic, delay: formatDelay},
	preset.IstioDialect: {set: Filter.istio, delay: istioDelay, nativeStatus: func(p preset.Preset, proxy string, log *report.Log) kio.Filter {
		return IstioNativeStatus{Annotation: p.Injector.Record, Proxy: proxy, Init: p.InitContainers, Log: log}
	}},
}

// dialectOf returns the dialect of the preset's injector; false when its
// injector reads no annotations.
func dialectOf(p preset.Preset) (dialect, bool) {
	if !p.Annotates() {
		return dialect{}, false
	}
	d, ok := dialects[p.Injector.Dialect]
	return d, ok
}

// NativeStatus returns the filter that keeps the record the preset's
// injector keeps of the containers it added true to proxy, which became a
// native sidecar; false when the injector keeps no such record.
func NativeStatus(p preset.Preset, proxy string, log *report.Log) (kio.Filter, bool) {
	d, ok := dialectOf(p)
	if !ok || d.nativeStatus == nil {
		return nil, false
	}
	return d.nativeStatus(p, proxy, log), true
}
