package config_test

import (
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// TestLoadStartupProbe: a startupProbe the API server would reject
// is a config error naming the field, not a pod written with exit code 0.
func TestLoadStartupProbe(t *testing.T) {
	spec := header + "spec:\n  mode: native\n  kubernetesVersion: \"1.31\"\n  sidecars:\n"
	for _, tc := range []struct {
		name, sidecars string
		wantPaths      []string
		wantMsg        string
	}{
		{"out of range", "  - {name: a, startupProbe: {httpGet: {path: /ready, port: 70000}}}\n",
			[]string{"spec.sidecars[0].startupProbe.httpGet.port"}, "70000 is not a port number from 1 to 65535"},
		{"missing", "  - {name: a, startupProbe: {tcpSocket: {host: localhost}}}\n",
			[]string{"spec.sidecars[0].startupProbe.tcpSocket.port"}, "is required: a port number from 1 to 65535 or a port name"},
		{"bad name", "  - {name: a}\n  - {name: b, startupProbe: {httpGet: {port: Admin_Port}}}\n",
			[]string{"spec.sidecars[1].startupProbe.httpGet.port"}, `"Admin_Port" is not a port name: use at most 15 lowercase letters, digits and hyphens, or a port number from 1 to 65535`},
		{"quoted number", "  - {name: a, startupProbe: {httpGet: {port: \"8080\"}}}\n",
			[]string{"spec.sidecars[0].startupProbe.httpGet.port"}, `"8080" is not a port name`},
		{"grpc", "  - {name: a, startupProbe: {grpc: {port: 0}}}\n",
			[]string{"spec.sidecars[0].startupProbe.grpc.port"}, "is required: a port number from 1 to 65535"},
		{"two handlers", "  - {name: a, startupProbe: {httpGet: {port: 80}, tcpSocket: {port: 80}}}\n",
			[]string{"spec.sidecars[0].startupProbe"}, "has 2 handlers (httpGet, tcpSocket): keep one"},
		{"negative timings", "  - {name: a, startupProbe: {exec: {command: [x]}, periodSeconds: -1, failureThreshold: -3}}\n",
			[]string{"spec.sidecars[0].startupProbe.periodSeconds", "spec.sidecars[0].startupProbe.failureThreshold"}, "-1 is negative"},
		{"successThreshold", "  - {name: a, startupProbe: {exec: {command: [x]}, successThreshold: 2}}\n",
			[]string{"spec.sidecars[0].startupProbe.successThreshold"}, "2: a startupProbe's successThreshold must be 1"},
		{"probe grace period", "  - {name: a, startupProbe: {exec: {command: [x]}, terminationGracePeriodSeconds: 0}}\n",
			[]string{"spec.sidecars[0].startupProbe.terminationGracePeriodSeconds"}, "0 is not greater than 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkFieldError(t, spec+tc.sidecars, tc.wantPaths, tc.wantMsg)
		})
	}
	if _, err := config.LoadBytes([]byte(spec + "  - {name: a, startupProbe: {httpGet: {port: admin}}}\n  - {name: b, startupProbe: {tcpSocket: {port: 65535}}}\n  - {name: e, startupProbe: {grpc: {port: 1}}}\n  - {name: c, startupProbe: {}}\n  - {name: d, startupProbe: {exec: {command: [x]}, successThreshold: 1, periodSeconds: 0, terminationGracePeriodSeconds: 5}}\n")); err != nil {
		t.Errorf("valid ports: %v", err)
	}
}
