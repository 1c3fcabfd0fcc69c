package explain

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// writeText writes each workload as a text table. Text from the input has
// its control characters escaped.
func writeText(w io.Writer, workloads []Workload) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(workloads) == 0 {
		fmt.Fprintln(tw, "no workload in the input is handled by the function")
	}
	for i, wl := range workloads {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		fmt.Fprintf(tw, "%s (terminationGracePeriodSeconds %d)\n", plain(wl.Name), wl.Grace)
		for _, n := range wl.Notes {
			fmt.Fprintf(tw, "  note: %s\n", plain(n))
		}
		for _, e := range wl.Errors {
			fmt.Fprintf(tw, "  error: %s (the function leaves it as it is)\n", plain(e))
		}
		fmt.Fprintln(tw, "\nstart-up order:")
		for j, s := range wl.Startup {
			fmt.Fprintf(tw, "  %d.\t%s\t%s\n", j+1, plain(s.Name), plain(s.Text))
		}
		if len(wl.CannotStart) > 0 {
			fmt.Fprintln(tw, "\nthe start-up order breaks: the containers after these never start")
			for _, b := range wl.CannotStart {
				fmt.Fprintf(tw, "  - %s\n", plain(b))
			}
		}
		fmt.Fprintln(tw, "\nshutdown:")
		fmt.Fprintln(tw, "  t (s)\t\tevent")
		for _, m := range wl.Marks {
			fmt.Fprintf(tw, "  %d\t%s\t%s\n", m.At, flag(m.Breaks, "!"), plain(m.Text))
		}
		switch {
		case len(wl.Breaks) == 0 && len(wl.CannotStart) > 0:
			continue // the pod never runs: nothing to say of its termination budget
		case len(wl.Breaks) == 0:
			fmt.Fprintln(tw, "\nthe termination budget holds")
			continue
		}
		fmt.Fprintln(tw, "\nthe termination budget breaks:")
		for _, b := range wl.Breaks {
			fmt.Fprintf(tw, "  - %s\n", plain(b))
		}
	}
	return tw.Flush()
}

func flag(on bool, s string) string {
	if on {
		return s
	}
	return ""
}

// writeMarkdown writes each workload as a Markdown section with a table, a
// Mermaid gantt chart and, when the chart's labels shorten names, a table
// of them. Text from the input is escaped for Markdown, and
// for Mermaid in the chart.
func writeMarkdown(w io.Writer, workloads []Workload) error {
	var b strings.Builder
	b.WriteString("# Termination budget\n")
	if len(workloads) == 0 {
		b.WriteString("\nNo workload in the input is handled by the function.\n")
	}
	for _, wl := range workloads {
		fmt.Fprintf(&b, "\n## %s\n\n", markdownText(wl.Name))
		fmt.Fprintf(&b, "terminationGracePeriodSeconds: %d\n", wl.Grace)
		for _, n := range wl.Notes {
			fmt.Fprintf(&b, "\n> **Note:** %s\n", markdownText(n))
		}
		for _, e := range wl.Errors {
			fmt.Fprintf(&b, "\n> **Error:** %s (the function leaves it as it is)\n", markdownText(e))
		}
		b.WriteString("\n### Start-up order\n\n")
		for i, s := range wl.Startup {
			fmt.Fprintf(&b, "%d. %s: %s\n", i+1, markdownCode(s.Name), markdownText(s.Text))
		}
		if len(wl.CannotStart) > 0 {
			b.WriteString("\n**The start-up order breaks:** the containers after these never start.\n\n")
			for _, br := range wl.CannotStart {
				fmt.Fprintf(&b, "- %s\n", markdownText(br))
			}
		}
		b.WriteString("\n### Shutdown\n\n| t (s) | event |\n| ---: | --- |\n")
		for _, m := range wl.Marks {
			text := markdownText(m.Text)
			if m.Breaks {
				text = "**" + text + "**"
			}
			fmt.Fprintf(&b, "| %d | %s |\n", m.At, text)
		}
		b.WriteString("\n")
		rows := chartRows(wl.Bars)
		gantt(&b, wl.Timeline, rows)
		rowTable(&b, rows)
		switch {
		case len(wl.Breaks) == 0 && len(wl.CannotStart) > 0:
			continue // the pod never runs: nothing to say of its termination budget
		case len(wl.Breaks) == 0:
			b.WriteString("\nThe termination budget holds.\n")
			continue
		}
		b.WriteString("\n**The termination budget breaks:**\n\n")
		for _, br := range wl.Breaks {
			fmt.Fprintf(&b, "- %s\n", markdownText(br))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
