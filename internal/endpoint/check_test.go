package endpoint

import (
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
)

func TestCheck(t *testing.T) {
	const wait = `lifecycle: {postStart: {exec: {command: [/alloydb-auth-proxy, wait, --max=30s, --http-port, "9090"]}}}`
	const probe = `startupProbe: {httpGet: {path: /startup, port: 9090}}`
	for _, tc := range []struct {
		name, container string
		preset          preset.Preset
		want            []string
	}{
		{"a wait on an endpoint that is off", `{name: p, ` + wait + `}`, alloydb,
			[]string{`its postStart "/alloydb-auth-proxy wait --max=30s --http-port 9090" cannot pass: the health endpoints are off`}},
		{"a wait that can pass", `{name: p, args: [--health-check], ` + wait + `}`, alloydb, nil},
		{"a wait on another port", `{name: p, args: [--health-check, --http-port=9191], ` + wait + `}`, alloydb,
			[]string{"cannot pass: it polls port 9090, but the health endpoints listen on 9191"}},
		{"a wait on localhost for an endpoint on the pod IP", `{name: p, args: [--health-check, --http-address=10.1.2.3], ` + wait + `}`, alloydb,
			[]string{"cannot pass: it polls localhost, but the health endpoints listen on 10.1.2.3"}},
		{"a wait the image does not have", `{name: p, image: "gcr.io/alloydb-connectors/alloydb-auth-proxy:1.5.0", args: [--health-check], ` + wait + `}`, alloydb,
			[]string{`cannot pass: image "gcr.io/alloydb-connectors/alloydb-auth-proxy:1.5.0" is older than 1.6.0, the first with the wait command`}},
		{"the v1 proxy has no wait command", `{name: p, image: "gcr.io/cloudsql-docker/gce-proxy:1.33.2", lifecycle: {postStart: {exec: {command: [/cloud-sql-proxy, wait]}}}}`, csql,
			[]string{"cannot pass: the v1 proxy has no wait command"}},
		{"a command of the user's own", `{name: p, lifecycle: {postStart: {exec: {command: [/bin/sh, -c, "sleep 5"]}}}}`, alloydb, nil},
		{"a probe on an endpoint on localhost", `{name: p, args: [--health-check], ` + probe + `}`, alloydb,
			[]string{"its startupProbe cannot pass: the health endpoints are on localhost only, which kubelet cannot reach"}},
		{"a probe that can pass", `{name: p, args: [--health-check, --http-address=0.0.0.0], ` + probe + `}`, alloydb, nil},
		{"a probe of an entry that does not say how to switch its endpoint", `{name: linkerd-proxy, startupProbe: {httpGet: {path: /ready, port: 1}}}`, lookup(preset.Linkerd), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			krmtest.CheckLog(t, "problems", Check(krmtest.Parse(t, tc.container), tc.preset), tc.want)
		})
	}
}
