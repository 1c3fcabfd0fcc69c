package config

import (
	"encoding/json"
	"fmt"
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

// ParseDuration parses a duration string or a bare number of seconds. It
// rejects negative values.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty duration")
	}
	var d time.Duration
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("%q is negative", s)
		}
		if n > int64(time.Duration(1<<62)/time.Second) {
			return 0, fmt.Errorf("%q is too large", s)
		}
		d = time.Duration(n) * time.Second
	} else {
		parsed, perr := time.ParseDuration(s)
		if perr != nil {
			return 0, fmt.Errorf("%q is not a duration such as 30s, 2m or a number of seconds", s)
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
