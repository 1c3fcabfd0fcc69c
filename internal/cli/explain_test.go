package cli

import (
	"bytes"
	"strings"
	"testing"
)

const explainInput = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: api, namespace: shop}
  spec:
    selector: {matchLabels: {app: api}}
    template:
      metadata: {labels: {app: api}}
      spec:
        containers:
        - {name: api, image: 'api:1', lifecycle: {preStop: {exec: {command: [sh, -c, "sleep 20; kill 1"]}}}}
        - {name: linkerd-proxy, image: 'proxy:1'}
functionConfig:
  apiVersion: fn.sidecar-lifecycle.dev/v1alpha1
  kind: SidecarLifecycle
  spec:
    sidecars: [{preset: linkerd, waitBeforeExit: auto}]
`

// TestExplainFlag: --explain prints the text table, --explain=markdown the
// Mermaid chart, both of the workload as the function writes it (the
// proxy waits 20 s + 5 s); a bad format or bad input is exit code 1.
func TestExplainFlag(t *testing.T) {
	for _, tc := range []struct {
		arg, in  string
		code     int
		out, err string
	}{
		{"--explain", explainInput, 0, "linkerd-proxy (sidecar): preStop ends; SIGTERM, it leaves", ""},
		{"--explain=text", explainInput, 0, "Deployment shop/api (terminationGracePeriodSeconds 35)", ""},
		{"--explain=markdown", explainInput, 0, "    preStop 25s :0, 25000\n", ""},
		{"--explain=html", explainInput, 1, "", `sidecar-lifecycle: error: unknown argument "--explain=html"`},
		{"--explain", "kind: Pod\n", 1, "", `sidecar-lifecycle: error: input is a "Pod", not a ResourceList`},
	} {
		var out, errOut bytes.Buffer
		code := run([]string{tc.arg}, strings.NewReader(tc.in), &out, newLines(&errOut, func(string) string { return "" }, "/"))
		if code != tc.code || !strings.Contains(out.String(), tc.out) || !strings.Contains(errOut.String(), tc.err) {
			t.Errorf("%s: code %d, stdout %q, stderr %q", tc.arg, code, out.String(), errOut.String())
		}
	}
	var out bytes.Buffer
	run([]string{"--help"}, nil, &out, newLines(&out, func(string) string { return "" }, "/"))
	if !strings.Contains(out.String(), "--explain[=text|markdown]") {
		t.Error("--help does not mention --explain")
	}
}
