package config_test

import (
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// TestPodSpecPathsBuiltIn: an entry that gives a built-in kind another pod
// spec path is an error naming the entry; one that repeats a built-in kind
// as it is changes nothing and is accepted.
func TestPodSpecPathsBuiltIn(t *testing.T) {
	spec := header + "spec:\n  podSpecPaths:\n"
	for _, tc := range []struct {
		name, entries string
		wantPaths     []string
		wantMsg       string
	}{
		{"Deployment elsewhere", "  - {group: example.com, kind: Widget, path: spec/pod}\n  - {group: apps, kind: Deployment, path: spec/pod}\n",
			[]string{"spec.podSpecPaths[1]"}, "redefines the built-in kind Deployment (group apps), whose pod spec is at spec/template/spec: remove this entry"},
		{"Pod in the core group", "  - {kind: Pod, path: spec/template/spec}\n",
			[]string{"spec.podSpecPaths[0]"}, "redefines the built-in kind Pod (the core group), whose pod spec is at spec: remove this entry"},
		{"CronJob of one version", "  - {group: batch, version: v1, kind: CronJob, path: spec/template/spec}\n",
			[]string{"spec.podSpecPaths[0]"}, "built-in kind CronJob (group batch)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkFieldError(t, spec+tc.entries, tc.wantPaths, tc.wantMsg)
		})
	}
	for _, ok := range []string{
		"  - {group: argoproj.io, kind: Rollout, path: spec/template/spec}\n",
		"  - {group: apps, version: v1, kind: StatefulSet, path: /spec/template/spec/}\n",
		"  - {group: example.com, kind: Deployment, path: spec/pod}\n",
	} {
		if _, err := config.LoadBytes([]byte(spec + ok)); err != nil {
			t.Errorf("%s: %v", strings.TrimSpace(ok), err)
		}
	}
}
