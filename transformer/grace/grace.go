// Package grace keeps a pod's terminationGracePeriodSeconds long enough for
// its longest preStop delay plus a margin.
package grace

import (
	"math"
	"strconv"
	"time"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/budget/prestop"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/hook"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/podspec"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/report"
)

// Field is the pod spec field the filter keeps consistent.
const Field = "terminationGracePeriodSeconds"

// DefaultSeconds is what Kubernetes uses when the field is absent.
const DefaultSeconds = 30

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
	n, err := spec.Pipe(yaml.Lookup(Field))
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
	longest, name := Longest(spec)
	if f.Floor > longest {
		longest, name = f.Floor, "waitBeforeExit"
	}
	if longest == 0 {
		return spec, nil
	}
	current := Current(spec)
	required := longest + config.Seconds(f.Margin)
	if required < longest { // past the int64 the API server takes
		required = math.MaxInt64
	}
	if current < required {
		switch f.Policy {
		case config.GraceRaise:
			if err := hook.SetInt(spec, Field, required); err != nil {
				return nil, err
			}
			f.Log.Change("raised %s from %d to %d (%s %ds + margin %s)", Field, current, required, name, longest, f.Margin)
			current = required
		case config.GraceWarn:
			f.Log.Warn("%s is %d, shorter than %s (%ds) + margin %s = %d: the pod may be killed before it drains",
				Field, current, name, longest, f.Margin, required)
		}
	}
	for _, c := range podspec.All(spec) {
		if s, ok := hook.SleepAction(c, hook.PreStop); ok && s > current {
			f.Log.Fail("the preStop sleep action of %s (%ds) is longer than %s (%d), which the API server rejects: "+
				"raise %s or set terminationGracePeriod.policy to raise", podspec.Name(c.YNode()), s, Field, current, Field)
		}
	}
	return spec, nil
}
