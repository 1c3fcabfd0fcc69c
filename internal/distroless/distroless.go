// Package distroless recognises images that have no shell and no sleep
// binary (distroless and static images), and warns about preStop hooks
// that exec one in such an image: kubelet cannot run them, so the delay
// they stand for never happens.
package distroless

import (
	"path"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/hook"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/podspec"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// shellPrograms are the programs such an image lacks that a preStop runs.
var shellPrograms = map[string]bool{"sleep": true, "sh": true, "bash": true, "ash": true, "dash": true, "busybox": true}

// Looks says what kind of shell-less image the reference names, or "" when
// it does not look like one: a sidecar's image the catalog says has no
// shell (presets), or a distroless, Chainguard or static base by its name.
func Looks(image string, presets []preset.Preset) string {
	for _, p := range presets {
		if p.ShellLess(image) {
			return p.Title + " image without a shell or sleep, per its catalog entry"
		}
	}
	ref, _, _ := strings.Cut(image, "@")
	repo, tag := ref, ""
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		repo, tag = ref[:i], ref[i+1:]
	}
	name := path.Base(repo)
	switch {
	case strings.Contains(repo, "/distroless/"):
		if strings.HasPrefix(tag, "debug") {
			return "" // the debug images carry busybox
		}
		return "distroless"
	case strings.HasPrefix(repo, "cgr.dev/chainguard/") && !strings.HasSuffix(tag, "-dev") && tag != "dev":
		return "a Chainguard image without -dev"
	case name == "scratch" || name == "static":
		return "static"
	case strings.HasSuffix(tag, "-distroless"):
		return "distroless"
	}
	return ""
}

// SleepCheck warns about every container of the pod spec whose preStop
// execs a sleep binary or a shell while its image looks distroless or
// static.
type SleepCheck struct {
	// SpecPath is the pod spec's field path, for messages.
	SpecPath string
	// SleepAction says whether the cluster has the lifecycle sleep action, the fix.
	SleepAction bool
	// Presets are the sidecars of the catalog and the config, whose
	// entries say which of their images have no shell; read only when a
	// preStop runs a shell or sleep.
	Presets func() []preset.Preset
	// Log receives the warnings.
	Log *report.Log
}

var _ kio.Filter = SleepCheck{}

// Filter checks each pod spec node.
func (f SleepCheck) Filter(specs []*yaml.RNode) ([]*yaml.RNode, error) {
	return kio.FilterAll(yaml.FilterFunc(f.filter)).Filter(specs)
}

func (f SleepCheck) filter(spec *yaml.RNode) (*yaml.RNode, error) {
	var presets []preset.Preset
	for _, field := range []string{podspec.InitContainers, podspec.Containers} {
		seq := podspec.List(spec, field)
		if seq == nil {
			continue
		}
		for i, n := range seq.YNode().Content {
			c := yaml.NewRNode(n)
			cmd, ok := hook.Exec(c, hook.PreStop)
			if !ok || len(cmd) == 0 || !shellPrograms[path.Base(cmd[0])] {
				continue
			}
			image := ""
			if img := c.Field("image"); img != nil {
				image = img.Value.YNode().Value
			}
			if presets == nil && f.Presets != nil {
				presets = f.Presets()
			}
			kind := Looks(image, presets)
			if kind == "" {
				continue
			}
			f.Log.Warn(report.KindHook, report.Container(field, podspec.Name(n), "lifecycle.preStop.exec.command").Values(cmd, nil),
				"%s.%s[%d].lifecycle.preStop.exec.command (container %q): image %q looks shell-less (%s) and has no %q: the preStop fails at shutdown and the container gets SIGTERM at once; %s",
				f.SpecPath, field, i, podspec.Name(n), image, kind, cmd[0], f.fix())
		}
	}
	return spec, nil
}

func (f SleepCheck) fix() string {
	if f.SleepAction {
		return "use the lifecycle sleep action (preStop: {sleep: {seconds: N}}) instead"
	}
	return "set kubernetesVersion to 1.30 or newer so that the delay is the lifecycle sleep action, or use an image variant with a shell"
}
