package eventlog

import (
	"strings"
	"testing"
	"time"
)

func TestLogParseRoundTrip(t *testing.T) {
	var b strings.Builder
	log := New(&b, "app")
	at := time.Date(2025, 3, 1, 12, 0, 0, 123456789, time.UTC)
	log.Now = func() time.Time { return at }
	log.Log("request", "seq", "1", "result", "fail", "error", `Get "http://127.0.0.1:1/": dial tcp: connection refused`, "empty", "")
	log.Log("exit")

	want := `2025-03-01T12:00:00.123456789Z app request seq=1 result=fail error="Get \"http://127.0.0.1:1/\": dial tcp: connection refused" empty=""` + "\n" +
		"2025-03-01T12:00:00.123456789Z app exit\n"
	if b.String() != want {
		t.Fatalf("log:\n%s\nwant:\n%s", b.String(), want)
	}
	events, err := ParseAll(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 {
		t.Fatalf("got %d events, want 2", len(events))
	}
	e := events[0]
	if !e.Time.Equal(at) || e.Program != "app" || e.Name != "request" {
		t.Errorf("event = %+v", e)
	}
	if e.Fields["error"] != `Get "http://127.0.0.1:1/": dial tcp: connection refused` || e.Fields["seq"] != "1" || e.Fields["empty"] != "" {
		t.Errorf("fields = %q", e.Fields)
	}
	if events[1].Name != "exit" || len(events[1].Fields) != 0 {
		t.Errorf("event = %+v", events[1])
	}
}

func TestParseErrors(t *testing.T) {
	for _, line := range []string{
		"",
		"not-a-time app start",
		"2025-03-01T12:00:00Z app",
		"2025-03-01T12:00:00Z app start novalue",
		`2025-03-01T12:00:00Z app start k="unterminated`,
	} {
		if _, err := Parse(line); err == nil {
			t.Errorf("Parse(%q): no error", line)
		}
	}
	if _, err := ParseAll(strings.NewReader("2025-03-01T12:00:00Z app start\npanic: boom\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("ParseAll error = %v, want one naming line 2", err)
	}
}
