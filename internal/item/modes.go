package item

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/endpoint"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/grace"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/hook"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/native"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/ordered"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/podspec"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// orderedFilters returns the ordered-mode edits for the sidecars found in
// spec.containers, and reports what ordered mode cannot guarantee.
func (t *Editor) orderedFilters(w *workload.Workload, spec *yaml.RNode, sidecars, injected []sidecarPlan, p plan, log *report.Log) []kio.Filter {
	s := &t.Config.Spec
	sleepAction := s.Version().AtLeast(config.SleepActionMinor)
	sidecarNames := names(sidecars)
	endpoints, reported := readiness(w, spec, sidecars, false, log)
	filters := append(endpoints, ordered.MoveFirst{Names: sidecarNames, Log: log})
	for _, sc := range sidecars {
		filters = append(filters,
			ordered.WaitForReady{Container: sc.Name, Command: sc.waitCommand, ExistingHooks: s.ExistingHooks, Log: log},
			ordered.ExitDelay{
				Container: sc.Name, Seconds: config.Seconds(sc.waitBeforeExit),
				Sleep:          ordered.Sleep{Action: sleepAction, Command: sc.SleepCommand},
				NoSleepMessage: s.NoSleepMessage(sc.preset.Name),
				ExistingHooks:  s.ExistingHooks, Log: log,
			})
	}
	floor, whose := exitFloor(nil, injected)
	filters = append(filters, t.drainAndGrace(append(sidecarNames, names(injected)...), p, floor, whose, log)...)
	warnOrdered(w, spec, s, sidecars, reported, p, log)
	return filters
}

// nativeFilters returns the native-mode edits for the sidecars found in
// either container list. The init containers that run before the sidecars
// are every mesh's own and, as its injector places them, those of each
// sidecar converted (Vault's vault-agent-init, which renders what the agent
// reads): a sidecar a chart writes itself next to them keeps that order.
func (t *Editor) nativeFilters(w *workload.Workload, spec *yaml.RNode, sidecars, injected []sidecarPlan, p plan, log *report.Log) []kio.Filter {
	convert := native.Convert{MeshInit: preset.MeshInitContainers(), ReplaceHooks: t.Config.Spec.ExistingHooks == config.HooksReplace, Log: log}
	floor, whose := exitFloor(sidecars, injected)
	filters, _ := readiness(w, spec, sidecars, true, log)
	for _, sc := range sidecars {
		for _, name := range sc.preset.InitContainers {
			if !slices.Contains(convert.MeshInit, name) {
				convert.MeshInit = append(convert.MeshInit, name)
			}
		}
		convert.Sidecars = append(convert.Sidecars, native.Sidecar{
			Name: sc.Name, StartupProbe: configProbe(sc.StartupProbe), DefaultProbe: sc.defaultProbe, WaitCommand: sc.waitCommand,
			PreStop: sc.nativePreStop,
		})
	}
	filters = append(filters, convert)
	return append(filters, t.drainAndGrace(append(names(sidecars), names(injected)...), p, floor, whose, log)...)
}

// readiness fits each sidecar's wait command (ordered) or startup probe
// (native) to its readiness endpoint as the container sets it, and returns
// the filters that switch endpoints on (package endpoint), and the
// sidecars for which it has said why no wait command is written.
func readiness(w *workload.Workload, spec *yaml.RNode, sidecars []sidecarPlan, nativeMode bool, log *report.Log) ([]kio.Filter, map[string]bool) {
	var filters []kio.Filter
	reported := map[string]bool{}
	for i := range sidecars {
		sc := &sidecars[i]
		s := endpoint.Sidecar{Name: sc.Name, Preset: sc.preset, Native: nativeMode, StartupProbe: configProbe(sc.StartupProbe), Log: log,
			Require: sc.HealthCheck == config.HealthCheckRequire}
		if sc.WaitForReady != nil {
			s.WaitForReady = sc.WaitForReady.Command
		}
		r := s.Resolve(spec, strings.Join(w.SpecPath, "."))
		if !r.Decided {
			continue
		}
		if !nativeMode {
			sc.waitCommand = r.WaitCommand
			reported[sc.Name] = len(r.WaitCommand) == 0
		}
		sc.defaultProbe = r.StartupProbe
		filters = append(filters, r.Filters...)
	}
	return filters, reported
}

// configProbe returns the config's startupProbe when it has a handler; an
// empty one means the preset's or the readinessProbe.
func configProbe(p *corev1.Probe) *corev1.Probe {
	if p == nil || (p.Exec == nil && p.HTTPGet == nil && p.TCPSocket == nil && p.GRPC == nil) {
		return nil
	}
	return p
}

// drainAndGrace returns the application drain delay and the grace period
// edits; floor is the longest exit beyond the pod's preStops, whose says whose.
func (t *Editor) drainAndGrace(sidecars []string, p plan, floor int64, whose string, log *report.Log) []kio.Filter {
	s := &t.Config.Spec
	return []kio.Filter{
		ordered.AppDrain{Sidecars: sidecars, Seconds: config.Seconds(p.drainDelay),
			Sleep: ordered.Sleep{Action: s.Version().AtLeast(config.SleepActionMinor), Command: preset.DefaultSleepCommand}, Log: log},
		grace.Filter{Policy: s.TerminationGracePeriod.Policy, Margin: s.TerminationGracePeriod.Margin.Value, Floor: floor, FloorName: whose, Log: log},
	}
}

// warnOrdered reports what ordered mode cannot guarantee for this
// workload; reported are the sidecars whose missing wait command package
// endpoint has explained. What the config or the catalog alone decides (a
// sidecar without a wait command, a command without a timeout, the order
// of the exit delays) reads the same for every workload: it is a shared
// warning, said once for the run.
func warnOrdered(w *workload.Workload, spec *yaml.RNode, s *config.Spec, sidecars []sidecarPlan, reported map[string]bool, p plan, log *report.Log) {
	for i, sc := range sidecars {
		switch {
		case len(sc.waitCommand) == 0 && !reported[sc.Name]:
			log.WarnShared(report.KindReadiness, report.Container(podspec.Containers, sc.Name, "lifecycle", hook.PostStart), "%s is moved first but has no wait command: order alone does not wait for its readiness; set waitForReady", sc.Name)
		case sc.WaitForReady != nil && !hasTimeout(sc.waitCommand):
			log.WarnShared(report.KindReadiness, report.Container(podspec.Containers, sc.Name, "lifecycle", hook.PostStart), "the waitForReady command of %s has no timeout the function recognises: a postStart that never returns blocks the pod, which cannot even be deleted while it runs", sc.Name)
		}
		for _, later := range sidecars[i+1:] {
			if sc.waitBeforeExit < later.waitBeforeExit {
				log.WarnShared(report.KindHook, report.Container(podspec.Containers, sc.Name, "lifecycle", hook.PreStop), "%s starts before %s but would exit earlier (waitBeforeExit %s < %s): give %s a waitBeforeExit of at least %s, or list %s before it in spec.sidecars",
					sc.Name, later.Name, config.FormatDuration(sc.waitBeforeExit), config.FormatDuration(later.waitBeforeExit),
					sc.Name, config.FormatDuration(later.waitBeforeExit), later.Name)
			}
		}
	}
	warnJob(w, p, s.Version(), log)
}

// warnJob warns that a Job's sidecar keeps it running in ordered mode.
func warnJob(w *workload.Workload, p plan, v config.Version, log *report.Log) {
	if !w.IsJob() || p.mode == config.ModeNative {
		return
	}
	native := "mode native lets it complete"
	if !v.AtLeast(config.NativeSidecarMinor) {
		native += fmt.Sprintf(" (kubernetesVersion 1.%d or newer)", config.NativeSidecarMinor)
	}
	log.Warn(report.KindPlacement, report.Pod(""), "%s in ordered mode: a sidecar that never exits keeps the Job running; %s", w.Kind, native)
}
