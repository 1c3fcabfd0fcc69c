package main

import (
	"bytes"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/e2e/internal/eventlog"
)

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func status(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestServerReadyAfterDelayAndServesAfterTerm(t *testing.T) {
	var out syncBuffer
	stop := make(chan os.Signal, 1)
	listening := make(chan string, 1)
	done := make(chan error, 1)
	cfg := serveConfig{host: "127.0.0.1", port: 0, readyAfter: 300 * time.Millisecond, serveAfterTerm: 200 * time.Millisecond}
	go func() { done <- runServer(cfg, eventlog.New(&out, program), stop, listening) }()
	base := "http://" + <-listening

	if got := status(t, base+"/ready"); got != http.StatusServiceUnavailable {
		t.Errorf("/ready before the delay: %d, want 503", got)
	}
	if got := status(t, base+"/proxy"); got != http.StatusServiceUnavailable {
		t.Errorf("/proxy before the delay: %d, want 503", got)
	}
	if err := waitReady(base+"/ready", 5*time.Second, 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if got := status(t, base+"/proxy"); got != http.StatusOK {
		t.Errorf("/proxy when ready: %d, want 200", got)
	}

	stop <- syscall.SIGTERM
	time.Sleep(50 * time.Millisecond)
	if got := status(t, base+"/proxy"); got != http.StatusOK {
		t.Errorf("/proxy just after SIGTERM: %d, want 200 (serve-after-term)", got)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(base + "/proxy"); err == nil {
		t.Error("/proxy after exit: no error, want a refused connection")
	}

	events, err := eventlog.ParseAll(strings.NewReader(out.String()))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	at := map[string]time.Time{}
	for _, e := range events {
		names = append(names, e.Name)
		at[e.Name] = e.Time
	}
	if got := strings.Join(names, " "); got != "start listening ready sigterm exit" {
		t.Fatalf("events %q, want start listening ready sigterm exit", got)
	}
	if d := at["ready"].Sub(at["start"]); d < 300*time.Millisecond {
		t.Errorf("ready %s after start, want >= 300ms", d)
	}
	if d := at["exit"].Sub(at["sigterm"]); d < 200*time.Millisecond {
		t.Errorf("exit %s after sigterm, want >= 200ms", d)
	}
	if last := events[len(events)-1]; last.Fields["served"] != "2" || last.Fields["rejected"] != "1" {
		t.Errorf("exit fields %q, want served=2 rejected=1", last.Fields)
	}
}

func TestWaitTimesOut(t *testing.T) {
	var stdout, stderr bytes.Buffer
	// Nothing listens on port 1.
	code := run([]string{"wait", "--port=1", "--timeout=300ms", "--interval=50ms"}, nil, &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
	if !strings.Contains(stderr.String(), "not ready after 300ms") {
		t.Errorf("stderr %q, want it to say not ready after 300ms", stderr.String())
	}
}

func TestEnvSetsFlags(t *testing.T) {
	t.Setenv("SIDECAR_PORT", "not-a-port")
	var stdout, stderr bytes.Buffer
	if code := run(nil, nil, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "SIDECAR_PORT") {
		t.Errorf("exit %d, stderr %q: want 2 naming SIDECAR_PORT", code, stderr.String())
	}
}
