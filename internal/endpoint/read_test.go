package endpoint

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// csql is the Cloud SQL Auth Proxy's entry, alloydb the AlloyDB Auth Proxy's.
var csql, alloydb = lookup(preset.CloudSQLProxy), lookup("alloydb-auth-proxy")

func lookup(name string) preset.Preset {
	p, ok := preset.Lookup(name)
	if !ok {
		panic(name)
	}
	return p
}

// noWait says why the container's image has no wait command, as Resolve
// tells it; empty when it has one.
func noWait(ct Container) string {
	switch w := ct.Ready.Wait; {
	case w == nil:
		return ct.Ready.Variant + " has no wait command"
	case preset.ImageOlder(ct.Image, w.Since):
		return "older than " + w.Since
	}
	return ""
}

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name, container string
		v1, health      bool
		port, address   string
		envStyle        bool
		broken, unread  int
		noWait          string
	}{
		{name: "defaults", container: `{image: "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1", args: ["--port=5432", "p:r:i"]}`,
			port: "9090", address: "localhost"},
		{name: "flags with =", container: `{args: ["--health-check", "--http-address=0.0.0.0", "--http-port=9801", "p:r:i"]}`,
			health: true, port: "9801", address: "0.0.0.0"},
		{name: "flags as two arguments", container: `{args: ["--http-port", "9801", "--http-address", "0.0.0.0", "--health-check=true"]}`,
			health: true, port: "9801", address: "0.0.0.0"},
		{name: "the flag ends command, its value starts args", container: `{command: [/cloud-sql-proxy, --http-port], args: ["9802", "p:r:i"]}`,
			port: "9802", address: "localhost"},
		{name: "a later flag wins", container: `{args: ["--http-port=1", "--health-check", "--http-port=2", "--health-check=false"]}`,
			port: "2", address: "localhost"},
		{name: "after -- nothing is a flag", container: `{args: ["--", "--health-check"]}`, port: "9090", address: "localhost"},
		{name: "the operator's environment", container: `{env: [{name: CSQL_PROXY_HEALTH_CHECK, value: "true"}, {name: CSQL_PROXY_HTTP_PORT, value: "9801"}, {name: CSQL_PROXY_HTTP_ADDRESS, value: 0.0.0.0}]}`,
			health: true, port: "9801", address: "0.0.0.0", envStyle: true},
		{name: "a flag wins over the environment", container: `{args: ["--http-port=9803"], env: [{name: CSQL_PROXY_HTTP_PORT, value: "9801"}, {name: CSQL_PROXY_HEALTH_CHECK, value: "1"}]}`,
			health: true, port: "9803", address: "localhost", envStyle: true},
		{name: "an empty variable is unset, a later one wins", container: `{env: [{name: CSQL_PROXY_HTTP_PORT, value: "9801"}, {name: CSQL_PROXY_HTTP_PORT, value: "9804"}, {name: CSQL_PROXY_HTTP_ADDRESS, value: ""}]}`,
			port: "9804", address: "localhost", envStyle: true},
		{name: "other variables are only the style", container: `{env: [{name: CSQL_PROXY_PORT, value: "5432"}, {name: DB_USER, value: u}]}`,
			port: "9090", address: "localhost", envStyle: true},
		{name: "unreadable sources", container: `{env: [{name: CSQL_PROXY_HTTP_PORT, valueFrom: {configMapKeyRef: {name: c, key: k}}}], envFrom: [{configMapRef: {name: proxy}}], args: ["--config-file=/etc/proxy.toml"]}`,
			port: "9090", address: "localhost", envStyle: true, unread: 3},
		{name: "one argument holding a space", container: `{args: ["--health-check", "--http-address 0.0.0.0", "--http-port= 9801"]}`,
			health: true, port: " 9801", address: "localhost", broken: 1},
		{name: "an image without wait", container: `{image: "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.7.2-alpine"}`,
			port: "9090", address: "localhost", noWait: "older than 2.8.0"},
		{name: "wait is in 2.8.0", container: `{image: "gcr.io/cloud-sql-connectors/cloud-sql-proxy:v2.8.0@sha256:abc"}`,
			port: "9090", address: "localhost"},
		{name: "v1 by image", container: `{image: "gcr.io/cloudsql-docker/gce-proxy:1.33.2", command: [/cloud_sql_proxy, "-instances=p:r:i=tcp:5432", -use_http_health_check, -health_check_port, "8091"]}`,
			v1: true, health: true, port: "8091", noWait: "v1"},
		{name: "v1 by program, double dash and =", container: `{image: "mirror.example/proxy:1", command: [cloud_sql_proxy, --use_http_health_check=true, --health_check_port=8092]}`,
			v1: true, health: true, port: "8092", noWait: "v1"},
		{name: "v1 stops at the first argument that is not a flag", container: `{image: "gcr.io/cloudsql-docker/gce-proxy:1.33.2", command: [/cloud_sql_proxy, -verbose, positional, -use_http_health_check]}`,
			v1: true, port: "8090", noWait: "v1"},
		{name: "v1 with a space", container: `{image: "gcr.io/cloudsql-docker/gce-proxy:1.33.2", command: [/cloud_sql_proxy, "-health_check_port 8091"]}`,
			v1: true, port: "8090", broken: 1, noWait: "v1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Read(krmtest.Parse(t, tc.container), "spec.containers[1]", csql)
			v1 := p.Ready.Variant == "the v1 proxy"
			if v1 != tc.v1 || p.On() != tc.health || p.Port() != tc.port || p.EnvStyle != tc.envStyle {
				t.Errorf("v1 %v health %v port %q env %v, want %v %v %q %v", v1, p.On(), p.Port(), p.EnvStyle, tc.v1, tc.health, tc.port, tc.envStyle)
			}
			if !tc.v1 && p.Address() != tc.address {
				t.Errorf("address %q, want %q", p.Address(), tc.address)
			}
			if len(p.Broken) != tc.broken || len(p.Unread) != tc.unread {
				t.Errorf("broken %q, unread %q; want %d and %d", p.Broken, p.Unread, tc.broken, tc.unread)
			}
			if got := noWait(p); (got == "") != (tc.noWait == "") || !strings.Contains(got, tc.noWait) {
				t.Errorf("no wait %q, want %q", got, tc.noWait)
			}
		})
	}
}

func TestReadBrokenMessage(t *testing.T) {
	p := Read(krmtest.Parse(t, `{args: ["--health-check", "--http-address 0.0.0.0"]}`), "spec.template.spec.containers[1]", csql)
	krmtest.CheckLog(t, "broken", p.Broken, []string{
		`spec.template.spec.containers[1].args[1]: "--http-address 0.0.0.0" is one argument holding a space...write "--http-address=0.0.0.0"`,
	})
}

func TestReachable(t *testing.T) {
	for address, want := range map[string]bool{"": false, "localhost": false, "127.0.0.1": false, "::1": false, "[::1]": false, "0.0.0.0": true, "::": true, "10.0.0.7": true} {
		arg := "--http-address=" + address
		if address == "" {
			arg = "--port=5432"
		}
		if got := Read(krmtest.Parse(t, `{args: ["`+arg+`"]}`), "", csql).Reachable(); got != want {
			t.Errorf("%q: reachable %v, want %v", address, got, want)
		}
	}
	if !Read(krmtest.Parse(t, `{image: "gcr.io/cloudsql-docker/gce-proxy:1.33.2"}`), "", csql).Reachable() {
		t.Error("v1 listens on every interface")
	}
}

func TestWaitCommand(t *testing.T) {
	for _, tc := range []struct{ container, want string }{
		{`{args: ["--health-check"]}`, "/cloud-sql-proxy wait --max=30s --http-port 9090"},
		{`{env: [{name: CSQL_PROXY_HTTP_PORT, value: "9801"}, {name: CSQL_PROXY_HTTP_ADDRESS, value: "0.0.0.0"}]}`, "/cloud-sql-proxy wait --max=30s --http-port 9801"},
		{`{args: ["--http-address", "10.1.2.3", "--http-port", "9191"]}`, "/cloud-sql-proxy wait --max=30s --http-port 9191 --http-address 10.1.2.3"},
	} {
		got := Read(krmtest.Parse(t, tc.container), "", csql).waitCommand()
		if !slices.Equal(got, strings.Fields(tc.want)) {
			t.Errorf("%s: wait %q, want %q", tc.container, got, tc.want)
		}
	}
}

// TestReadOddShapes: fields of the wrong shape are skipped when read, and
// an error when they would have to be written; never a panic.
func TestReadOddShapes(t *testing.T) {
	for fields, wantErr := range map[string]string{
		`env: [x, {name: CSQL_PROXY_HTTP_PORT, value: {a: b}}, {name: [CSQL_PROXY_HEALTH_CHECK]}], args: [{a: b}, --http-port]`: "",
		`command: notalist, args: {a: b}, env: notalist, envFrom: x, image: [x]`:                                                `container "cloud-sql-proxy": args is not a list`,
		`command: [], args: [--, --health-check], env: []`:                                                                      "",
		`image: "gcr.io/cloudsql-docker/gce-proxy", command: [/cloud_sql_proxy, -health_check_port]`:                            "",
	} {
		spec := krmtest.Parse(t, "containers: [{name: cloud-sql-proxy, "+fields+"}]")
		var log report.Log
		(Sidecar{Name: "cloud-sql-proxy", Preset: csql, Native: true, Log: &log}).Resolve(spec, "spec")
		_, err := (Enable{Container: "cloud-sql-proxy", Preset: csql, Reachable: true, Log: &log}).Filter([]*yaml.RNode{spec})
		if got := fmt.Sprint(err); (wantErr == "" && err != nil) || (wantErr != "" && got != wantErr) {
			t.Errorf("%s: error %v, want %q", fields, err, wantErr)
		}
	}
}
