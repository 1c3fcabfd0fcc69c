// Package budget keeps one termination budget per workload: the load
// balancer's deregistration delay is not longer than the application's
// drain (its preStop), which ends before each sidecar leaves, and every
// preStop plus the margin fits in terminationGracePeriodSeconds. It reads
// the pod specs, and the Ingresses, Services and BackendConfigs of the same
// input, as facts collected while the items stream past, and resolves them
// at the end.
package budget

import (
	"math"
	"strconv"
	"strings"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget/prestop"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/grace"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/hook"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/podspec"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// Severity is the severity of a budget break: a warning, an error with
// action validate.
func Severity(action config.Action) fn.Severity {
	if action == config.ActionValidate {
		return fn.Error
	}
	return fn.Warning
}

// Container is the budget's view of one container.
type Container struct {
	// Name is the container's name.
	Name string
	// Image is the container's image.
	Image string
	// Sidecar is set for a sidecar the config names, and for a native sidecar.
	Sidecar bool
	// Native is set for an init container with restartPolicy Always.
	Native bool
	// PreStop is the duration of its preStop hook.
	PreStop prestop.Duration
	// PostStart is the exec command of its postStart hook, if any.
	PostStart []string
	// StartupProbe reports whether it has a startupProbe.
	StartupProbe bool
}

// Pod is the budget's view of one pod spec.
type Pod struct {
	// Grace is terminationGracePeriodSeconds, the Kubernetes default when absent.
	Grace int64
	// Init are the init containers, in order.
	Init []Container
	// Containers are spec.containers, in order.
	Containers []Container
	// Injected are the sidecars the mesh adds at admission, which
	// ReadPod does not see; the caller that knows them sets them.
	Injected []Injected
}

// ReadPod reads a pod spec; sidecars are the container names the config
// lists as sidecars.
func ReadPod(spec *yaml.RNode, sidecars map[string]bool) Pod {
	p := Pod{Grace: grace.Current(spec)}
	for _, field := range []string{podspec.InitContainers, podspec.Containers} {
		seq := podspec.List(spec, field)
		if seq == nil {
			continue
		}
		for _, n := range seq.YNode().Content {
			c := yaml.NewRNode(n)
			name := podspec.Name(n)
			ct := Container{Name: name, Sidecar: sidecars[name], PreStop: prestop.Read(c)}
			if image := c.Field("image"); image != nil {
				ct.Image = yaml.GetValue(image.Value)
			}
			ct.PostStart, _ = hook.Exec(c, hook.PostStart)
			if probe, err := tree.Lookup(c, "startupProbe"); err == nil && probe != nil {
				ct.StartupProbe = true
			}
			if field == podspec.InitContainers {
				if rp, err := tree.Lookup(c, "restartPolicy"); err == nil && rp != nil && yaml.GetValue(rp) == "Always" {
					ct.Native, ct.Sidecar = true, true
				}
				p.Init = append(p.Init, ct)
				continue
			}
			p.Containers = append(p.Containers, ct)
		}
	}
	return p
}

// Apps returns the application containers: spec.containers that are not sidecars.
func (p Pod) Apps() []Container {
	var apps []Container
	for _, c := range p.Containers {
		if !c.Sidecar {
			apps = append(apps, c)
		}
	}
	return apps
}

// OrderedSidecars are the sidecars in spec.containers, whose exits the
// ordered-mode check compares with the application's drain.
func (p Pod) OrderedSidecars() []string {
	var out []string
	for _, c := range p.Containers {
		if c.Sidecar {
			out = append(out, c.Name)
		}
	}
	return out
}

// Drain is the application's drain: the longest preStop of its containers.
type Drain struct {
	// Seconds is the longest preStop the function can read.
	Seconds int64
	// Container is whose preStop it is; empty when no app container has one.
	Container string
	// Unknown lists the app containers whose preStop the function cannot read.
	Unknown []Container
}

// Drain returns the application's drain.
func (p Pod) Drain() Drain {
	var d Drain
	for _, c := range p.Apps() {
		switch {
		case !c.PreStop.Known:
			d.Unknown = append(d.Unknown, c)
		case c.PreStop.Present && (d.Container == "" || c.PreStop.Seconds > d.Seconds):
			d.Seconds, d.Container = c.PreStop.Seconds, c.Name
		}
	}
	return d
}

// Exit is when a sidecar leaves in ordered mode: when its preStop ends and
// it gets SIGTERM, or, for a sidecar injected at admission, when its own
// exit settings let it go.
type Exit struct {
	// Name is the sidecar's name.
	Name string
	// Seconds is when it leaves, after termination starts; for UntilIdle
	// the shortest time it stays.
	Seconds int64
	// Injected is set for a sidecar the mesh adds at admission.
	Injected bool
	// Source names the setting Seconds was read from, with its value.
	Source string
	// UntilIdle says it stays until its open connections have closed,
	// which cannot be before the application has exited.
	UntilIdle bool
	// Problem says why the setting in Source cannot be read; Seconds is
	// then not valid.
	Problem string
	// Native says the injector adds it as a native sidecar, which kubelet
	// stops after the containers.
	Native bool
}

// outlastsDrain reports whether a sidecar stays at least as long as the
// application, whatever its drain: it leaves once the application has
// exited, or its exit cannot be read and is not checked.
func (e Exit) outlastsDrain() bool {
	return e.UntilIdle || e.Native || e.Problem != ""
}

// who names the sidecar in a message.
func (e Exit) who() string {
	if e.Injected {
		return e.Name + " (injected by the mesh)"
	}
	return e.Name
}

// leaves says when it leaves, and what says so.
func (e Exit) leaves() string {
	if e.Source == "" {
		return "leaves at " + seconds(e.Seconds)
	}
	return "leaves at " + seconds(e.Seconds) + " (" + e.Source + ")"
}

// OrderedBreaks returns one message for each sidecar that leaves before the
// application's longest readable preStop ends. The sidecars are those in
// spec.containers (their own preStop counts) and the injected ones.
// longestExit is the longest waitBeforeExit the config can ask for, in
// seconds (config.MaxDelay minus the margin): the fix a message suggests
// stays within it.
func (p Pod) OrderedBreaks(injected []Exit, longestExit int64) report.Findings {
	d := p.Drain()
	if d.Container == "" || d.Seconds == 0 {
		return nil
	}
	exits := append([]Exit(nil), injected...)
	for _, c := range p.Containers {
		if c.Sidecar && c.PreStop.Known {
			exits = append(exits, Exit{Name: c.Name, Seconds: c.PreStop.Seconds})
		}
	}
	var out report.Findings
	for _, e := range exits {
		if e.outlastsDrain() || e.Seconds > d.Seconds {
			continue
		}
		out = append(out, report.Finding{Kind: report.KindBudget, Severity: fn.Warning, Field: e.field(d), Detail: e.who() + " " + e.leaves() + ", before the preStop of " + d.Container + " (" + seconds(d.Seconds) +
			") ends: the application loses its network while it drains; " + exitFix(d, longestExit)})
	}
	return out
}

// field is where an exit that ends before the drain is set: the sidecar's
// preStop, or for one the mesh injects, the preStop of the drain.
func (e Exit) field(d Drain) report.Field {
	name := e.Name
	if e.Injected {
		name = d.Container
	}
	return report.Container(podspec.Containers, name, "lifecycle", "preStop")
}

// exitFix says how a sidecar can outlast the drain: a waitBeforeExit above
// it, or auto, where the config allows one that long; else a shorter drain.
func exitFix(d Drain, longestExit int64) string {
	switch {
	case d.Seconds <= longestExit-AutoAllowance:
		return "set waitBeforeExit above " + seconds(d.Seconds) + ", or to auto"
	case d.Seconds < longestExit:
		return "set waitBeforeExit above " + seconds(d.Seconds)
	}
	return "waitBeforeExit can be at most " + seconds(longestExit) + " (" + config.FormatDuration(config.MaxDelay) +
		" less spec.terminationGracePeriod.margin), so shorten the preStop of " + d.Container
}

func seconds(s int64) string { return strconv.FormatInt(s, 10) + "s" }

// AutoAllowance is what waitBeforeExit auto adds to the application's
// drain, in seconds: time for the application to finish after its preStop,
// once it has SIGTERM.
const AutoAllowance = 5

// AutoExit is waitBeforeExit auto for the pod: the longest application
// preStop the function can read, or drainDelay for an application container
// without a preStop (the function adds that one), plus AutoAllowance. It
// reports false when there is nothing to read.
func (p Pod) AutoExit(drainDelay int64) (int64, bool) {
	var longest int64
	found := false
	for _, c := range p.Apps() {
		switch {
		case c.PreStop.Present && c.PreStop.Known:
			longest, found = max(longest, c.PreStop.Seconds), true
		case !c.PreStop.Present && drainDelay > 0:
			longest, found = max(longest, drainDelay), true
		}
	}
	return min(longest, math.MaxInt64-AutoAllowance) + AutoAllowance, found
}

// NoDrain says why AutoExit has nothing to read with this drain delay.
func (p Pod) NoDrain(drainDelay int64) string {
	apps := p.Apps()
	if len(apps) == 0 {
		return "the pod has no application container"
	}
	var unknown []string
	for _, c := range apps {
		if !c.PreStop.Known {
			unknown = append(unknown, c.Name+": "+c.PreStop.Form)
		}
	}
	switch {
	case len(unknown) == 0:
		return "no application container has a preStop and app.drainDelay is 0"
	case drainDelay == 0:
		return "no application preStop has a duration the function can read (" + strings.Join(unknown, "; ") + ") and app.drainDelay is 0"
	}
	return "no application preStop has a duration the function can read (" + strings.Join(unknown, "; ") + ")"
}
