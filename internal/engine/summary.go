package engine

import (
	"fmt"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// outcome says what happened to one workload.
type outcome int

// Outcomes, counted in the closing summary.
const (
	// outcomeUntouched is a resource the function does not handle or left as it was.
	outcomeUntouched outcome = iota
	// outcomeOrdered is a workload whose sidecars were ordered in spec.containers.
	outcomeOrdered
	// outcomeConverted is a workload whose sidecars became native sidecars.
	outcomeConverted
	// outcomeAnnotated is a workload that got the mesh's own annotations.
	outcomeAnnotated
	// outcomeAdjusted is a workload whose sidecars were native sidecars already
	// and that got other edits (their place, a probe, the grace period).
	outcomeAdjusted
	// outcomeSkipped is a workload left alone by an annotation or its Namespace.
	outcomeSkipped
	// outcomeFailed is a workload with an error result.
	outcomeFailed
)

// summary counts the outcomes of a run for the closing result.
type summary struct {
	counts       [outcomeFailed + 1]int
	annotatedToo int
}

// add counts one outcome.
func (s *summary) add(o outcome) { s.counts[o]++ }

// addItem counts one item's outcome; a workload that was ordered or
// converted and also got mesh annotations counts as annotated too.
func (s *summary) addItem(r itemResult) {
	s.add(r.outcome)
	if r.annotated && r.outcome != outcomeAnnotated && r.outcome != outcomeFailed {
		s.annotatedToo++
	}
}

// message is the closing summary line.
func (s *summary) message(action config.Action) string {
	c := s.counts
	if action == config.ActionValidate {
		return fmt.Sprintf("validate: %s not as configured, skipped %d",
			plural(c[outcomeOrdered]+c[outcomeConverted]+c[outcomeAnnotated]+c[outcomeAdjusted], "workload"), c[outcomeSkipped])
	}
	msg := fmt.Sprintf("ordered %s, converted %d to native sidecars, annotated %d, skipped %d",
		plural(c[outcomeOrdered], "workload"), c[outcomeConverted], c[outcomeAnnotated]+s.annotatedToo, c[outcomeSkipped])
	if c[outcomeFailed] > 0 {
		msg += fmt.Sprintf("; %s failed, so nothing was changed", plural(c[outcomeFailed], "resource"))
	}
	return msg
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
