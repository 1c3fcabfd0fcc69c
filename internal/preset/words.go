package preset

import (
	"strconv"
	"strings"
)

// said reports whether a value says the word.
func said(w Word, v string) bool {
	if w.Value != AnyValue && v != w.Value {
		return false
	}
	for _, item := range strings.Split(v, ",") {
		for _, u := range w.Unless {
			if strings.TrimSpace(item) == u {
				return false
			}
		}
	}
	return true
}

// wordString names the word as found, for a message: the pod template's label
// linkerd.io/control-plane-component "identity" (the mesh's control plane).
func wordString(w Word, where, value string) string {
	kind := "annotation " + w.Annotation
	switch {
	case w.Label != "":
		kind = "label " + w.Label
	case w.Env != "":
		kind = "environment variable " + w.Env
	}
	return kind + " " + strconv.Quote(value) + " on " + where + ": " + w.Says
}

// Env is an environment variable of a container, as words read it.
type Env struct {
	// Container is the container's name.
	Container string
	// Name and Value are the variable's; Value is empty for one taken
	// from a reference.
	Name, Value string
}

// LeftAlone lists the vendor's words on the pod that its sidecar there
// runs as the vendor wrote it (LeaveAlone), each named as found; env are
// the environment variables of the pod's containers.
func (p Preset) LeftAlone(pod Pod, env []Env) []string {
	var out []string
	for _, w := range p.LeaveAlone {
		switch {
		case w.Env != "":
			for _, e := range env {
				if e.Name == w.Env && said(w, e.Value) {
					out = append(out, wordString(w, "container "+strconv.Quote(e.Container), e.Value))
					break
				}
			}
		case w.Label != "":
			if v, ok := pod.TemplateLabel(w.Label); ok && said(w, v) {
				out = append(out, wordString(w, "the pod template", v))
			}
		default:
			if v, ok := pod.Annotation(w.Annotation); ok && said(w, v) {
				out = append(out, wordString(w, "the pod template", v))
			}
		}
	}
	return out
}
