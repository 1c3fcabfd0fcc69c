package endpoint

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// entry reads a catalog entry of a config's own.
func entry(t *testing.T, text string) preset.Preset {
	t.Helper()
	e, err := preset.ReadEntry([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if errs := e.Check(); len(errs) > 0 {
		t.Fatal(errs)
	}
	return preset.Of(e)
}

// TestResolveFromTheCatalog: the same edit serves every entry by its
// data: the AlloyDB Auth Proxy's flags, variables and versions, and
// entries that do not say how to switch their endpoint.
func TestResolveFromTheCatalog(t *testing.T) {
	const (
		image  = `image: "gcr.io/alloydb-connectors/alloydb-auth-proxy:1.15.2"`
		vendor = `args: ["--structured-logs", "--port=5432", "projects/p/locations/l/clusters/c/instances/i"]`
	)
	offNoSwitch := entry(t, `{name: acme, containers: [{name: acme}], ready: {endpoint: {path: /ready, port: 9000}, wait: {command: [acme, wait]}, startupProbe: {probe: {httpGet: {path: /ready, port: 9000}}}}}`)
	loopback := entry(t, `{name: acme, containers: [{name: acme}], ready: {endpoint: {path: /ready, port: 9000, on: true, address: 127.0.0.1}, startupProbe: {probe: {httpGet: {path: /ready, port: 9000}}}}}`)
	execProbe := entry(t, `{name: acme, containers: [{name: acme}], ready: {endpoint: {path: /ready, port: 9000, on: true, address: 127.0.0.1}, startupProbe: {probe: {exec: {command: [acme, check]}}}}}`)
	linkerd := lookup(preset.Linkerd)
	for _, tc := range []struct {
		name, container string
		sidecar         Sidecar
		undecided       bool
		wait            string // space-separated
		probePort       int
		enable          bool
		reachable       bool
		warnings        []string
		errors          []string
	}{
		{
			name:      "AlloyDB, ordered, the vendor's example: switched on, wait on 9090",
			container: `{name: alloydb-auth-proxy, ` + image + `, ` + vendor + `}`,
			wait:      "/alloydb-auth-proxy wait --max=30s --http-port 9090",
			enable:    true,
		},
		{
			name:      "AlloyDB, ordered, its variables: wait on their port, nothing to switch",
			container: `{name: alloydb-auth-proxy, env: [{name: ALLOYDB_PROXY_HEALTH_CHECK, value: "true"}, {name: ALLOYDB_PROXY_HTTP_PORT, value: "9191"}]}`,
			wait:      "/alloydb-auth-proxy wait --max=30s --http-port 9191",
		},
		{
			name:      "AlloyDB, ordered, bound to the pod IP: the wait is told the address",
			container: `{name: alloydb-auth-proxy, args: [--health-check, --http-address, 10.1.2.3, --http-port=9191]}`,
			wait:      "/alloydb-auth-proxy wait --max=30s --http-port 9191 --http-address 10.1.2.3",
		},
		{
			name:      "AlloyDB, native, the port as two arguments: probe on it, switched on and reachable",
			container: `{name: alloydb-auth-proxy, ` + image + `, args: [--http-port, "9191"]}`,
			sidecar:   Sidecar{Native: true},
			probePort: 9191, enable: true, reachable: true,
		},
		{
			name:      "AlloyDB, ordered, an image before the wait command",
			container: `{name: alloydb-auth-proxy, image: "gcr.io/alloydb-connectors/alloydb-auth-proxy:1.5.0"}`,
			errors:    []string{`image "gcr.io/alloydb-connectors/alloydb-auth-proxy:1.5.0" is older than 1.6.0, the first with the wait command: ordered mode cannot hold the application until the sidecar is ready; use mode native...move to alloydb-connectors/alloydb-auth-proxy 1.6.0 or newer, or give waitForReady`},
		},
		{
			name:      "AlloyDB, native, an image before --http-address: no probe, warned",
			container: `{name: alloydb-auth-proxy, image: "gcr.io/alloydb-connectors/alloydb-auth-proxy:0.5.1", args: [--health-check]}`,
			sidecar:   Sidecar{Native: true},
			warnings:  []string{`the sidecar's health endpoints are on localhost only, which kubelet cannot reach, and image "gcr.io/alloydb-connectors/alloydb-auth-proxy:0.5.1" is older than 0.6.0, the first with --http-address: a startupProbe cannot pass, so the function writes none`},
		},
		{
			name:      "AlloyDB, native, an image before --health-check: no probe, warned",
			container: `{name: alloydb-auth-proxy, image: "gcr.io/alloydb-connectors/alloydb-auth-proxy:0.4.0"}`,
			sidecar:   Sidecar{Native: true},
			warnings:  []string{`the sidecar's health endpoints are off and on localhost only, and image "gcr.io/alloydb-connectors/alloydb-auth-proxy:0.4.0" is older than 0.5.0, the first with --health-check`},
		},
		{
			name:      "AlloyDB, native, the config's probe that cannot pass: an error",
			container: `{name: alloydb-auth-proxy, image: "gcr.io/alloydb-connectors/alloydb-auth-proxy:0.4.0"}`,
			sidecar:   Sidecar{Native: true, StartupProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/readiness", Port: intstr.FromInt32(9090)}}}},
			errors:    []string{"older than 0.5.0, the first with --health-check: the config's startupProbe cannot pass"},
		},
		{
			name:      "AlloyDB, an image before its variables: the switch is a flag",
			container: `{name: alloydb-auth-proxy, image: "gcr.io/alloydb-connectors/alloydb-auth-proxy:0.6.2", env: [{name: ALLOYDB_PROXY_HEALTH_CHECK, value: "true"}]}`,
			sidecar:   Sidecar{Native: true},
			probePort: 9090, enable: true, reachable: true,
		},
		{
			name:      "AlloyDB, require: an error naming the flags",
			container: `{name: alloydb-auth-proxy, ` + vendor + `}`,
			sidecar:   Sidecar{Native: true, Require: true},
			probePort: 9090, // written only without the error
			errors:    []string{"the sidecar's health endpoints are off and on localhost only, so its startupProbe cannot pass: add --health-check and --http-address=0.0.0.0 (or set healthCheck: enable"},
		},
		{
			name:      "no switch, endpoint off: the catalog's wait is not written",
			container: `{name: acme}`,
			sidecar:   Sidecar{Preset: offNoSwitch},
			warnings:  []string{"the sidecar's health endpoints are off by default, and the catalog entry acme does not say how to switch them on: a wait command cannot pass, so the function writes none"},
		},
		{
			name:      "no switch, endpoint off: the catalog's probe is not written",
			container: `{name: acme}`,
			sidecar:   Sidecar{Preset: offNoSwitch, Native: true},
			warnings:  []string{"a startupProbe cannot pass, so the function writes none"},
		},
		{
			name:      "no switch, endpoint off: the config's wait is the user's",
			container: `{name: acme}`,
			sidecar:   Sidecar{Preset: offNoSwitch, WaitForReady: []string{"acme", "wait", "--timeout=1m"}},
			undecided: true,
		},
		{
			name:      "no switch, on localhost only: kubelet's probe is not written",
			container: `{name: acme}`,
			sidecar:   Sidecar{Preset: loopback, Native: true},
			warnings:  []string{"the sidecar's health endpoints are on 127.0.0.1 only, which kubelet cannot reach"},
		},
		{
			name:      "no switch, on localhost only: an exec probe runs in the container",
			container: `{name: acme}`,
			sidecar:   Sidecar{Preset: execProbe, Native: true},
			undecided: true,
		},
		{
			name:      "an endpoint that is always on is left to the preset",
			container: `{name: linkerd-proxy}`,
			sidecar:   Sidecar{Preset: linkerd},
			undecided: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log report.Log
			s := tc.sidecar
			s.Log = &log
			if s.Preset.Name == "" {
				s.Preset = alloydb
			}
			c := krmtest.Parse(t, tc.container)
			s.Name = stringField(c, "name")
			plan := s.Resolve(krmtest.Parse(t, "containers: [{name: app}, "+tc.container+"]"), specPath)
			if plan.Decided == tc.undecided {
				t.Errorf("decided %v, want %v", plan.Decided, !tc.undecided)
			}
			if got := strings.Join(plan.WaitCommand, " "); !tc.undecided && got != tc.wait {
				t.Errorf("wait %q, want %q", got, tc.wait)
			}
			switch p := plan.StartupProbe; {
			case tc.undecided:
			case tc.probePort == 0 && p != nil:
				t.Errorf("probe %+v, want none", p)
			case tc.probePort != 0 && (p == nil || p.HTTPGet == nil || p.HTTPGet.Port.IntValue() != tc.probePort):
				t.Errorf("probe %+v, want one on %d", p, tc.probePort)
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
