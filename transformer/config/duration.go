package config

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Duration is a config duration: a Go/Kubernetes duration string ("30s",
// "2m") or a bare integer of seconds. It keeps the raw text from decoding so
// that Validate can report a bad value with its field path.
type Duration struct {
	// Raw is the value as written in the config; empty means unset.
	Raw string
	// Value is the parsed duration, valid after Parse.
	Value time.Duration
}

// UnmarshalJSON accepts a string or a number and keeps it raw.
func (d *Duration) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "null" {
		*d = Duration{}
		return nil
	}
	if unquoted, err := strconv.Unquote(s); err == nil {
		s = unquoted
	}
	*d = Duration{Raw: s}
	return nil
}

// MarshalJSON writes the duration as written, or its parsed value.
func (d Duration) MarshalJSON() ([]byte, error) {
	if d.Raw == "" {
		return json.Marshal(d.Value.String())
	}
	return json.Marshal(d.Raw)
}

// IsSet reports whether the config gave a value.
func (d Duration) IsSet() bool { return d.Raw != "" }

// Seconds is the duration rounded up to whole seconds.
func (d Duration) Seconds() int64 {
	s := int64(d.Value / time.Second)
	if d.Value%time.Second != 0 {
		s++
	}
	return s
}

// maxSeconds is the longest bare number of seconds ParseDuration takes:
// 2^62 nanoseconds, so that a margin added to it cannot overflow.
const maxSeconds = int64(time.Duration(1<<62) / time.Second)

// wholeSeconds is a bare integer of seconds, with an optional sign.
var wholeSeconds = regexp.MustCompile(`^[-+]?[0-9]+$`)

// durationSyntax is what time.ParseDuration reads, whatever its size: an
// optional sign, then numbers each with a unit.
var durationSyntax = regexp.MustCompile(`^[-+]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`)

// RangeError is a duration that is written correctly but too long for the
// function to hold.
type RangeError struct {
	// Raw is the value as written.
	Raw string
}

// Error names the value and the longest duration the function holds.
func (e RangeError) Error() string {
	return fmt.Sprintf("%q is out of range: the longest duration the function takes is %ds", e.Raw, maxSeconds)
}

// ParseDuration parses a duration string or a bare number of seconds. It
// rejects negative values, and names a value too long to hold (a
// *RangeError) as out of range rather than as not a duration.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty duration")
	}
	negative := strings.HasPrefix(s, "-") && strings.Trim(s, "-+0.nsuµμmh") != ""
	var d time.Duration
	switch {
	case negative && (wholeSeconds.MatchString(s) || durationSyntax.MatchString(s)):
		return 0, fmt.Errorf("%q is negative", s)
	case wholeSeconds.MatchString(s):
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n > maxSeconds {
			return 0, &RangeError{Raw: s}
		}
		d = time.Duration(n) * time.Second
	default:
		parsed, err := time.ParseDuration(s)
		switch {
		case err != nil && durationSyntax.MatchString(s):
			return 0, &RangeError{Raw: s}
		case err != nil:
			return 0, fmt.Errorf("%q is not a duration such as 30s, 2m or a whole number of seconds", s)
		}
		d = parsed
	}
	if d < 0 {
		return 0, fmt.Errorf("%q is negative", s)
	}
	return d, nil
}

// Seconds returns d as whole seconds, rounded up.
func Seconds(d time.Duration) int64 {
	return Duration{Value: d}.Seconds()
}

// Auto is the waitBeforeExit value that waits for the application's drain.
const Auto = "auto"

// DurationOrAuto is a Duration that may also be auto: waitBeforeExit, which
// each workload then resolves from its application's preStop.
type DurationOrAuto struct {
	Duration
}

// IsAuto reports whether the value is auto.
func (d DurationOrAuto) IsAuto() bool { return d.Raw == Auto }

// parseDelayOrAuto parses the delay unless it is auto, which leaves Value 0.
func parseDelayOrAuto(add func(string, string), at string, d *DurationOrAuto, margin time.Duration) bool {
	if d.IsAuto() {
		d.Value = 0
		return true
	}
	return parseDelay(add, at, &d.Duration, margin)
}

// NewDuration returns a set Duration of the given value.
func NewDuration(d time.Duration) Duration {
	return Duration{Raw: d.String(), Value: d}
}
