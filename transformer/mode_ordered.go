package transformer

import (
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/grace"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/ordered"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/podspec"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/workload"
)

// present splits the plan's sidecars into those found in the pod spec's
// containers and the rest, applying ifAbsent: fail to the rest.
func present(spec *yaml.RNode, p plan, field string, log *report.Log) []sidecarPlan {
	var found []sidecarPlan
	for _, sc := range p.sidecars {
		if podspec.Find(spec, field, sc.Name) != nil {
			found = append(found, sc)
		}
	}
	return found
}

// orderedFilters returns the ordered-mode edits for the workload's sidecars
// that are present in spec.containers, and reports the warnings of the plan.
func (t *Transformer) orderedFilters(w *workload.Workload, spec *yaml.RNode, p plan, log *report.Log) ([]kio.Filter, Outcome) {
	s := &t.Config.Spec
	sidecars := present(spec, p, podspec.Containers, log)
	for _, sc := range p.sidecars {
		if !slices.ContainsFunc(sidecars, func(o sidecarPlan) bool { return o.Name == sc.Name }) {
			t.absent(spec, sc, log)
		}
	}
	if len(sidecars) == 0 {
		return nil, Untouched
	}
	sleepAction := s.Version().AtLeast(config.SleepActionMinor)
	names := make([]string, len(sidecars))
	filters := []kio.Filter{}
	for i, sc := range sidecars {
		names[i] = sc.Name
	}
	filters = append(filters, ordered.MoveFirst{Names: names, Log: log})
	for _, sc := range sidecars {
		filters = append(filters,
			ordered.WaitForReady{Container: sc.Name, Command: sc.waitCommand, ExistingHooks: s.ExistingHooks, Log: log},
			ordered.ExitDelay{
				Container: sc.Name, Seconds: config.Seconds(sc.waitBeforeExit),
				Sleep:          ordered.Sleep{Action: sleepAction, Command: sc.SleepCommand},
				NoSleepMessage: config.NoSleepBinary(sc.preset.Name, s.Version()),
				ExistingHooks:  s.ExistingHooks, Log: log,
			})
	}
	filters = append(filters,
		ordered.AppDrain{Sidecars: names, Seconds: config.Seconds(p.drainDelay),
			Sleep: ordered.Sleep{Action: sleepAction, Command: preset.DefaultSleepCommand}, Log: log},
		grace.Filter{Policy: s.TerminationGracePeriod.Policy, Margin: s.TerminationGracePeriod.Margin.Value, Log: log})
	warnOrdered(w, spec, sidecars, p, log)
	return filters, Ordered
}

// absent handles a sidecar whose container is not in spec.containers.
func (t *Transformer) absent(spec *yaml.RNode, sc sidecarPlan, log *report.Log) {
	if podspec.Find(spec, podspec.InitContainers, sc.Name) != nil {
		log.Warn("%s is an init container (native sidecar); ordered mode leaves it there", sc.Name)
		return
	}
	if sc.IfAbsent == config.IfAbsentFail {
		log.Fail("sidecar container %s is not in the pod (ifAbsent: fail)", sc.Name)
	}
}

// warnOrdered reports what ordered mode cannot guarantee for this workload.
func warnOrdered(w *workload.Workload, spec *yaml.RNode, sidecars []sidecarPlan, p plan, log *report.Log) {
	for i, sc := range sidecars {
		switch {
		case len(sc.waitCommand) == 0:
			log.Warn("%s is moved first but has no wait command: order alone does not wait for its readiness; set waitForReady", sc.Name)
		case sc.WaitForReady != nil && !hasTimeout(sc.waitCommand):
			log.Warn("the waitForReady command of %s has no timeout the function recognises: a postStart that never returns blocks the pod, which cannot even be deleted while it runs", sc.Name)
		}
		if p.drainDelay > 0 && sc.waitBeforeExit <= p.drainDelay {
			log.Warn("%s would exit before the application drains: waitBeforeExit %s is not longer than app.drainDelay %s", sc.Name, sc.waitBeforeExit, p.drainDelay)
		}
		for _, later := range sidecars[i+1:] {
			if sc.waitBeforeExit < later.waitBeforeExit {
				log.Warn("%s starts before %s but would exit earlier (waitBeforeExit %s < %s)", sc.Name, later.Name, sc.waitBeforeExit, later.waitBeforeExit)
			}
		}
		if arg := sc.preset.RequiredArg; arg != "" {
			c := podspec.Find(spec, podspec.Containers, sc.Name)
			if !containerHasArg(c, arg) {
				log.Warn("%s has no %s flag: its wait command and startup probe need it", sc.Name, arg)
			}
		}
	}
	if w.IsJob() {
		log.Warn("%s in ordered mode: a sidecar that never exits keeps the Job running; mode native lets it complete", w.Kind)
	}
}

// containerHasArg reports whether the container's command or args carry the flag.
func containerHasArg(c *yaml.RNode, flag string) bool {
	for _, field := range []string{"command", "args"} {
		seq, err := c.Pipe(yaml.Lookup(field))
		if err != nil || seq == nil {
			continue
		}
		for _, n := range seq.YNode().Content {
			if n.Value == flag || strings.HasPrefix(n.Value, flag+"=") || strings.HasPrefix(n.Value, flag+" ") {
				return true
			}
		}
	}
	return false
}
