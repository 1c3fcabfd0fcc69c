package endpoint

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

func TestEnable(t *testing.T) {
	for _, tc := range []struct {
		name, spec, want, change string
		reachable                bool
	}{
		{
			name:      "flag style: flags added to args in their quoting",
			spec:      "containers:\n- name: cloud-sql-proxy\n  args:\n  # the instance\n  - \"--port=5432\"\n  - \"p:r:i\" # keep me\n",
			want:      "containers:\n- name: cloud-sql-proxy\n  args:\n  # the instance\n  - \"--port=5432\"\n  - \"p:r:i\" # keep me\n  - \"--health-check\"\n  - \"--http-address=0.0.0.0\"\n",
			reachable: true,
			change:    "switched on the health endpoints of cloud-sql-proxy (--health-check) and made them reachable by kubelet (--http-address=0.0.0.0), as Google's Cloud SQL Proxy Operator does",
		},
		{
			name:   "no args: made; ordered mode leaves the address",
			spec:   "containers:\n- name: cloud-sql-proxy\n  image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1\n",
			want:   "containers:\n- name: cloud-sql-proxy\n  image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1\n  args:\n  - --health-check\n",
			change: "switched on the health endpoints of cloud-sql-proxy (--health-check), as",
		},
		{
			name:      "environment style: variables added, quoted",
			spec:      "initContainers:\n- name: cloud-sql-proxy\n  env:\n  - name: CSQL_PROXY_PORT\n    value: \"5432\"\n",
			want:      "initContainers:\n- name: cloud-sql-proxy\n  env:\n  - name: CSQL_PROXY_PORT\n    value: \"5432\"\n  - name: CSQL_PROXY_HEALTH_CHECK\n    value: \"true\"\n  - name: CSQL_PROXY_HTTP_ADDRESS\n    value: \"0.0.0.0\"\n",
			reachable: true,
			change:    "(CSQL_PROXY_HEALTH_CHECK=true) and made...reachable by kubelet (CSQL_PROXY_HTTP_ADDRESS=0.0.0.0)",
		},
		{
			name:      "settings written as off are rewritten where they are",
			spec:      "containers:\n- name: cloud-sql-proxy\n  args: [--health-check=false, --http-address, localhost]\n  env:\n  - {name: CSQL_PROXY_HEALTH_CHECK, value: \"false\"}\n",
			want:      "containers:\n- name: cloud-sql-proxy\n  args: [--health-check, --http-address, 0.0.0.0]\n  env:\n  - {name: CSQL_PROXY_HEALTH_CHECK, value: \"false\"}\n",
			reachable: true,
			change:    "(--health-check) and made...(--http-address 0.0.0.0)",
		},
		{
			name:      "a variable written as off is rewritten",
			spec:      "containers:\n- name: cloud-sql-proxy\n  env:\n  - {name: CSQL_PROXY_HEALTH_CHECK, value: \"false\"}\n  - {name: CSQL_PROXY_HTTP_ADDRESS, value: 127.0.0.1}\n",
			want:      "containers:\n- name: cloud-sql-proxy\n  env:\n  - {name: CSQL_PROXY_HEALTH_CHECK, value: \"true\"}\n  - {name: CSQL_PROXY_HTTP_ADDRESS, value: 0.0.0.0}\n",
			reachable: true,
			change:    "(CSQL_PROXY_HEALTH_CHECK=true)...(CSQL_PROXY_HTTP_ADDRESS=0.0.0.0)",
		},
		{
			name:      "v1: the flag right after the program, where Go's flag parser reads it",
			spec:      "containers:\n- name: cloud-sql-proxy\n  image: gcr.io/cloudsql-docker/gce-proxy:1.33.2\n  command:\n  - \"/cloud_sql_proxy\"\n  - \"-instances=p:r:i=tcp:5432\"\n",
			want:      "containers:\n- name: cloud-sql-proxy\n  image: gcr.io/cloudsql-docker/gce-proxy:1.33.2\n  command:\n  - \"/cloud_sql_proxy\"\n  - \"-use_http_health_check\"\n  - \"-instances=p:r:i=tcp:5432\"\n",
			reachable: true,
			change:    "switched on the health endpoints of cloud-sql-proxy (-use_http_health_check), which healthCheck: require makes an error instead",
		},
		{
			name:      "on and reachable: nothing to do",
			spec:      "containers:\n- name: cloud-sql-proxy\n  args: [--health-check, --http-address=0.0.0.0]\n",
			want:      "containers:\n- name: cloud-sql-proxy\n  args: [--health-check, --http-address=0.0.0.0]\n",
			reachable: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			node := krmtest.Parse(t, tc.spec)
			var log report.Log
			if _, err := (Enable{Container: "cloud-sql-proxy", Preset: csql, Reachable: tc.reachable, Log: &log}).Filter([]*yaml.RNode{node}); err != nil {
				t.Fatal(err)
			}
			if got := node.MustString(); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
			var want []string
			if tc.change != "" {
				want = []string{tc.change}
			}
			krmtest.CheckLog(t, "changes", log.Changes, want)
			krmtest.CheckFilterIdempotent(t, krmtest.Parse(t, tc.spec), func(l *report.Log) kio.Filter {
				return Enable{Container: "cloud-sql-proxy", Preset: csql, Reachable: tc.reachable, Log: l}
			})
		})
	}
}

// TestEnableWhereTheParserReads: a flag is added where the sidecar's flag
// parser still reads it, and a variable only where the image reads them.
func TestEnableWhereTheParserReads(t *testing.T) {
	for _, tc := range []struct {
		name, container, want string
		preset                preset.Preset
	}{
		{"pflag: before --", `{name: p, args: [--port=5432, --, x]}`, `{name: p, args: [--port=5432, --health-check, --http-address=0.0.0.0, --, x]}`, alloydb},
		{"goflag without command: first in args", `{name: p, image: "gcr.io/cloudsql-docker/gce-proxy:1.33.2", args: [-instances=p:r:i=tcp:5432, positional]}`,
			`{name: p, image: "gcr.io/cloudsql-docker/gce-proxy:1.33.2", args: [-use_http_health_check, -instances=p:r:i=tcp:5432, positional]}`, csql},
		{"an image before its variables: flags", `{name: p, image: "gcr.io/alloydb-connectors/alloydb-auth-proxy:0.6.2", env: [{name: ALLOYDB_PROXY_PORT, value: "5432"}]}`,
			`{name: p, image: "gcr.io/alloydb-connectors/alloydb-auth-proxy:0.6.2", env: [{name: ALLOYDB_PROXY_PORT, value: "5432"}], args: [--health-check, --http-address=0.0.0.0]}`, alloydb},
		{"variables", `{name: p, env: [{name: ALLOYDB_PROXY_PORT, value: "5432"}]}`,
			`{name: p, env: [{name: ALLOYDB_PROXY_PORT, value: "5432"}, {name: ALLOYDB_PROXY_HEALTH_CHECK, value: "true"}, {name: ALLOYDB_PROXY_HTTP_ADDRESS, value: "0.0.0.0"}]}`, alloydb},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := krmtest.Parse(t, "containers: ["+tc.container+"]")
			if _, err := (Enable{Container: "p", Preset: tc.preset, Reachable: true, Log: &report.Log{}}).Filter([]*yaml.RNode{spec}); err != nil {
				t.Fatal(err)
			}
			want := krmtest.Parse(t, "containers: ["+tc.want+"]")
			if got, w := spec.MustString(), want.MustString(); got != w {
				t.Errorf("got:\n%s\nwant:\n%s", got, w)
			}
		})
	}
}
