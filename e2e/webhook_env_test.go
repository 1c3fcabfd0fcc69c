//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The labels that put a namespace under the webhooks one run registers:
// every webhook's namespaceSelector asks for this run's id and a role.
const (
	whRunLabel  = "e2e.sidecar-lifecycle.dev/webhook-run"
	whRoleLabel = "e2e.sidecar-lifecycle.dev/webhook-role"
)

// The namespaces' roles: which webhooks the API server calls for them.
const (
	roleMain     = "main"     // the injectors, then sidecar-lifecycle with the policy
	roleReinvoke = "reinvoke" // sidecar-lifecycle with the policy first, then the injectors: only reinvocation orders
	roleInject   = "inject"   // the injectors alone: the injected pod mutate reads
	rolePlain    = "plain"    // no webhook: how the API server stores a manifest
	roleDefaults = "defaults" // the injectors, then sidecar-lifecycle with the catalog's defaults
	roleWarn     = "warn"     // /validate with the policy, Warn
	roleDeny     = "deny"     // /validate with the catalog's defaults, Deny
)

var whRoles = []string{roleMain, roleReinvoke, roleInject, rolePlain, roleDefaults, roleWarn, roleDeny}

// whEnv is what the webhook tests share: the certificate authority, the
// processes and the namespaces.
type whEnv struct {
	dir                   string
	ca                    *x509.Certificate
	caKey                 *ecdsa.PrivateKey
	caPEM                 []byte
	policy                string // the policy file of the main webhook
	sidecarPort, daprPort int
	main, deny            *whProcess // sidecar-lifecycle: the policy with Warn; the defaults with Deny
	vault, dapr           *whProcess
}

// ns is the namespace of a role.
func (e *whEnv) ns(role string) string { return "wh-" + suite.runID + "-" + role }

// whProcess is a host process serving TLS on port.
type whProcess struct {
	name     string
	cmd      *exec.Cmd
	port     int
	metrics  int
	certFile string
	keyFile  string
	exited   chan struct{}
	env      []string // added to the test's environment
}

// freePort returns a loopback port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// newCA makes the test's certificate authority.
func (e *whEnv) newCA(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "sidecar-lifecycle e2e webhook CA " + suite.runID},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	if e.ca, err = x509.ParseCertificate(der); err != nil {
		t.Fatal(err)
	}
	e.caKey = key
	e.caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// writeServingCert issues a certificate for 127.0.0.1 with serial from the
// CA and writes it and its key to certFile and keyFile, each by a rename,
// so a watcher never reads half a file.
func (e *whEnv) writeServingCert(t *testing.T, serial int64, certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, e.ca, &key.PublicKey, e.caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		path string
		data []byte
	}{
		{keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})},
		{certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})},
	} {
		if err := os.WriteFile(f.path+".new", f.data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(f.path+".new", f.path); err != nil {
			t.Fatal(err)
		}
	}
}

// servedSerial is the serial of the certificate the process serves now.
func (e *whEnv) servedSerial(p *whProcess) (int64, error) {
	pool := x509.NewCertPool()
	pool.AddCert(e.ca)
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 2 * time.Second}, "tcp", "127.0.0.1:"+strconv.Itoa(p.port),
		&tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber.Int64(), nil
}

// start runs a webhook process with its own certificate files, logging to
// dir/NAME.log, and stops it (SIGTERM) when the test ends.
func (e *whEnv) start(t *testing.T, name string, port int, args func(p *whProcess) []string) *whProcess {
	t.Helper()
	p := &whProcess{name: name, port: port, metrics: freePort(t), exited: make(chan struct{}),
		certFile: filepath.Join(e.dir, name+".crt"), keyFile: filepath.Join(e.dir, name+".key")}
	e.writeServingCert(t, 2, p.certFile, p.keyFile)
	log, err := os.Create(filepath.Join(e.dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	argv := args(p)
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Stdout, p.cmd.Stderr = log, log
	p.cmd.Env = append(os.Environ(), p.env...)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); log.Close(); close(p.exited) }()
	t.Cleanup(func() { p.stop(t) })
	return p
}

// stop sends SIGTERM and waits for the process to end (SIGKILL after 20s).
func (p *whProcess) stop(t *testing.T) {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		t.Logf("%s: no exit 20s after SIGTERM; killing it", p.name)
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// waitServing waits until the process answers a TLS handshake with a
// certificate of the CA (and, with a readyz path, answers 200 there).
func (e *whEnv) waitServing(t *testing.T, p *whProcess, readyz bool) {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(e.ca)
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-p.exited:
			log, _ := os.ReadFile(filepath.Join(e.dir, p.name+".log"))
			t.Fatalf("%s exited at start:\n%s", p.name, log)
		default:
		}
		var err error
		if readyz {
			var resp *http.Response
			if resp, err = client.Get(fmt.Sprintf("https://127.0.0.1:%d/readyz", p.port)); err == nil {
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					err = fmt.Errorf("readyz: %s", resp.Status)
				}
			}
		} else {
			_, err = e.servedSerial(p)
		}
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not serving after 60s: %v", p.name, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// metric reads a sample's value from the process's /metrics (0 if absent).
func (p *whProcess) metric(t *testing.T, sample string) float64 {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", p.metrics))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	for _, line := range strings.Split(buf.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, sample+" "); ok {
			v, _ := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			return v
		}
	}
	return 0
}

// buildProgram builds ./cmd/NAME for this host into dir.
func buildProgram(t *testing.T, dir, name string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	build := exec.Command("go", "build", "-o", out, "./cmd/"+name)
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", name, err, b)
	}
	return out
}

// createNamespaces makes one namespace per role, labelled for this run's
// webhooks, and deletes them when the test ends.
func (e *whEnv) createNamespaces(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	for _, role := range whRoles {
		ns := e.ns(role)
		if _, err := kubectl(ctx, "create", "namespace", ns); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_, _ = kubectl(context.Background(), "delete", "namespace", ns, "--wait=false", "--ignore-not-found")
		})
		if _, err := kubectl(ctx, "label", "namespace", ns, whRunLabel+"="+suite.runID, whRoleLabel+"="+role); err != nil {
			t.Fatal(err)
		}
	}
}

// webhook is one webhook entry of a configuration: its name, URL and the
// namespace roles it is called for.
type webhook struct {
	name, url string
	roles     []string
	reinvoke  bool
}

func (e *whEnv) clientConfig(url string) admissionregistrationv1.WebhookClientConfig {
	return admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: e.caPEM}
}

func (e *whEnv) selector(roles []string) *metav1.LabelSelector {
	return &metav1.LabelSelector{
		MatchLabels:      map[string]string{whRunLabel: suite.runID},
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: whRoleLabel, Operator: metav1.LabelSelectorOpIn, Values: roles}},
	}
}

var podCreate = []admissionregistrationv1.RuleWithOperations{{
	Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
	Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
}}

// registerMutating registers a MutatingWebhookConfiguration named
// wh-RUN-SUFFIX (the API server calls configurations in name order) with
// failurePolicy Ignore, and deletes it when the test ends.
func (e *whEnv) registerMutating(t *testing.T, suffix string, hooks ...webhook) {
	t.Helper()
	ignore, none, timeout := admissionregistrationv1.Ignore, admissionregistrationv1.SideEffectClassNone, int32(10)
	cfg := admissionregistrationv1.MutatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: "wh-" + suite.runID + "-" + suffix, Labels: map[string]string{"app.kubernetes.io/managed-by": managedBy, whRunLabel: suite.runID}},
	}
	for _, h := range hooks {
		policy := admissionregistrationv1.NeverReinvocationPolicy
		if h.reinvoke {
			policy = admissionregistrationv1.IfNeededReinvocationPolicy
		}
		cfg.Webhooks = append(cfg.Webhooks, admissionregistrationv1.MutatingWebhook{
			Name: h.name, ClientConfig: e.clientConfig(h.url), Rules: podCreate,
			FailurePolicy: &ignore, SideEffects: &none, TimeoutSeconds: &timeout,
			AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: e.selector(h.roles),
			ReinvocationPolicy: &policy,
		})
	}
	e.apply(t, "mutatingwebhookconfiguration", cfg.Name, cfg)
}

// registerValidating registers a ValidatingWebhookConfiguration, as
// registerMutating does.
func (e *whEnv) registerValidating(t *testing.T, suffix string, hooks ...webhook) {
	t.Helper()
	ignore, none, timeout := admissionregistrationv1.Ignore, admissionregistrationv1.SideEffectClassNone, int32(10)
	cfg := admissionregistrationv1.ValidatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: "wh-" + suite.runID + "-" + suffix, Labels: map[string]string{"app.kubernetes.io/managed-by": managedBy, whRunLabel: suite.runID}},
	}
	for _, h := range hooks {
		cfg.Webhooks = append(cfg.Webhooks, admissionregistrationv1.ValidatingWebhook{
			Name: h.name, ClientConfig: e.clientConfig(h.url), Rules: podCreate,
			FailurePolicy: &ignore, SideEffects: &none, TimeoutSeconds: &timeout,
			AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: e.selector(h.roles),
		})
	}
	e.apply(t, "validatingwebhookconfiguration", cfg.Name, cfg)
}

func (e *whEnv) apply(t *testing.T, kind, name string, obj any) {
	t.Helper()
	data, err := json.MarshalIndent(obj, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	file := save(t, e.dir, name+".json", data)
	// Registered first, so that a failure below still removes it.
	t.Cleanup(func() { _, _ = kubectl(context.Background(), "delete", kind, name, "--ignore-not-found") })
	if _, err := kubectl(context.Background(), "create", "-f", file); err != nil {
		t.Fatal(err)
	}
}
