// Command stand-in-app plays an application that needs its sidecar in the
// e2e tests. From the moment it starts it sends a request through the sidecar
// every interval and logs each result (ok, or fail with the error). On
// SIGTERM it keeps sending for the drain period, then exits 0. With --count
// it is a Job: it sends that many requests, then exits 0. Events go to stdout
// with RFC 3339 nanosecond timestamps (see e2e/internal/eventlog). A URL
// tcp://HOST:PORT makes each request a bare TCP connection, ok when it is
// accepted: what a database client's first step through a proxy such as
// the Cloud SQL Auth Proxy needs, without any query going past it.
//
//	stand-in-app [--url=http://127.0.0.1:15080/proxy | --url=tcp://127.0.0.1:5432] [--interval=100ms] [--drain=5s] [--count=0]
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/e2e/internal/eventlog"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/e2e/internal/flagenv"
)

const program = "app"

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	os.Exit(run(os.Args[1:], stop, os.Stdout, os.Stderr))
}

// config is what the request loop needs; flags and APP_* variables set it.
type config struct {
	url            string
	interval       time.Duration
	drain          time.Duration
	count          int
	requestTimeout time.Duration
}

// run parses the flags, runs the loop and returns the exit code.
func run(args []string, stop <-chan os.Signal, stdout, stderr io.Writer) int {
	var cfg config
	fs := flag.NewFlagSet("stand-in-app", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.url, "url", "http://127.0.0.1:15080/proxy", "what to call through the sidecar (env APP_URL)")
	fs.DurationVar(&cfg.interval, "interval", 100*time.Millisecond, "time between requests (env APP_INTERVAL)")
	fs.DurationVar(&cfg.drain, "drain", 5*time.Second, "how long to keep sending after SIGTERM (env APP_DRAIN)")
	fs.IntVar(&cfg.count, "count", 0, "send this many requests, then exit 0; 0 = until SIGTERM and drain (env APP_COUNT)")
	fs.DurationVar(&cfg.requestTimeout, "request-timeout", time.Second, "timeout of one request (env APP_REQUEST_TIMEOUT)")
	if err := flagenv.Apply(fs, map[string]string{
		"url": "APP_URL", "interval": "APP_INTERVAL", "drain": "APP_DRAIN",
		"count": "APP_COUNT", "request-timeout": "APP_REQUEST_TIMEOUT",
	}); err != nil {
		fmt.Fprintln(stderr, "stand-in-app:", err)
		return 2
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if cfg.interval <= 0 || cfg.count < 0 || cfg.drain < 0 {
		fmt.Fprintln(stderr, "stand-in-app: --interval must be positive, --count and --drain not negative")
		return 2
	}
	loop(cfg, eventlog.New(stdout, program), stop)
	return 0
}

// loop sends requests until count is reached, or until drain has passed
// since a signal arrived on stop.
func loop(cfg config, log *eventlog.Logger, stop <-chan os.Signal) {
	log.Log("start", "url", cfg.url, "interval", cfg.interval.String(), "drain", cfg.drain.String(), "count", strconv.Itoa(cfg.count))
	// A new connection per request, as after a proxy restart: a sidecar that
	// is gone refuses it instead of a kept-alive connection hiding that.
	client := &http.Client{Timeout: cfg.requestTimeout, Transport: &http.Transport{DisableKeepAlives: true}}
	var ok, failed int
	var deadline <-chan time.Time // set when the drain starts
	for seq := 1; ; seq++ {
		if err := request(client, cfg.url); err != nil {
			failed++
			log.Log("request", "seq", strconv.Itoa(seq), "result", "fail", "error", err.Error())
		} else {
			ok++
			log.Log("request", "seq", strconv.Itoa(seq), "result", "ok")
		}
		if cfg.count > 0 && seq >= cfg.count {
			log.Log("exit", "reason", "count", "ok", strconv.Itoa(ok), "fail", strconv.Itoa(failed))
			return
		}
		select {
		case sig := <-stop:
			log.Log("sigterm", "signal", sig.String(), "drain", cfg.drain.String())
			if cfg.drain == 0 {
				log.Log("exit", "reason", "drained", "ok", strconv.Itoa(ok), "fail", strconv.Itoa(failed))
				return
			}
			deadline = time.After(cfg.drain)
			stop = nil // a second signal changes nothing
		case <-deadline:
			log.Log("exit", "reason", "drained", "ok", strconv.Itoa(ok), "fail", strconv.Itoa(failed))
			return
		case <-time.After(cfg.interval):
		}
	}
}

// request makes one call and returns nil only for a 200; for a tcp:// URL
// it opens a connection and closes it, nil when it was accepted.
func request(client *http.Client, url string) error {
	if addr, ok := strings.CutPrefix(url, "tcp://"); ok {
		conn, err := net.DialTimeout("tcp", addr, client.Timeout)
		if err != nil {
			return err
		}
		return conn.Close()
	}
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d from %s", resp.StatusCode, url)
	}
	return nil
}
