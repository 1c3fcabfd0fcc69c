package ordered

import (
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/hook"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/podspec"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// WaitForReady gives a sidecar a postStart exec that blocks until it is
// ready, so that kubelet starts the next container only then. A postStart
// running the same program is taken as the function's own and updated; any
// other hook follows ExistingHooks.
type WaitForReady struct {
	// Container is the sidecar's name.
	Container string
	// Command blocks until the sidecar is ready.
	Command []string
	// ExistingHooks says what to do with a postStart the function did not write.
	ExistingHooks config.ExistingHooks
	// Log receives what changed.
	Log *report.Log
}

var _ kio.Filter = WaitForReady{}

// Filter applies the hook to each pod spec node.
func (f WaitForReady) Filter(specs []*yaml.RNode) ([]*yaml.RNode, error) {
	return kio.FilterAll(yaml.FilterFunc(f.filter)).Filter(specs)
}

func (f WaitForReady) filter(spec *yaml.RNode) (*yaml.RNode, error) {
	c := podspec.Find(spec, podspec.Containers, f.Container)
	if c == nil || len(f.Command) == 0 {
		return spec, nil
	}
	current, isExec := hook.Exec(c, hook.PostStart)
	switch {
	case hook.Get(c, hook.PostStart) == nil:
		f.Log.Change(report.Container(podspec.Containers, f.Container, "lifecycle", hook.PostStart).Values(nil, f.Command), "added postStart %s to %s", Argv(f.Command), f.Container)
	case isExec && hook.Equal(current, f.Command):
		return spec, nil
	case isExec && len(current) > 0 && current[0] == f.Command[0]:
		f.Log.Change(report.Container(podspec.Containers, f.Container, "lifecycle", hook.PostStart).Values(current, f.Command), "updated postStart of %s to %s", f.Container, Argv(f.Command))
	default:
		if !foreignHook(f.Log, f.ExistingHooks, f.Container, hook.PostStart, "it may not wait for readiness") {
			return spec, nil
		}
	}
	return spec, hook.SetExec(c, hook.PostStart, f.Command)
}

// Argv formats a command for a message as a JSON-style list, so that
// arguments with spaces read unambiguously.
func Argv(cmd []string) string {
	quoted := make([]string, len(cmd))
	for i, a := range cmd {
		quoted[i] = strconv.Quote(a)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// foreignHook applies the ExistingHooks policy to a hook the function did not
// write, and reports whether the hook is to be replaced.
func foreignHook(log *report.Log, policy config.ExistingHooks, container, name, risk string) bool {
	switch policy {
	case config.HooksReplace:
		log.Change(report.Container(podspec.Containers, container, "lifecycle", name), "replaced the %s hook of %s (existingHooks: replace)", name, container)
		return true
	case config.HooksFail:
		log.Fail(report.KindHook, report.Container(podspec.Containers, container, "lifecycle", name), "%s already has a %s hook that this function did not write: remove it, or set existingHooks to keep or replace", container, name)
	default:
		log.Warn(report.KindHook, report.Container(podspec.Containers, container, "lifecycle", name), "%s keeps its own %s hook (existingHooks: keep): %s; set existingHooks to replace to have the function write its own", container, name, risk)
	}
	return false
}

// Sleep is how a preStop delay is written: the lifecycle sleep action, or an
// exec of a sleep binary where the cluster has no sleep action.
type Sleep struct {
	// Action uses the sleep action (Kubernetes 1.30 and newer).
	Action bool
	// Command is the sleep binary and leading arguments used without Action.
	Command []string
}

// set writes the delay as the container's preStop.
func (s Sleep) set(c *yaml.RNode, seconds int64) error {
	if s.Action {
		return hook.SetSleep(c, hook.PreStop, seconds)
	}
	return hook.SetExec(c, hook.PreStop, append(append([]string(nil), s.Command...), fmt.Sprint(seconds)))
}

// matches reports whether the container's preStop is already this delay.
func (s Sleep) matches(c *yaml.RNode, seconds int64) bool {
	if s.Action {
		got, ok := hook.SleepAction(c, hook.PreStop)
		return ok && got == seconds
	}
	cmd, ok := hook.Exec(c, hook.PreStop)
	return ok && hook.Equal(cmd, append(append([]string(nil), s.Command...), fmt.Sprint(seconds)))
}

// usable reports whether the delay can be written at all.
func (s Sleep) usable() bool { return s.Action || len(s.Command) > 0 }

// ExitDelay gives a sidecar a preStop that sleeps, so that it keeps serving
// while the application drains. A preStop that only sleeps is taken as the
// function's own and updated; any other hook follows ExistingHooks.
type ExitDelay struct {
	// Container is the sidecar's name.
	Container string
	// Seconds is the delay; 0 leaves the container alone.
	Seconds int64
	// Sleep says how the delay is written.
	Sleep Sleep
	// NoSleepMessage explains what to do when Sleep is not usable.
	NoSleepMessage string
	// ExistingHooks says what to do with a preStop the function did not write.
	ExistingHooks config.ExistingHooks
	// Log receives what changed.
	Log *report.Log
}

var _ kio.Filter = ExitDelay{}

// Filter applies the delay to each pod spec node.
func (f ExitDelay) Filter(specs []*yaml.RNode) ([]*yaml.RNode, error) {
	return kio.FilterAll(yaml.FilterFunc(f.filter)).Filter(specs)
}

func (f ExitDelay) filter(spec *yaml.RNode) (*yaml.RNode, error) {
	c := podspec.Find(spec, podspec.Containers, f.Container)
	if c == nil || f.Seconds <= 0 || f.Sleep.matches(c, f.Seconds) {
		return spec, nil
	}
	if !f.Sleep.usable() {
		f.Log.Fail(report.KindHook, report.Container(podspec.Containers, f.Container, "lifecycle", hook.PreStop), "%s: waitBeforeExit %ds: %s", f.Container, f.Seconds, f.NoSleepMessage)
		return spec, nil
	}
	_, ownSleep := hook.SleepSeconds(c, hook.PreStop)
	switch {
	case hook.Get(c, hook.PreStop) == nil:
		f.Log.Change(report.Container(podspec.Containers, f.Container, "lifecycle", hook.PreStop), "added preStop sleep %ds to %s", f.Seconds, f.Container)
	case ownSleep:
		f.Log.Change(report.Container(podspec.Containers, f.Container, "lifecycle", hook.PreStop), "set preStop sleep of %s to %ds", f.Container, f.Seconds)
	default:
		if !foreignHook(f.Log, f.ExistingHooks, f.Container, hook.PreStop, "it may exit before the application drains") {
			return spec, nil
		}
	}
	return spec, f.Sleep.set(c, f.Seconds)
}

// AppDrain gives every application container that has no preStop a sleep
// preStop, so that it keeps serving while endpoints are removed.
type AppDrain struct {
	// Sidecars are the sidecar names, which are left alone.
	Sidecars []string
	// Seconds is the delay; 0 leaves every container alone.
	Seconds int64
	// Sleep says how the delay is written.
	Sleep Sleep
	// Log receives what changed.
	Log *report.Log
}

var _ kio.Filter = AppDrain{}

// Filter applies the drain delay to each pod spec node.
func (f AppDrain) Filter(specs []*yaml.RNode) ([]*yaml.RNode, error) {
	return kio.FilterAll(yaml.FilterFunc(f.filter)).Filter(specs)
}

func (f AppDrain) filter(spec *yaml.RNode) (*yaml.RNode, error) {
	if f.Seconds <= 0 {
		return spec, nil
	}
	if !f.Sleep.usable() {
		return nil, fmt.Errorf("app drain delay %ds: no sleep action and no sleep command", f.Seconds)
	}
	sidecar := map[string]bool{}
	for _, n := range f.Sidecars {
		sidecar[n] = true
	}
	for _, name := range podspec.Names(spec, podspec.Containers) {
		c := podspec.Find(spec, podspec.Containers, name)
		if sidecar[name] || hook.Get(c, hook.PreStop) != nil {
			continue
		}
		if err := f.Sleep.set(c, f.Seconds); err != nil {
			return nil, err
		}
		f.Log.Change(report.Container(podspec.Containers, name, "lifecycle", hook.PreStop), "added preStop sleep %ds to %s (app drain delay)", f.Seconds, name)
	}
	return spec, nil
}
