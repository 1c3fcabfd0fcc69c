package annotate

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"
	"time"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

//go:embed dialects.yaml
var dialectsYAML []byte

// dialect is how the function writes one injector's annotations
// (dialects.yaml).
type dialect struct {
	// HoldsInNative: the entry's ordered annotations are written in native
	// mode too.
	HoldsInNative bool `yaml:"holdsInNative"`
	// ExitInNative is what native mode does with the exit delay: write,
	// remove or leave it.
	ExitInNative string `yaml:"exitInNative"`
	// NativeOff, when set, is the native switch's value in ordered mode:
	// written, kept true to the mode for a proxy in the pod, and another
	// native key that says otherwise is warned about.
	NativeOff string `yaml:"nativeOff"`
	// RemoveNative: ordered mode removes the native switch native mode wrote.
	RemoveNative bool `yaml:"removeNative"`
	// Duration is how a delay of the duration format is written: "seconds"
	// ("90s"), else as Go writes it ("1m30s").
	Duration string `yaml:"duration"`
	Why      string `yaml:"why"`
}

// Exit delays in native mode.
const (
	exitWrites = "write"
	exitRemove = "remove"
	exitLeave  = "leave"
)

// dialects are dialects.yaml, read once; a file that does not read is a
// bug its test finds.
var dialects = sync.OnceValue(func() map[preset.Dialect]dialect {
	out := map[preset.Dialect]dialect{}
	d := yaml.NewDecoder(bytes.NewReader(dialectsYAML))
	d.KnownFields(true)
	if err := d.Decode(&out); err != nil {
		panic("annotate: dialects.yaml: " + err.Error())
	}
	return out
})

// delay writes seconds in the annotation's format, as the dialect writes
// a duration.
func (d dialect) delay(format string, seconds int64) string {
	switch {
	case format == preset.FormatSeconds:
		return fmt.Sprint(seconds)
	case d.Duration == "seconds":
		return fmt.Sprintf("%ds", seconds)
	}
	return (time.Duration(seconds) * time.Second).String()
}

// dialectOf returns the dialect of the preset's injector; false when its
// injector reads no annotations.
func dialectOf(p preset.Preset) (dialect, bool) {
	if !p.Annotates() {
		return dialect{}, false
	}
	d, ok := dialects()[p.Injector.Dialect]
	return d, ok
}

// NativeStatus returns the filter that keeps the record the preset's
// injector keeps of the containers it added (injector.record) true to
// proxy, which became a native sidecar; false when it keeps none.
func NativeStatus(p preset.Preset, proxy string, log *report.Log) (kio.Filter, bool) {
	if !p.Annotates() || p.Injector.Record == "" {
		return nil, false
	}
	return RecordStatus{Annotation: p.Injector.Record, Proxy: proxy, Init: p.InitContainers, Log: log}, true
}
