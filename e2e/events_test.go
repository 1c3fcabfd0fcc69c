//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"time"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/e2e/internal/eventlog"
)

// first returns the first event with that name, or nil.
func first(events []eventlog.Event, name string) *eventlog.Event {
	for i := range events {
		if events[i].Name == name {
			return &events[i]
		}
	}
	return nil
}

// requests splits the app's request events at its SIGTERM (zero time: all
// are before).
func requests(events []eventlog.Event, sigterm time.Time) (before, after []eventlog.Event) {
	for _, e := range events {
		if e.Name != "request" {
			continue
		}
		if !sigterm.IsZero() && !e.Time.Before(sigterm) {
			after = append(after, e)
		} else {
			before = append(before, e)
		}
	}
	return before, after
}

// tally counts ok and failed requests.
func tally(reqs []eventlog.Event) (ok, failed int) {
	for _, e := range reqs {
		if e.Fields["result"] == "ok" {
			ok++
		} else {
			failed++
		}
	}
	return ok, failed
}

// firstFailure returns the first failed request, or nil.
func firstFailure(reqs []eventlog.Event) *eventlog.Event {
	for i := range reqs {
		if reqs[i].Fields["result"] != "ok" {
			return &reqs[i]
		}
	}
	return nil
}

// reason shortens a request error for the summary.
func reason(e *eventlog.Event) string {
	if e == nil {
		return "none"
	}
	msg := e.Fields["error"]
	for _, known := range []string{"connection refused", "connection reset", "status 503", "timeout"} {
		if strings.Contains(msg, known) {
			return known
		}
	}
	if strings.HasSuffix(msg, "EOF") {
		return "connection closed (EOF)"
	}
	return msg
}

// relative says how far a time is after (or before) another: "1.3s after".
func relative(d time.Duration) string {
	if d < 0 {
		return secs(-d) + " before"
	}
	return secs(d) + " after"
}

// secs formats a duration as seconds with one decimal.
func secs(d time.Duration) string {
	return fmt.Sprintf("%.1fs", d.Seconds())
}

// describeEvents is the log as text, for failure messages.
func describeEvents(events []eventlog.Event, limit int) string {
	var b strings.Builder
	for i, e := range events {
		if i == limit {
			fmt.Fprintf(&b, "  ... %d more\n", len(events)-limit)
			break
		}
		fmt.Fprintf(&b, "  %s %s %s %v\n", e.Time.Format("15:04:05.000"), e.Program, e.Name, e.Fields)
	}
	return b.String()
}
