package explain

import (
	"fmt"
	"strings"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
)

// gantt writes the shutdown as a Mermaid gantt chart: a section per
// container and load balancer, a bar per preStop and per load balancer
// that still sends (crit where the budget breaks), a milestone for a
// preStop of unknown duration and for the grace deadline.
//
// Times are written in milliseconds (dateFormat x) and the axis shows
// seconds (%s). Mermaid 11 reads a task's start as milliseconds whatever
// the dateFormat, and its end in the dateFormat's unit: in seconds
// (dateFormat X) a milestone at 140 s would start at 0.14 s and be drawn
// half way, at 70 s.
func gantt(b *strings.Builder, tl budget.Timeline) {
	b.WriteString("```mermaid\ngantt\n")
	fmt.Fprintf(b, "    title %s: shutdown\n", mermaidText(tl.Name))
	b.WriteString("    dateFormat x\n    axisFormat %s\n")
	section := ""
	for _, bar := range tl.Bars {
		if bar.Row != section {
			section = bar.Row
			fmt.Fprintf(b, "    section %s\n", mermaidText(section))
		}
		tags := ""
		if bar.Breaks {
			tags = "crit, "
		}
		if bar.Unknown {
			fmt.Fprintf(b, "    %s, duration unknown :%smilestone, %d, %d\n", mermaidText(bar.Label), tags, millis(bar.Start), millis(bar.Start))
			continue
		}
		fmt.Fprintf(b, "    %s %ds :%s%d, %d\n", mermaidText(bar.Label), bar.End-bar.Start, tags, millis(bar.Start), millis(bar.End))
	}
	b.WriteString("    section deadline\n")
	fmt.Fprintf(b, "    grace period ends :milestone, %d, %d\n", millis(tl.Grace), millis(tl.Grace))
	b.WriteString("```\n")
}

// maxSeconds is the latest time a JavaScript Date holds (8.64e15 ms).
const maxSeconds = 8_640_000_000_000

// millis is seconds in milliseconds, the chart's unit; a time past the
// latest Date is drawn there (the tables show the real number).
func millis(seconds int64) int64 { return min(seconds, maxSeconds) * 1000 }
