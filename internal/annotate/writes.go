package annotate

import (
	"maps"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
)

// write is one annotation a dialect sets: its value or, with field, the
// value of one key of the mapping it holds (a boolean or a string).
type write struct {
	key, field string
	value      any
}

// holds are the annotations that hold the application until the sidecar
// is ready, in the entry's order.
func holds(a *preset.Annotations) []write {
	var out []write
	for _, kv := range a.Ordered {
		w := write{key: kv.Key, field: kv.Field, value: kv.Value}
		if kv.Field != "" {
			w.value = typed(kv.Value)
		}
		out = append(out, w)
	}
	return out
}

// exitWrite is the exit delay annotation set for the mesh, its seconds
// written by delay; false when none is set.
func exitWrite(m Mesh, delay func(format string, seconds int64) string) (write, bool) {
	a := m.Preset.Injector.Annotations
	if a == nil || a.ExitDelay == nil || m.WaitBeforeExit <= 0 {
		return write{}, false
	}
	return write{key: a.ExitDelay.Key, field: a.ExitDelay.Field, value: delay(a.ExitDelay.Format, m.WaitBeforeExit)}, true
}

// ordered are the holds and the exit delay a dialect sets for a mesh in
// ordered mode, in the order it writes them.
func ordered(m Mesh, delay func(format string, seconds int64) string) []write {
	a := m.Preset.Injector.Annotations
	if a == nil {
		return nil
	}
	out := holds(a)
	if w, ok := exitWrite(m, delay); ok {
		out = append(out, w)
	}
	return out
}

// Ordered returns the pod template's annotations as the filter leaves
// them for the meshes in ordered mode, as far as the sidecars' exits go:
// the holds and exit delays of each mesh set as its dialect sets them,
// every other annotation as it is. An annotation whose value should be a
// mapping and is not one is left as it is: the filter reports it when it
// writes. The annotations given are not changed.
func Ordered(annotations map[string]string, meshes []Mesh) map[string]string {
	out := make(map[string]string, len(annotations)+2)
	maps.Copy(out, annotations)
	for _, m := range meshes {
		d, ok := dialectOf(m.Preset)
		if !ok {
			continue
		}
		for _, w := range ordered(m, d.delay) {
			if w.field == "" {
				out[w.key] = w.value.(string)
				continue
			}
			if merged, err := MergeProxyConfig(out[w.key], [][2]any{{w.field, w.value}}); err == nil {
				out[w.key] = merged
			}
		}
	}
	return out
}
