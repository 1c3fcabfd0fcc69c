// Command stand-in-sidecar plays a mesh proxy in the e2e tests. It serves
// HTTP on a loopback port at once but is ready only after a delay: /ready
// answers 503 before and 200 after, and /proxy (or /), which the app calls,
// answers 200 only when ready. On SIGTERM it keeps serving for a while, then
// exits. It logs start, listening, ready, sigterm and exit on stdout with
// RFC 3339 nanosecond timestamps (see e2e/internal/eventlog).
//
//	stand-in-sidecar [--port=15080] [--ready-after=3s] [--serve-after-term=0s]
//	stand-in-sidecar wait [--port=15080] [--timeout=2m]
//
// wait blocks until /ready answers 200 and exits 0, or exits 1 after the
// timeout: the shape of linkerd-await, for a postStart hook.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/e2e/internal/eventlog"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/e2e/internal/flagenv"
)

const program = "sidecar"

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	os.Exit(run(os.Args[1:], stop, os.Stdout, os.Stderr))
}

// run dispatches to serve or wait and returns the exit code.
func run(args []string, stop <-chan os.Signal, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "wait" {
		return wait(args[1:], stdout, stderr)
	}
	return serve(args, stop, stdout, stderr)
}

// serveConfig is what serve needs; flags and SIDECAR_* variables set it.
type serveConfig struct {
	host           string
	port           int
	readyAfter     time.Duration
	serveAfterTerm time.Duration
}

func serve(args []string, stop <-chan os.Signal, stdout, stderr io.Writer) int {
	var cfg serveConfig
	fs := flag.NewFlagSet("stand-in-sidecar", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.host, "host", "127.0.0.1", "address to listen on (env SIDECAR_HOST)")
	fs.IntVar(&cfg.port, "port", 15080, "port to listen on (env SIDECAR_PORT)")
	fs.DurationVar(&cfg.readyAfter, "ready-after", 3*time.Second, "delay from start to ready (env SIDECAR_READY_AFTER)")
	fs.DurationVar(&cfg.serveAfterTerm, "serve-after-term", 0, "how long to keep serving after SIGTERM (env SIDECAR_SERVE_AFTER_TERM)")
	if err := flagenv.Apply(fs, map[string]string{
		"host": "SIDECAR_HOST", "port": "SIDECAR_PORT",
		"ready-after": "SIDECAR_READY_AFTER", "serve-after-term": "SIDECAR_SERVE_AFTER_TERM",
	}); err != nil {
		fmt.Fprintln(stderr, "stand-in-sidecar:", err)
		return 2
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	log := eventlog.New(stdout, program)
	if err := runServer(cfg, log, stop, nil); err != nil {
		fmt.Fprintln(stderr, "stand-in-sidecar:", err)
		return 1
	}
	return 0
}

// runServer serves until a signal arrives on stop, then for serveAfterTerm
// more. When listening is not nil it receives the bound address.
func runServer(cfg serveConfig, log *eventlog.Logger, stop <-chan os.Signal, listening chan<- string) error {
	log.Log("start", "port", strconv.Itoa(cfg.port), "ready-after", cfg.readyAfter.String(), "serve-after-term", cfg.serveAfterTerm.String())
	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.host, strconv.Itoa(cfg.port)))
	if err != nil {
		log.Log("exit", "error", err.Error())
		return fmt.Errorf("listening: %w", err)
	}
	log.Log("listening", "addr", ln.Addr().String())
	if listening != nil {
		listening <- ln.Addr().String()
	}

	var ready atomic.Bool
	var served, rejected atomic.Int64
	readyTimer := time.AfterFunc(cfg.readyAfter, func() {
		ready.Store(true)
		log.Log("ready")
	})
	defer readyTimer.Stop()

	mux := http.NewServeMux()
	mux.HandleFunc("/ready", func(w http.ResponseWriter, _ *http.Request) {
		if !ready.Load() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		if !ready.Load() {
			rejected.Add(1)
			http.Error(w, "sidecar not ready", http.StatusServiceUnavailable)
			return
		}
		served.Add(1)
		fmt.Fprintln(w, "ok")
	})
	server := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	serveErr := make(chan error, 1)
	go func() { serveErr <- server.Serve(ln) }()

	select {
	case sig := <-stop:
		log.Log("sigterm", "signal", sig.String(), "serve-after-term", cfg.serveAfterTerm.String())
	case err := <-serveErr:
		log.Log("exit", "error", err.Error())
		return fmt.Errorf("serving: %w", err)
	}
	if cfg.serveAfterTerm > 0 {
		time.Sleep(cfg.serveAfterTerm)
	}
	// Close, not Shutdown: a proxy that exits refuses the next connection.
	_ = server.Close()
	if err := <-serveErr; err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Log("exit", "error", err.Error())
		return fmt.Errorf("serving: %w", err)
	}
	log.Log("exit", "served", strconv.FormatInt(served.Load(), 10), "rejected", strconv.FormatInt(rejected.Load(), 10))
	return nil
}

// wait polls /ready until it answers 200 or the timeout passes.
func wait(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("stand-in-sidecar wait", flag.ContinueOnError)
	fs.SetOutput(stderr)
	host := fs.String("host", "127.0.0.1", "sidecar address (env SIDECAR_HOST)")
	port := fs.Int("port", 15080, "sidecar port (env SIDECAR_PORT)")
	timeout := fs.Duration("timeout", 2*time.Minute, "give up and exit 1 after this long")
	interval := fs.Duration("interval", 100*time.Millisecond, "time between polls")
	if err := flagenv.Apply(fs, map[string]string{"host": "SIDECAR_HOST", "port": "SIDECAR_PORT"}); err != nil {
		fmt.Fprintln(stderr, "stand-in-sidecar wait:", err)
		return 2
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	url := "http://" + net.JoinHostPort(*host, strconv.Itoa(*port)) + "/ready"
	log := eventlog.New(stdout, program)
	if err := waitReady(url, *timeout, *interval); err != nil {
		fmt.Fprintln(stderr, "stand-in-sidecar wait:", err)
		log.Log("wait-timeout", "url", url, "error", err.Error())
		return 1
	}
	log.Log("wait-ready", "url", url)
	return 0
}

// waitReady returns nil once url answers 200, or an error with the last
// failure after timeout.
func waitReady(url string, timeout, interval time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	var last error
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready after %s: %w", timeout, last)
		case <-time.After(interval):
		}
	}
}
