package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestWebhookVerbArguments: the verb refuses a run without a certificate,
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
	} {
		var stderr bytes.Buffer
		code := runWebhook(c.args, func(k string) string { return c.env[k] }, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: exit %d, stderr %s", c.args, code, stderr.String())
		}
	}
}
