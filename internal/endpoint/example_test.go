package endpoint_test

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/endpoint"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// The proxy configured through its environment, as the operator does it:
// the wait command polls the port the proxy listens on.
func ExampleSidecar_Resolve() {
	spec := yaml.MustParse(`
containers:
- name: app
- name: cloud-sql-proxy
  image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1
  env:
  - {name: CSQL_PROXY_HEALTH_CHECK, value: "true"}
  - {name: CSQL_PROXY_HTTP_PORT, value: "9801"}
`)
	var log report.Log
	csql, _ := preset.Lookup(preset.CloudSQLProxy)
	plan := endpoint.Sidecar{Name: "cloud-sql-proxy", Preset: csql, Log: &log}.Resolve(spec, "spec")
	fmt.Println(plan.WaitCommand)
	native := endpoint.Sidecar{Name: "cloud-sql-proxy", Preset: csql, Native: true, Log: &log}.Resolve(spec, "spec")
	fmt.Println(native.StartupProbe.HTTPGet.Path, native.StartupProbe.HTTPGet.Port.IntValue(), len(native.Filters))
	// Output:
	// [/cloud-sql-proxy wait --max=30s --http-port 9801]
	// /startup 9801 1
}
