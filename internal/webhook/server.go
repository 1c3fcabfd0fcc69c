package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Options are the webhook command's settings.
type Options struct {
	ConfigFile, CertFile, KeyFile string
	// Listen is the TLS address of /mutate, /validate, /healthz and
	// /readyz; MetricsListen the plain address of /metrics.
	Listen, MetricsListen string
	ValidationAction      string
	// Namespace finds a Namespace by name (see NamespaceCache); nil
	// leaves the Namespaces' switches unread.
	Namespace func(name string) *yaml.RNode
	// ShutdownDelay is how long /readyz fails before the server stops,
	// so the endpoints drop the pod before it stops answering.
	ShutdownDelay time.Duration
	// CertInterval and ConfigInterval are how often the files are polled
	// besides the file events (certwatcher's and the config's own).
	CertInterval, ConfigInterval time.Duration
	Log                          *slog.Logger
	Registry                     *prometheus.Registry
}

// CheckAction refuses a validation action other than Warn, Deny or Audit.
func CheckAction(action string) error {
	switch action {
	case ActionWarn, ActionDeny, ActionAudit:
		return nil
	}
	return fmt.Errorf("--validation-actions: %q is not Warn, Deny or Audit", action)
}

// Run serves the webhook until ctx is done: it loads the config and the
// certificate (an error if either does not load), watches both, and stops
// gracefully, not ready first.
func Run(ctx context.Context, o Options) error {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Registry == nil {
		o.Registry = prometheus.NewRegistry()
		o.Registry.MustRegister(prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	}
	if o.ValidationAction == "" {
		o.ValidationAction = ActionWarn
	}
	if err := CheckAction(o.ValidationAction); err != nil {
		return err
	}
	m := NewMetrics(o.Registry)
	cfgs := &configFile{path: o.ConfigFile, log: o.Log, reloads: m.Reloads}
	cfg, err := cfgs.load()
	if err != nil {
		return err
	}
	h, err := NewHandler(cfg, o.Log, m)
	if err != nil {
		return err
	}
	h.ValidationAction, h.Namespace = o.ValidationAction, o.Namespace

	cw, err := certwatcher.New(o.CertFile, o.KeyFile)
	if err != nil {
		return fmt.Errorf("loading the certificate: %w", err)
	}
	if o.CertInterval > 0 {
		cw = cw.WithWatchInterval(o.CertInterval)
	}
	cw.RegisterCallback(func(tls.Certificate) { o.Log.Info("certificate loaded", "file", o.CertFile) })

	host, portText, err := net.SplitHostPort(o.Listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	var ready, stopping atomic.Bool
	srv := crwebhook.NewServer(crwebhook.Options{
		Host: host, Port: port,
		TLSOpts: []func(*tls.Config){func(c *tls.Config) { c.GetCertificate = cw.GetCertificate }},
	})
	srv.Register("/mutate", h.Mutate())
	srv.Register("/validate", h.Validate())
	srv.Register("/healthz", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	srv.Register("/readyz", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if !ready.Load() || stopping.Load() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))

	metricsMux := http.NewServeMux()
	metricsMux.Handle("/metrics", promhttp.HandlerFor(o.Registry, promhttp.HandlerOpts{}))
	metricsSrv := &http.Server{Addr: o.MetricsListen, Handler: metricsMux, ReadHeaderTimeout: 10 * time.Second}
	metricsLn, err := net.Listen("tcp", o.MetricsListen)
	if err != nil {
		return fmt.Errorf("--metrics-listen: %w", err)
	}

	serveCtx, stop := context.WithCancel(context.Background())
	defer stop()
	errs := make(chan error, 3)
	go func() { errs <- cw.Start(serveCtx) }()
	go func() { errs <- srv.Start(serveCtx) }()
	go func() {
		if err := metricsSrv.Serve(metricsLn); !errors.Is(err, http.ErrServerClosed) {
			errs <- err
		}
	}()
	go cfgs.watch(serveCtx, o.ConfigInterval, h.SetConfig)
	ready.Store(true)
	o.Log.Info("webhook serving", "listen", o.Listen, "metrics", o.MetricsListen, "validationActions", o.ValidationAction)

	select {
	case <-ctx.Done():
	case err := <-errs:
		stop()
		_ = metricsSrv.Close()
		return err
	}
	stopping.Store(true)
	o.Log.Info("shutting down", "delay", o.ShutdownDelay)
	time.Sleep(o.ShutdownDelay)
	stop() // the webhook server shuts down gracefully on this
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = metricsSrv.Shutdown(shutdownCtx)
	return nil
}
