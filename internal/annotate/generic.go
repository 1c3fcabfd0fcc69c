package annotate

import (
	"fmt"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
)

// generic sets the annotations a catalog entry lists for its injector: in
// ordered mode those that hold the application until the sidecar is ready
// and the exit delay; in native mode the native switch. A sidecar in the pod
// keeps an exit delay annotation present true to the delay the function set.
func (f Filter) generic(meta *yaml.RNode, m Mesh) error {
	a := m.Preset.Injector.Annotations
	if a == nil {
		return nil
	}
	if m.InPod {
		if _, ok := get(meta, exitKey(a)); ok && !m.Native && m.WaitBeforeExit > 0 {
			return f.set(meta, a.ExitDelay.Key, formatDelay(a.ExitDelay.Format, m.WaitBeforeExit), "")
		}
		return nil
	}
	if m.Native {
		if a.Native == nil {
			return nil // the injector writes native sidecars on its own, or not at all
		}
		return f.set(meta, a.Native.Key, a.Native.Value, "")
	}
	after := ""
	for _, w := range ordered(m, formatDelay) {
		if err := f.set(meta, w.key, w.value.(string), after); err != nil {
			return err
		}
		after = w.key
	}
	return nil
}

// exitKey is the exit delay annotation's key; empty when there is none.
func exitKey(a *preset.Annotations) string {
	if a.ExitDelay == nil {
		return ""
	}
	return a.ExitDelay.Key
}

// formatDelay writes seconds as the annotation's format asks.
func formatDelay(format string, seconds int64) string {
	if format == preset.FormatSeconds {
		return fmt.Sprint(seconds)
	}
	return (time.Duration(seconds) * time.Second).String()
}
