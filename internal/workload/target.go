package workload

import (
	"path"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// Selected reports whether the targets select the workload: any include
// entry (or none given) and no exclude entry. Selectors were validated with
// the config.
func Selected(w *Workload, t config.Targets) bool {
	included := len(t.Include) == 0
	for _, s := range t.Include {
		if Matches(w, s) {
			included = true
			break
		}
	}
	if !included {
		return false
	}
	for _, s := range t.Exclude {
		if Matches(w, s) {
			return false
		}
	}
	return true
}

// Matches reports whether every field the selector sets matches the workload.
func Matches(w *Workload, s config.Selector) bool {
	for _, f := range []struct{ pattern, value string }{
		{s.Group, w.Group}, {s.Version, w.Version}, {s.Kind, w.Kind}, {s.Name, w.Name}, {s.Namespace, w.Namespace},
	} {
		if f.pattern == "" {
			continue
		}
		if ok, err := path.Match(f.pattern, f.value); err != nil || !ok {
			return false
		}
	}
	return selectorMatches(s.LabelSelector, w.Labels()) && selectorMatches(s.AnnotationSelector, w.Annotations())
}

func selectorMatches(expr string, set map[string]string) bool {
	if expr == "" {
		return true
	}
	sel, err := labels.Parse(expr)
	if err != nil {
		return false
	}
	return sel.Matches(labels.Set(set))
}
