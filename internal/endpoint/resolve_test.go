package endpoint

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

const specPath = "spec.template.spec"

func TestResolveCloudSQL(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		sidecar    Sidecar
		wait       string // space-separated
		probePort  int
		probe      string // "period/timeout/failures"
		enable     bool
		reachable  bool
		warnings   []string
		errors     []string
	}{
		{
			name:   "ordered, the vendor's sidecar without health check: switched on, wait on 9090",
			spec:   `containers: [{name: app}, {name: cloud-sql-proxy, image: "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1", args: ["--port=5432", "p:r:i"]}]`,
			wait:   "/cloud-sql-proxy wait --max=30s --http-port 9090",
			enable: true,
		},
		{
			name: "ordered, the operator's variables: wait on their port, nothing to switch",
			spec: `containers: [{name: cloud-sql-proxy, env: [{name: CSQL_PROXY_HEALTH_CHECK, value: "true"}, {name: CSQL_PROXY_HTTP_PORT, value: "9801"}, {name: CSQL_PROXY_HTTP_ADDRESS, value: 0.0.0.0}]}]`,
			wait: "/cloud-sql-proxy wait --max=30s --http-port 9801",
		},
		{
			name:    "ordered, the config's wait command is kept and still needs the endpoints",
			spec:    `containers: [{name: cloud-sql-proxy}]`,
			sidecar: Sidecar{WaitForReady: []string{"/cloud-sql-proxy", "wait", "--max=2m"}},
			wait:    "/cloud-sql-proxy wait --max=2m",
			enable:  true,
		},
		{
			name:     "ordered, the config's wait command on another port: warned",
			spec:     `containers: [{name: cloud-sql-proxy, args: [--health-check], env: [{name: CSQL_PROXY_HTTP_PORT, value: "9801"}]}]`,
			sidecar:  Sidecar{WaitForReady: []string{"/cloud-sql-proxy", "wait", "--max=2m"}},
			wait:     "/cloud-sql-proxy wait --max=2m",
			warnings: []string{"containers[0]: the config's waitForReady polls port 9090, but the sidecar's health endpoints listen on 9801...pass --http-port 9801"},
		},
		{
			name:    "ordered, the config's wait command on the right port",
			spec:    `containers: [{name: cloud-sql-proxy, args: [--health-check, --http-port=9801]}]`,
			sidecar: Sidecar{WaitForReady: []string{"/cloud-sql-proxy", "wait", "--http-port", "9801"}},
			wait:    "/cloud-sql-proxy wait --http-port 9801",
		},
		{
			name:    "ordered, a wait command of the user's own needs nothing",
			spec:    `containers: [{name: cloud-sql-proxy, image: "gcr.io/cloudsql-docker/gce-proxy:1.33.2"}]`,
			sidecar: Sidecar{WaitForReady: []string{"/bin/sh", "-c", "sleep 5"}},
			wait:    "/bin/sh -c sleep 5",
		},
		{
			name:   "ordered, v1: no wait command",
			spec:   `containers: [{name: app}, {name: cloud-sql-proxy, image: "gcr.io/cloudsql-docker/gce-proxy:1.33.2", command: [/cloud_sql_proxy, -use_http_health_check]}]`,
			errors: []string{"spec.template.spec.containers[1]: the v1 proxy has no wait command: ordered mode cannot hold...use mode native...or give waitForReady"},
		},
		{
			name:   "ordered, a v2 image older than wait",
			spec:   `containers: [{name: cloud-sql-proxy, image: "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.1.0", args: [--health-check]}]`,
			errors: []string{`containers[0]: image "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.1.0" is older than 2.8.0`},
		},
		{
			name:      "native, no health check: switched on and reachable, probe on the two-argument port",
			spec:      `containers: [{name: cloud-sql-proxy, args: [--http-port, "9801"]}]`,
			sidecar:   Sidecar{Native: true},
			probePort: 9801, probe: "1/10/60",
			enable: true, reachable: true,
		},
		{
			name:      "native, v1: its own port and timings",
			spec:      `containers: [{name: cloud-sql-proxy, image: "gcr.io/cloudsql-docker/gce-proxy:1.33.2", command: [/cloud_sql_proxy, -health_check_port=8091]}]`,
			sidecar:   Sidecar{Native: true},
			probePort: 8091, probe: "1/5/20",
			enable: true, reachable: true,
		},
		{
			name:     "native, the container's probe on another port: warned",
			spec:     `initContainers: [{name: cloud-sql-proxy, args: [--health-check, --http-address=0.0.0.0, --http-port=9801], startupProbe: {httpGet: {path: /startup, port: 9090}}}]`,
			sidecar:  Sidecar{Native: true},
			warnings: []string{"spec.template.spec.initContainers[0].startupProbe: port 9090 is not the port the sidecar's health endpoints listen on (9801)...set it to 9801"},
		},
		{
			name:    "native, the config's probe on the proxy, endpoints off: switched on",
			spec:    `containers: [{name: cloud-sql-proxy}]`,
			sidecar: Sidecar{Native: true, StartupProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/startup", Port: intstr.FromInt32(9090)}}}},
			enable:  true, reachable: true,
		},
		{
			name:    "native, a tcp probe of the config's needs nothing",
			spec:    `containers: [{name: cloud-sql-proxy}]`,
			sidecar: Sidecar{Native: true, StartupProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(5432)}}}},
		},
		{
			name:      "require, environment style: an error naming the variables",
			spec:      `containers: [{name: cloud-sql-proxy, env: [{name: CSQL_PROXY_PORT, value: "5432"}]}]`,
			sidecar:   Sidecar{Native: true, Require: true},
			probePort: 9090, probe: "1/10/60", // written only without the error
			errors: []string{"containers[0]: the sidecar's health endpoints are off and on localhost only, so its startupProbe cannot pass: add CSQL_PROXY_HEALTH_CHECK=true and CSQL_PROXY_HTTP_ADDRESS=0.0.0.0 (or set healthCheck: enable"},
		},
		{
			name:      "require, on but on localhost: an error naming the flag",
			spec:      `containers: [{name: cloud-sql-proxy, args: [--health-check]}]`,
			sidecar:   Sidecar{Native: true, Require: true},
			probePort: 9090, probe: "1/10/60", // written only without the error
			errors: []string{"the sidecar's health endpoints are on localhost only, which kubelet cannot reach, so its startupProbe cannot pass: add --http-address=0.0.0.0"},
		},
		{
			name:      "require, v1: its own flag",
			spec:      `containers: [{name: cloud-sql-proxy, image: "gcr.io/cloudsql-docker/gce-proxy:1.33.2"}]`,
			sidecar:   Sidecar{Native: true, Require: true},
			probePort: 8090, probe: "1/5/20", // written only without the error
			errors: []string{"add -use_http_health_check ("},
		},
		{
			name:   "one argument holding a space is an error",
			spec:   `containers: [{name: cloud-sql-proxy, args: ["--health-check", "--http-address 0.0.0.0"]}]`,
			wait:   "/cloud-sql-proxy wait --max=30s --http-port 9090",
			errors: []string{`containers[0].args[1]: "--http-address 0.0.0.0" is one argument holding a space`},
		},
		{
			name:   "a port that is not a number",
			spec:   `containers: [{name: cloud-sql-proxy, args: ["--http-port=$(PORT)"]}]`,
			errors: []string{`containers[0]: the sidecar's health port "$(PORT)", which its wait command needs, is not a port number: give it one from 1 to 65535`},
		},
		{
			name:   "a port out of range",
			spec:   `containers: [{name: cloud-sql-proxy, args: ["--http-port=70000"]}]`,
			errors: []string{`containers[0]: the sidecar's health port "70000", which its wait command needs, is out of range: give it one from 1 to 65535`},
		},
		{
			name:     "unreadable settings are warned about",
			spec:     `containers: [{name: cloud-sql-proxy, args: [--health-check], envFrom: [{configMapRef: {name: proxy}}]}]`,
			wait:     "/cloud-sql-proxy wait --max=30s --http-port 9090",
			warnings: []string{"containers[0]: the function cannot read spec.template.spec.containers[0].envFrom, which may set...it assumes port 9090"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log report.Log
			s := tc.sidecar
			s.Name, s.Preset, s.Log = "cloud-sql-proxy", csql, &log
			plan := s.Resolve(krmtest.Parse(t, tc.spec), specPath)
			if got := strings.Join(plan.WaitCommand, " "); got != tc.wait {
				t.Errorf("wait %q, want %q", got, tc.wait)
			}
			switch p := plan.StartupProbe; {
			case tc.probePort == 0 && p != nil:
				t.Errorf("probe %+v, want none", p)
			case tc.probePort != 0 && (p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/startup" || p.HTTPGet.Port.IntValue() != tc.probePort):
				t.Errorf("probe %+v, want /startup on %d", p, tc.probePort)
			case p != nil && fmt.Sprintf("%d/%d/%d", p.PeriodSeconds, p.TimeoutSeconds, p.FailureThreshold) != tc.probe:
				t.Errorf("probe timings %d/%d/%d, want %s", p.PeriodSeconds, p.TimeoutSeconds, p.FailureThreshold, tc.probe)
			}
			var enable []Enable
			for _, f := range plan.Filters {
				enable = append(enable, f.(Enable))
			}
			if tc.enable != (len(enable) == 1) || (tc.enable && enable[0].Reachable != tc.reachable) {
				t.Errorf("filters %+v, want enable %v reachable %v", plan.Filters, tc.enable, tc.reachable)
			}
			krmtest.CheckLog(t, "warnings", log.Warnings, tc.warnings)
			krmtest.CheckLog(t, "errors", log.Errors, tc.errors)
		})
	}
}
