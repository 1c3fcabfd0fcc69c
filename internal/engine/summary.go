package engine

import (
	"fmt"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/item"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// summary counts the outcomes of a run for the closing result.
type summary struct {
	counts       [item.OutcomeFailed + 1]int
	annotatedToo int
}

// add counts one outcome.
func (s *summary) add(o item.Outcome) { s.counts[o]++ }

// addItem counts one item's outcome; a workload that was ordered or
// converted and also got mesh annotations counts as annotated too.
func (s *summary) addItem(r item.Result) {
	s.add(r.Outcome)
	if r.Annotated && r.Outcome != item.OutcomeAnnotated && r.Outcome != item.OutcomeFailed {
		s.annotatedToo++
	}
}

// message is the closing summary line.
func (s *summary) message(action config.Action) string {
	c := s.counts
	if action == config.ActionValidate {
		return fmt.Sprintf("validate: %s not as configured, skipped %d",
			plural(c[item.OutcomeOrdered]+c[item.OutcomeConverted]+c[item.OutcomeAnnotated]+c[item.OutcomeAdjusted], "workload"), c[item.OutcomeSkipped])
	}
	msg := fmt.Sprintf("ordered %s, converted %d to native sidecars, annotated %d, skipped %d",
		plural(c[item.OutcomeOrdered], "workload"), c[item.OutcomeConverted], c[item.OutcomeAnnotated]+s.annotatedToo, c[item.OutcomeSkipped])
	if c[item.OutcomeFailed] > 0 {
		msg += fmt.Sprintf("; %s failed, so nothing was changed", plural(c[item.OutcomeFailed], "resource"))
	}
	return msg
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
