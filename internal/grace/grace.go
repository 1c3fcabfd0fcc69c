// Package grace keeps a pod's terminationGracePeriodSeconds long enough for
// its longest preStop delay plus a margin.
package grace

import (
	"cmp"
	"math"
	"strconv"
	"time"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget/prestop"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/hook"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/podspec"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// Field is the pod spec field the filter keeps consistent.
const Field = "terminationGracePeriodSeconds"

// DefaultSeconds is what Kubernetes uses when the field is absent.
const DefaultSeconds = 30

// KubeletMaxSeconds is the longest grace period kubelet can count
// (config.KubeletMaxSeconds); the function never writes more.
const KubeletMaxSeconds = config.KubeletMaxSeconds

// Filter makes terminationGracePeriodSeconds cover the longest preStop of
// any container, the application's included, plus Margin, as Policy says, and fails when a sleep action
// would still be longer than the grace period (the API server rejects that).
type Filter struct {
	// Policy is raise, warn or keep.
	Policy config.GracePolicy
	// Margin is added to the longest preStop.
	Margin time.Duration
	// Floor is a delay to cover even when no preStop sleeps that long: a
	// native sidecar's configured waitBeforeExit, so that switching modes
	// never shortens the grace period.
	Floor int64
	// FloorName says whose the floor is, for messages; "waitBeforeExit"
	// when empty.
	FloorName string
	// Log receives what changed.
	Log *report.Log
}

var _ kio.Filter = Filter{}

// Filter applies the policy to each pod spec node.
func (f Filter) Filter(specs []*yaml.RNode) ([]*yaml.RNode, error) {
	return kio.FilterAll(yaml.FilterFunc(f.filter)).Filter(specs)
}

// Current returns the pod spec's grace period, the Kubernetes default when absent.
func Current(spec *yaml.RNode) int64 {
	n, err := tree.Lookup(spec, Field)
	if err != nil || n == nil || n.IsNil() {
		return DefaultSeconds
	}
	s, err := strconv.ParseInt(yaml.GetValue(n), 10, 64)
	if err != nil {
		return DefaultSeconds
	}
	return s
}

// Longest returns the longest preStop of any container whose duration the
// function can read (see package prestop), and says whose it is.
func Longest(spec *yaml.RNode) (int64, string) {
	var longest int64
	var name string
	for _, c := range podspec.All(spec) {
		if d := prestop.Read(c); d.Known && d.Seconds > longest {
			longest, name = d.Seconds, "preStop of "+podspec.Name(c.YNode())
		}
	}
	return longest, name
}

func (f Filter) filter(spec *yaml.RNode) (*yaml.RNode, error) {
	current := Current(spec)
	if current > KubeletMaxSeconds {
		f.Log.Warn(report.KindGracePeriod, report.Pod(Field).Values(current, KubeletMaxSeconds), "%s is %d, longer than kubelet can count: it multiplies the seconds by time.Second in an int64 of nanoseconds, "+
			"which wraps around above %d; set it to at most %d", Field, current, KubeletMaxSeconds, KubeletMaxSeconds)
	}
	longest, name := Longest(spec)
	if f.Floor > longest {
		longest, name = f.Floor, cmp.Or(f.FloorName, "waitBeforeExit")
	}
	if longest == 0 {
		return spec, nil
	}
	required := longest + config.Seconds(f.Margin)
	if required < longest { // past the int64 the API server takes
		required = math.MaxInt64
	}
	over := required > KubeletMaxSeconds
	if over && f.Policy != config.GraceKeep {
		f.Log.Warn(report.KindGracePeriod, report.Pod(Field).Values(current, nil), "%s %ds + margin %s needs a grace period of %d, longer than kubelet can count (at most %d seconds): "+
			"the pod is killed before it ends; shorten it", name, longest, f.Margin, required, KubeletMaxSeconds)
		required = KubeletMaxSeconds
	}
	if current < required {
		switch f.Policy {
		case config.GraceRaise:
			if err := hook.SetInt(spec, Field, required); err != nil {
				return nil, err
			}
			f.Log.Change(report.Pod(Field).Values(current, required), "raised %s from %d to %d (%s %ds + margin %s%s)", Field, current, required, name, longest, f.Margin, capped(longest, f.Margin, required))
			current = required
		case config.GraceWarn:
			if over {
				break // said above
			}
			f.Log.Warn(report.KindGracePeriod, report.Pod(Field).Values(current, required), "%s is %d, shorter than %s (%ds) + margin %s = %d: the pod may be killed before it drains; raise it to %d or set terminationGracePeriod.policy to raise",
				Field, current, name, longest, f.Margin, required, required)
		}
	}
	for _, c := range podspec.All(spec) {
		s, ok := hook.SleepAction(c, hook.PreStop)
		switch {
		case !ok || s <= current:
		case s > KubeletMaxSeconds:
			f.Log.Fail(report.KindHook, sleepField(spec, c).Values(s, nil), "the preStop sleep action of %s (%ds) is longer than %s (%d), which the API server rejects, and longer than kubelet can count (at most %d seconds): shorten it",
				podspec.Name(c.YNode()), s, Field, current, KubeletMaxSeconds)
		default:
			f.Log.Fail(report.KindHook, sleepField(spec, c).Values(s, nil), "the preStop sleep action of %s (%ds) is longer than %s (%d), which the API server rejects: "+
				"raise %s or set terminationGracePeriod.policy to raise", podspec.Name(c.YNode()), s, Field, current, Field)
		}
	}
	return spec, nil
}

// sleepField is the preStop sleep action's seconds of a container of the
// pod spec.
func sleepField(spec, c *yaml.RNode) report.Field {
	name := podspec.Name(c.YNode())
	list := podspec.Containers
	if found := podspec.Find(spec, list, name); found == nil || found.YNode() != c.YNode() {
		list = podspec.InitContainers
	}
	return report.Container(list, name, "lifecycle", hook.PreStop, "sleep.seconds")
}

// capped says, in a raise message, that the grace period written is
// KubeletMaxSeconds rather than the longest preStop plus the margin.
func capped(longest int64, margin time.Duration, written int64) string {
	if written == KubeletMaxSeconds && longest+config.Seconds(margin) != written {
		return ", capped at the most kubelet can count"
	}
	return ""
}
