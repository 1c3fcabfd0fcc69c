package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/webhook"
)

// webhookFlags are the webhook verb's flags with their defaults; each is
// also read from SIDECAR_LIFECYCLE_<FLAG> (upper case, - as _), which the
// flag overrides.
var webhookFlags = []struct{ name, def, usage string }{
	{"config", "", "the policy file (the catalog's defaults without it), reloaded when it changes"},
	{"cert-file", "", "the TLS certificate (PEM), reloaded when it changes"},
	{"key-file", "", "the TLS key (PEM)"},
	{"listen", ":8443", "address of /mutate, /validate, /healthz and /readyz (TLS)"},
	{"metrics-listen", ":9090", "address of /metrics"},
	{"validation-actions", "Warn", "what /validate does with findings: Warn, Deny or Audit"},
}

// webhookEnv is the environment variable of a webhook flag.
func webhookEnv(name string) string {
	return "SIDECAR_LIFECYCLE_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// runWebhook is the webhook verb: it serves the admission webhook until
// SIGTERM or SIGINT, and returns the exit code. The Namespaces come from
// the cluster the pod runs in (or KUBECONFIG's); without one their
// switches are not read.
func runWebhook(list []string, getenv func(string) string, stderr io.Writer) int {
	fs := pflag.NewFlagSet("sidecar-lifecycle webhook", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	vals := map[string]*string{}
	for _, f := range webhookFlags {
		def := f.def
		if v := getenv(webhookEnv(f.name)); v != "" {
			def = v
		}
		vals[f.name] = fs.String(f.name, def, f.usage)
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "sidecar-lifecycle webhook: "+format+"\n", a...)
		return 1
	}
	if err := fs.Parse(list); err != nil {
		return fail("%v", err)
	}
	if fs.NArg() > 0 {
		return fail("unexpected argument %q", fs.Arg(0))
	}
	if *vals["cert-file"] == "" || *vals["key-file"] == "" {
		return fail("--cert-file and --key-file are required")
	}
	if err := webhook.CheckAction(*vals["validation-actions"]); err != nil {
		return fail("%v", err)
	}
	webhook.TuneCollector(getenv)
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	o := webhook.Options{
		ConfigFile: *vals["config"], CertFile: *vals["cert-file"], KeyFile: *vals["key-file"],
		Listen: *vals["listen"], MetricsListen: *vals["metrics-listen"],
		ValidationAction: *vals["validation-actions"], ShutdownDelay: 5 * time.Second, Log: log,
	}
	if cfg, err := webhook.ClusterConfig(); err != nil {
		log.Warn("no cluster config: the Namespaces' switches are not read", "err", err.Error())
	} else {
		client, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return fail("%v", err)
		}
		if o.Namespace, err = webhook.NamespaceCache(ctx, client, 10*time.Minute, log); err != nil {
			return fail("reading Namespaces: %v", err)
		}
	}
	if err := webhook.Run(ctx, o); err != nil {
		return fail("%v", err) // one line, as every verb's errors are
	}
	return 0
}
