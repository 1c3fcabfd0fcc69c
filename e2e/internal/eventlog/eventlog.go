// Package eventlog writes and reads the one-line events that the e2e stand-in
// programs print on stdout, so the tests can assert on what the programs saw.
//
// A line is
//
//	<time, RFC 3339 with nanoseconds, UTC> <program> <event> [key=value ...]
//
// where a value is written with strconv.Quote when it holds a space, a quote,
// an equals sign or nothing at all.
package eventlog

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Event is one parsed line.
type Event struct {
	// Time is when the program logged the event.
	Time time.Time
	// Program is the name of the program that logged it.
	Program string
	// Name is the event: start, ready, request, sigterm, exit, ...
	Name string
	// Fields holds the key=value pairs, unquoted.
	Fields map[string]string
}

// Logger writes events for one program. It is safe for concurrent use.
type Logger struct {
	mu      sync.Mutex
	w       io.Writer
	program string
	// Now returns the time stamped on each event; time.Now when nil.
	Now func() time.Time
}

// New returns a Logger that writes the program's events to w.
func New(w io.Writer, program string) *Logger {
	return &Logger{w: w, program: program}
}

// Log writes one event with its key/value pairs (an odd trailing key gets an
// empty value) and returns the time it stamped.
func (l *Logger) Log(event string, keyValues ...string) time.Time {
	now := time.Now
	if l.Now != nil {
		now = l.Now
	}
	t := now().UTC()
	var b strings.Builder
	b.WriteString(t.Format(time.RFC3339Nano))
	b.WriteByte(' ')
	b.WriteString(l.program)
	b.WriteByte(' ')
	b.WriteString(event)
	for i := 0; i < len(keyValues); i += 2 {
		value := ""
		if i+1 < len(keyValues) {
			value = keyValues[i+1]
		}
		b.WriteByte(' ')
		b.WriteString(keyValues[i])
		b.WriteByte('=')
		b.WriteString(quote(value))
	}
	b.WriteByte('\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = io.WriteString(l.w, b.String())
	return t
}

// quote quotes a value only when a reader could not split it back.
func quote(value string) string {
	if value == "" || strings.ContainsAny(value, " \t\n\"=\\") || !strconv.CanBackquote(value) {
		return strconv.Quote(value)
	}
	return value
}

// Parse reads one line.
func Parse(line string) (Event, error) {
	line = strings.TrimRight(line, "\r\n")
	parts := strings.SplitN(line, " ", 4)
	if len(parts) < 3 {
		return Event{}, fmt.Errorf("event line %q: want <time> <program> <event> [key=value ...]", line)
	}
	t, err := time.Parse(time.RFC3339Nano, parts[0])
	if err != nil {
		return Event{}, fmt.Errorf("event line %q: %w", line, err)
	}
	e := Event{Time: t, Program: parts[1], Name: parts[2], Fields: map[string]string{}}
	if len(parts) == 4 {
		if e.Fields, err = parseFields(parts[3]); err != nil {
			return Event{}, fmt.Errorf("event line %q: %w", line, err)
		}
	}
	return e, nil
}

// parseFields splits `k=v k2="quoted value"` into a map.
func parseFields(s string) (map[string]string, error) {
	fields := map[string]string{}
	for s = strings.TrimLeft(s, " "); s != ""; s = strings.TrimLeft(s, " ") {
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			return nil, fmt.Errorf("field %q has no key=value", s)
		}
		key, rest := s[:eq], s[eq+1:]
		var value string
		if strings.HasPrefix(rest, `"`) {
			quoted, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", key, err)
			}
			value, _ = strconv.Unquote(quoted)
			rest = rest[len(quoted):]
		} else {
			end := strings.IndexByte(rest, ' ')
			if end < 0 {
				end = len(rest)
			}
			value, rest = rest[:end], rest[end:]
		}
		fields[key] = value
		s = rest
	}
	return fields, nil
}

// ParseAll reads every non-empty line of r; a line that is not an event is an
// error naming its number.
func ParseAll(r io.Reader) ([]Event, error) {
	var events []Event
	scanner := bufio.NewScanner(r)
	for n := 1; scanner.Scan(); n++ {
		if strings.TrimSpace(scanner.Text()) == "" {
			continue
		}
		e, err := Parse(scanner.Text())
		if err != nil {
			return events, fmt.Errorf("line %d: %w", n, err)
		}
		events = append(events, e)
	}
	return events, scanner.Err()
}
