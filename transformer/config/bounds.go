package config

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// MaxDelay is the longest delay the function accepts and the longest grace
// period it writes: waitBeforeExit, app.drainDelay and
// terminationGracePeriod.margin each, and each delay plus the margin. The
// API server takes any int64 number of seconds, but kubelet, Istio and
// Linkerd turn them into Go durations, which wrap around past 292 years,
// and a pod that takes more than a day to stop holds every rollout and node
// drain that long: such a value is a mistake.
const MaxDelay = 24 * time.Hour

// KubeletMaxSeconds is the longest grace period kubelet can count: it
// multiplies the seconds by time.Second in an int64 of nanoseconds, which
// wraps around above 9223372036 seconds (292 years). The API server takes
// any int64; the function never writes more than this.
const KubeletMaxSeconds = math.MaxInt64 / int64(time.Second)

// ParseDelay parses a delay (a duration or a number of seconds) and checks
// that it is at most MaxDelay, also with margin added.
func ParseDelay(s string, margin time.Duration) (time.Duration, error) {
	d, err := ParseDuration(s)
	var tooLong *RangeError
	if errors.As(err, &tooLong) {
		return 0, errors.New(overMax(s, MaxDelay+1, 0))
	}
	if err != nil {
		return 0, err
	}
	if msg := overMax(s, d, margin); msg != "" {
		return 0, errors.New(msg)
	}
	return d, nil
}

// overMax says what is wrong with a delay that is longer than MaxDelay
// alone or with the margin added, or returns "".
func overMax(raw string, d, margin time.Duration) string {
	if d > MaxDelay {
		return fmt.Sprintf("%q is longer than the maximum %s: use a delay of at most %s", raw, FormatDuration(MaxDelay), FormatDuration(MaxDelay))
	}
	if d+margin > MaxDelay {
		return fmt.Sprintf("%q plus spec.terminationGracePeriod.margin %s is %s, a longer grace period than the maximum %s: shorten one of them",
			raw, FormatDuration(margin), FormatDuration(d+margin), FormatDuration(MaxDelay))
	}
	return ""
}

// FormatDuration writes a duration the way people write it: 24h, 1h30m, 10s.
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
