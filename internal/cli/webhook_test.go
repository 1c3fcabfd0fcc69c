package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestWebhookVerbArguments: the verb refuses a run without a certificate,
// with a certificate or a policy file that does not load,
// an unknown validation action and an extra argument, naming the problem.
func TestWebhookVerbArguments(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{nil, nil, "--cert-file and --key-file are required"},
		{[]string{"--cert-file", "c"}, nil, "--cert-file and --key-file are required"},
		{[]string{"--cert-file=c", "--key-file=k", "extra"}, nil, `unexpected argument "extra"`},
		{[]string{"--key-file=k"}, map[string]string{"SIDECAR_LIFECYCLE_CERT_FILE": "c", "SIDECAR_LIFECYCLE_VALIDATION_ACTIONS": "Maybe"}, "is not Warn, Deny or Audit"},
		{[]string{"--cert-file=/nonexistent/tls.crt", "--key-file=/nonexistent/tls.key", "--listen=127.0.0.1:0", "--metrics-listen=127.0.0.1:0"}, nil, "sidecar-lifecycle webhook: loading the certificate"},
		{[]string{"--config=/nonexistent/policy.yaml", "--cert-file=c", "--key-file=k", "--listen=127.0.0.1:0", "--metrics-listen=127.0.0.1:0"}, nil, "sidecar-lifecycle webhook: "},
	} {
		t.Setenv("KUBECONFIG", "/nonexistent/kubeconfig") // no cluster: the Namespaces are not read
		var stderr bytes.Buffer
		code := runWebhook(c.args, func(k string) string { return c.env[k] }, &stderr)
		last := strings.TrimSpace(stderr.String())
		if i := strings.LastIndex(last, "\n"); i >= 0 {
			last = last[i+1:]
		}
		if code != 1 || !strings.HasPrefix(last, "sidecar-lifecycle webhook: ") || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: exit %d, stderr %s", c.args, code, stderr.String())
		}
	}
}
