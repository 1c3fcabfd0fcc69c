package explain

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
)

// gantt writes the shutdown as a Mermaid gantt chart: a section per
// container and load balancer, a bar per preStop and per load balancer
// that still sends (crit where the budget breaks), a milestone for a
// preStop of unknown duration, for the grace deadline and for each node
// deadline that reaches the pod, each with the tail of kubelet's minimum
// grace after it where a container is still running then. The sections
// have short labels (chartRows), and the chart's label column is as wide
// as the longest needs (leftPadding, in an init directive, which every
// Mermaid since 8 reads, where front matter needs 10.5), so that no label
// runs over the bars; the table after the chart (rowTable) names in full each
// row a label shortens. The title, the workload's name, is cut to fit a
// narrow page; the heading above the chart has it in full.
//
// Times are written in milliseconds (dateFormat x) and the axis shows
// seconds (%s). Mermaid 11 reads a task's start as milliseconds whatever
// the dateFormat, and its end in the dateFormat's unit: in seconds
// (dateFormat X) a milestone at 140 s would start at 0.14 s and be drawn
// half way, at 70 s.
func gantt(b *strings.Builder, tl budget.Timeline, rows []chartRow) {
	fmt.Fprintf(b, "```mermaid\n%%%%{init: {\"gantt\": {\"leftPadding\": %d}}}%%%%\ngantt\n", labelColumn(rows))
	fmt.Fprintf(b, "    title %s\n", mermaidText(title(tl.Name)))
	b.WriteString("    dateFormat x\n    axisFormat %s\n")
	section := ""
	for _, bar := range tl.Bars {
		if bar.Row != section {
			section = bar.Row
			fmt.Fprintf(b, "    section %s\n", mermaidText(labelOf(rows, section)))
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
	fmt.Fprintf(b, "    section %s\n", deadlineSection)
	fmt.Fprintf(b, "    grace period ends :milestone, %d, %d\n", millis(tl.Grace), millis(tl.Grace))
	if tl.Tail > 0 {
		fmt.Fprintf(b, "    tail %ds :%d, %d\n", tl.Tail, millis(tl.Grace), millis(tl.Grace+tl.Tail))
	}
	for i, n := range tl.Nodes {
		tags := ""
		if n.Cuts {
			tags = "crit, "
		}
		fmt.Fprintf(b, "    %s :%smilestone, %d, %d\n", nodeLabel(i, len(tl.Nodes)), tags, millis(n.At), millis(n.At))
		if n.Tail > 0 {
			fmt.Fprintf(b, "    tail %ds :%s%d, %d\n", n.Tail, tags, millis(n.At), millis(n.At+n.Tail))
		}
	}
	b.WriteString("```\n")
}

// nodeLabel is the chart's label of the i-th of n node deadlines: short,
// as a milestone's label is drawn beside it; the timeline above the chart
// says where each deadline comes from.
func nodeLabel(i, n int) string {
	if n == 1 {
		return "node deadline"
	}
	return fmt.Sprintf("node deadline %d", i+1)
}

// deadlineSection is the label of the grace deadline's section.
const deadlineSection = "deadline"

// maxLabel is the most characters a section label has.
const maxLabel = 24

// chartRow is a section of the chart: a container, or a load balancer's
// resources, and its label.
type chartRow struct {
	name, label string
}

// shortened says whether the label is not the name.
func (r chartRow) shortened() bool { return r.label != plain(r.name) }

// chartRows labels the chart's sections, in the order of the bars: a
// container by its name, cut to maxLabel characters with "…" when longer;
// a load balancer, whose resources make a long name ("Ingress shop/web →
// Service shop/web"), "load balancer 1", 2 and so on. A label already
// taken, by another row or the deadline, gets the row's number.
func chartRows(bars []budget.Bar) []chartRow {
	var rows []chartRow
	seen := map[string]bool{}
	taken := map[string]bool{deadlineSection: true}
	balancers := 0
	for _, bar := range bars {
		if seen[bar.Row] {
			continue
		}
		seen[bar.Row] = true
		label := cut(plain(bar.Row), maxLabel)
		if bar.LoadBalancer() {
			balancers++
			label = fmt.Sprintf("load balancer %d", balancers)
		}
		if taken[label] {
			suffix := fmt.Sprintf(" (%d)", len(rows)+1)
			label = cut(label, maxLabel-len(suffix)) + suffix
		}
		taken[label] = true
		rows = append(rows, chartRow{name: bar.Row, label: label})
	}
	return rows
}

// rowTable writes, when a label shortens a row's name, a table of those
// labels with the names in full: a container's, a load balancer's
// resources.
func rowTable(b *strings.Builder, rows []chartRow) {
	header := "\n| chart row | container or load balancer |\n| --- | --- |\n"
	for _, r := range rows {
		if !r.shortened() {
			continue
		}
		b.WriteString(header)
		header = ""
		fmt.Fprintf(b, "| %s | %s |\n", markdownText(r.label), markdownText(r.name))
	}
}

// labelOf is the label of the row named name.
func labelOf(rows []chartRow, name string) string {
	for _, r := range rows {
		if r.name == name {
			return r.label
		}
	}
	return ""
}

// cut shortens s to n characters, the last one "…", when it is longer.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// sectionFont is the size in pixels of Mermaid's section labels
// (gantt.sectionFontSize), labelX where they start, and labelGap the space
// kept between the longest and the bars.
const (
	sectionFont = 11
	labelX      = 10
	labelGap    = 10
)

// titleFont is the size in pixels of Mermaid's gantt title, and maxTitle
// the widest it is written, to fit a page 640 pixels wide.
const (
	titleFont = 18
	maxTitle  = 600
)

// title is the chart's title: the workload's name, cut with "…" to
// maxTitle, and ": shutdown".
func title(name string) string {
	const suffix = ": shutdown"
	name, limit := plain(name), maxTitle-textWidth(suffix, titleFont)
	if textWidth(name, titleFont) <= limit {
		return name + suffix
	}
	runes := []rune(name)
	for len(runes) > 0 && textWidth(string(runes)+"…", titleFont) > limit {
		runes = runes[:len(runes)-1]
	}
	return string(runes) + "…" + suffix
}

// labelColumn is the width in pixels of the label column (Mermaid's
// gantt.leftPadding, 75 by default) that holds the longest label.
func labelColumn(rows []chartRow) int {
	width := 0
	for _, r := range rows {
		width = max(width, textWidth(r.label, sectionFont))
	}
	return max(75, labelX+width+labelGap)
}

// textWidth is an upper bound of the width in pixels of text in a font of
// that size, in the fonts Mermaid names (Trebuchet MS, Verdana, Arial) and
// their common stand-ins: m, w and capitals take the font's size, other
// ASCII characters two thirds of it, and any other character, which may
// be a wide one, one and a quarter.
func textWidth(s string, font int) int {
	width := 0
	for _, r := range s {
		switch {
		case r > unicode.MaxASCII:
			width += font * 5 / 4
		case r == 'm' || r == 'w' || unicode.IsUpper(r):
			width += font
		default:
			width += font * 2 / 3
		}
	}
	return width
}

// maxSeconds is the latest time a JavaScript Date holds (8.64e15 ms).
const maxSeconds = 8_640_000_000_000

// millis is seconds in milliseconds, the chart's unit; a time past the
// latest Date is drawn there (the tables show the real number).
func millis(seconds int64) int64 { return min(seconds, maxSeconds) * 1000 }
