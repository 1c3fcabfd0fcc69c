package item

import (
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/annotate"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/hook"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/podspec"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// optedOutHere reports whether a sidecar the workload opts out of is in the
// pod, or would have been annotated for: the workload counts as skipped.
func optedOutHere(spec *yaml.RNode, p plan) bool {
	for _, sc := range p.optedOut {
		if present(spec, sc.Name) || (sc.IfAbsent == config.IfAbsentAnnotate && sc.preset.Annotates() && !sc.notInjected) {
			return true
		}
	}
	return false
}

func present(spec *yaml.RNode, name string) bool {
	return podspec.Find(spec, podspec.Containers, name) != nil || podspec.Find(spec, podspec.InitContainers, name) != nil
}

// warnNativeOptOut warns about a proxy that is a native sidecar already in a
// workload whose mesh switch says native sidecars are off: the mesh's
// injector would make it a regular container again.
func warnNativeOptOut(w *workload.Workload, spec *yaml.RNode, p plan, log *report.Log) {
	if p.mode != config.ModeNative {
		return
	}
	for _, sc := range p.optedOut {
		if podspec.Find(spec, podspec.InitContainers, sc.Name) == nil {
			continue
		}
		if key, v, off := sc.preset.NativeSwitch(w); off {
			log.Warn(report.KindMeshAnnotation, report.Annotation(key).Values(v, nil), "%s is a native sidecar, but annotation %s says %q: the mesh injects it as a regular container next time; remove the annotation, or move %s back to containers",
				sc.Name, key, v, sc.Name)
		}
	}
}

// noApplication reports whether every container of spec.containers is a
// configured sidecar: a mesh gateway runs its proxy alone, and there is no
// application to order it for.
func noApplication(spec *yaml.RNode, p plan) bool {
	containers := podspec.Names(spec, podspec.Containers)
	if len(containers) == 0 {
		return false
	}
	sidecars := p.sidecarNames()
	for _, n := range containers {
		if !sidecars[n] {
			return false
		}
	}
	return true
}

// toConvert reports whether any sidecar is not a native sidecar yet: only
// then does the workload count as converted. One that is native already
// may still get edits (its place, its probe, the grace period).
func toConvert(spec *yaml.RNode, sidecars []sidecarPlan) bool {
	for _, sc := range sidecars {
		if podspec.Find(spec, podspec.Containers, sc.Name) != nil {
			return true
		}
		c := podspec.Find(spec, podspec.InitContainers, sc.Name)
		if c == nil {
			continue
		}
		if policy := c.Field("restartPolicy"); policy == nil || yaml.GetValue(policy.Value) != "Always" {
			return true
		}
	}
	return false
}

// inPodMeta keeps the mesh annotations of proxies that are in the pod true
// to the edits: the exit delay the function set, the mesh's native switch,
// and Istio's status annotation, which lists where each injected container
// is. It adds no mesh annotation the pod template does not have.
func inPodMeta(w *workload.Workload, spec *yaml.RNode, found []sidecarPlan, p plan, log *report.Log) error {
	meta, err := w.Meta()
	if err != nil || meta == nil {
		return err
	}
	native := p.mode == config.ModeNative
	var meshes []annotate.Mesh
	var status []kio.Filter
	for _, sc := range found {
		if !sc.preset.Annotates() {
			continue
		}
		meshes = append(meshes, annotate.Mesh{Preset: sc.preset, Native: native, WaitBeforeExit: exitDelaySet(spec, sc, native), InPod: true})
		if native && podspec.Find(spec, podspec.InitContainers, sc.Name) != nil {
			if f, ok := annotate.NativeStatus(sc.preset, sc.Name, log); ok {
				status = append(status, f)
			}
		}
	}
	if len(meshes) == 0 {
		return nil
	}
	return applyFilters(append([]kio.Filter{annotate.Filter{Meshes: meshes, Log: log}}, status...), meta)
}

// exitDelaySet returns the exit delay the function gave the sidecar in
// ordered mode, in seconds, or 0 when it set none (native mode, no delay
// configured, or another preStop kept).
func exitDelaySet(spec *yaml.RNode, sc sidecarPlan, native bool) int64 {
	want := config.Seconds(sc.waitBeforeExit)
	c := podspec.Find(spec, podspec.Containers, sc.Name)
	if native || want == 0 || c == nil {
		return 0
	}
	if got, ok := hook.SleepSeconds(c, hook.PreStop); ok && got == want {
		return want
	}
	return 0
}
