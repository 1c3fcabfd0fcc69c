package webhook

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/testcert"
)

// writeCert writes a certificate for 127.0.0.1 with serial.
func writeCert(t *testing.T, certFile, keyFile string, serial int64) {
	t.Helper()
	ca, err := testcert.NewCA()
	if err == nil {
		err = ca.Write(certFile, keyFile, serial)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func servedSerial(addr string) int64 {
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		return -1
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
}

// TestWebhookServerReloads: the server is ready once started, serves a
// rotated certificate without restart, refuses and counts a config that
// does not load, applies one that does, and is not ready while stopping.
func TestWebhookServerReloads(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, cfgFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key"), filepath.Join(dir, "policy.yaml")
	writeCert(t, certFile, keyFile, 1)
	if err := os.WriteFile(cfgFile, read(t, "policy.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr, metricsAddr := freeAddr(t), freeAddr(t)
	reg := prometheus.NewRegistry()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{ConfigFile: cfgFile, CertFile: certFile, KeyFile: keyFile, Listen: addr,
			MetricsListen: metricsAddr, ShutdownDelay: 500 * time.Millisecond, CertInterval: 200 * time.Millisecond,
			ConfigInterval: 100 * time.Millisecond, Registry: reg})
	}()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	status := func(path string) int {
		resp, err := client.Get("https://" + addr + path)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	waitFor(t, "ready", func() bool { return status("/readyz") == http.StatusOK })
	if s := servedSerial(addr); s != 1 {
		t.Fatalf("serial %d", s)
	}
	writeCert(t, certFile, keyFile, 2)
	waitFor(t, "the rotated certificate", func() bool { return servedSerial(addr) == 2 })

	if err := os.WriteFile(cfgFile, []byte("apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec:\n  action: nope\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	scrape := func() string {
		resp, err := http.Get("http://" + metricsAddr + "/metrics")
		if err != nil {
			return ""
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	waitFor(t, "the bad config refused and counted", func() bool {
		return strings.Contains(scrape(), `sidecar_lifecycle_webhook_config_reloads_total{result="refused"} 1`)
	})

	cancel()
	waitFor(t, "not ready while stopping", func() bool { return status("/readyz") == http.StatusServiceUnavailable })
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Run did not return")
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("waited 15s for %s", what)
}
