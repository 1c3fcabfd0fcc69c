package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/e2e/internal/eventlog"
)

func parse(t *testing.T, out string) []eventlog.Event {
	t.Helper()
	events, err := eventlog.ParseAll(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	return events
}

func TestCountSendsThatManyAndExits(t *testing.T) {
	calls := 0
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls++
		if calls == 1 {
			http.Error(w, "not yet", http.StatusServiceUnavailable)
		}
	}))
	defer server.Close()
	var out strings.Builder
	code := run([]string{"--url=" + server.URL, "--interval=10ms", "--count=3"}, nil, &out, os.Stderr)
	if code != 0 {
		t.Fatalf("exit code %d", code)
	}
	var results []string
	events := parse(t, out.String())
	for _, e := range events {
		if e.Name == "request" {
			results = append(results, e.Fields["result"])
		}
	}
	if got := strings.Join(results, " "); got != "fail ok ok" {
		t.Errorf("results %q, want fail ok ok", got)
	}
	if last := events[len(events)-1]; last.Name != "exit" || last.Fields["ok"] != "2" || last.Fields["fail"] != "1" {
		t.Errorf("last event %+v, want exit ok=2 fail=1", last)
	}
}

func TestKeepsSendingDuringDrain(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer server.Close()
	stop := make(chan os.Signal, 1)
	var out strings.Builder
	go func() {
		time.Sleep(100 * time.Millisecond)
		stop <- syscall.SIGTERM
	}()
	cfg := config{url: server.URL, interval: 20 * time.Millisecond, drain: 300 * time.Millisecond, requestTimeout: time.Second}
	loop(cfg, eventlog.New(&out, program), stop)

	var sigterm, exit time.Time
	afterSigterm := 0
	for _, e := range parse(t, out.String()) {
		switch {
		case e.Name == "sigterm":
			sigterm = e.Time
		case e.Name == "exit":
			exit = e.Time
		case e.Name == "request" && !sigterm.IsZero():
			afterSigterm++
		}
	}
	if sigterm.IsZero() || exit.IsZero() {
		t.Fatalf("no sigterm or exit in:\n%s", out.String())
	}
	if d := exit.Sub(sigterm); d < 300*time.Millisecond {
		t.Errorf("exit %s after sigterm, want >= the 300ms drain", d)
	}
	if afterSigterm < 5 {
		t.Errorf("%d requests during the drain, want several", afterSigterm)
	}
}

func TestTCPURLCountsAcceptedConnections(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	stop := make(chan os.Signal, 1)
	var out strings.Builder
	go func() {
		time.Sleep(100 * time.Millisecond)
		l.Close() // refused from now on
		stop <- syscall.SIGTERM
	}()
	cfg := config{url: "tcp://" + addr, interval: 20 * time.Millisecond, drain: 100 * time.Millisecond, requestTimeout: time.Second}
	loop(cfg, eventlog.New(&out, program), stop)
	var ok, refused int
	for _, e := range parse(t, out.String()) {
		switch {
		case e.Name != "request":
		case e.Fields["result"] == "ok":
			ok++
		case strings.Contains(e.Fields["error"], "connection refused"):
			refused++
		case strings.Contains(e.Fields["error"], "connection reset by peer"):
			// A connection still in the listener's queue when it closes
			// is reset, not refused.
		default:
			t.Errorf("request failed with %q, want connection refused (or reset, while the listener closes)", e.Fields["error"])
		}
	}
	if ok == 0 || refused == 0 {
		t.Errorf("%d accepted and %d refused, want both:\n%s", ok, refused, out.String())
	}
}
