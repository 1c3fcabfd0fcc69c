package distroless

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

func TestLooks(t *testing.T) {
	for image, want := range map[string]bool{
		"gcr.io/distroless/static:nonroot":                           true,
		"gcr.io/distroless/static-debian12":                          true,
		"gcr.io/distroless/base@sha256:abc":                          true,
		"gcr.io/distroless/static:debug-nonroot":                     false, // busybox
		"cgr.dev/chainguard/static:latest":                           true,
		"cgr.dev/chainguard/go":                                      true,
		"cgr.dev/chainguard/python:latest-dev":                       false,
		"scratch":                                                    true,
		"registry.example/base/static:1":                             true,
		"docker.io/istio/proxyv2:1.22.0-distroless":                  true,
		"docker.io/istio/proxyv2:1.22.0":                             false,
		"gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1":         true,
		"gcr.io/cloud-sql-connectors/cloud-sql-proxy":                true,
		"gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1-alpine":  false,
		"gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.7.0-bookworm": false,
		"gcr.io/cloudsql-docker/gce-proxy:1.33.2":                    true,
		"gcr.io/cloudsql-docker/gce-proxy:1.33.2-buster":             false,
		"localhost:5000/distroless-app:1":                            false,
		"gcr.io/alloydb-connectors/alloydb-auth-proxy:1.17.2":        true,
		"gcr.io/alloydb-connectors/alloydb-auth-proxy:1.17.2-alpine": false,
		"cr.fluentbit.io/fluent/fluent-bit:4.0.3":                    true,
		"cr.fluentbit.io/fluent/fluent-bit:4.0.3-debug":              false,
		"docker.io/envoyproxy/envoy:distroless-v1.36.0":              true,
		"docker.io/envoyproxy/envoy:v1.36.0":                         false,
		"quay.io/oauth2-proxy/oauth2-proxy:v7.15.6":                  true,
		"quay.io/oauth2-proxy/oauth2-proxy:v7.15.6-alpine":           false,
		"cr.l5d.io/linkerd/proxy:edge-26.8.3":                        false, // /bin/sleep, no shell
		"busybox:1.36":                                               false,
		"":                                                           false,
	} {
		if got := Looks(image, preset.Catalog()) != ""; got != want {
			t.Errorf("Looks(%q) = %q, want shell-less %v", image, Looks(image, preset.Catalog()), want)
		}
	}
}

func TestSleepCheck(t *testing.T) {
	spec := `initContainers:
- name: cloud-sql-proxy
  image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1
  lifecycle: {preStop: {exec: {command: [/bin/sleep, "10"]}}}
containers:
- name: app
  image: gcr.io/distroless/static:nonroot
  lifecycle: {preStop: {exec: {command: [sh, -c, sleep 5]}}}
- name: fine
  image: busybox:1.36
  lifecycle: {preStop: {exec: {command: [/bin/sleep, "5"]}}}
- name: own-binary
  image: gcr.io/distroless/static:nonroot
  lifecycle: {preStop: {exec: {command: [/app, drain]}}}
- name: sleep-action
  image: gcr.io/distroless/static:nonroot
  lifecycle: {preStop: {sleep: {seconds: 5}}}
`
	var log report.Log
	if _, err := (SleepCheck{SpecPath: "spec.template.spec", Presets: preset.Catalog, Log: &log}).Filter([]*yaml.RNode{krmtest.Parse(t, spec)}); err != nil {
		t.Fatal(err)
	}
	krmtest.CheckLog(t, "warnings", log.Warnings, []string{
		`spec.template.spec.initContainers[0].lifecycle.preStop.exec.command (container "cloud-sql-proxy"): image "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1" looks shell-less (Cloud SQL Auth Proxy image without a shell or sleep, per its catalog entry) and has no "/bin/sleep"...set kubernetesVersion to 1.30 or newer`,
		`spec.template.spec.containers[0].lifecycle.preStop.exec.command (container "app"): image "gcr.io/distroless/static:nonroot" looks shell-less (distroless) and has no "sh"`,
	})
	log = report.Log{}
	if _, err := (SleepCheck{SleepAction: true, Presets: preset.Catalog, Log: &log}).Filter([]*yaml.RNode{krmtest.Parse(t, spec)}); err != nil {
		t.Fatal(err)
	}
	krmtest.CheckLog(t, "warnings with the sleep action", log.Warnings, []string{"use the lifecycle sleep action", "use the lifecycle sleep action"})
}

// TestImageFactsHaveSources: every fact of images.yaml names its source,
// and every family its kind and what it matches.
func TestImageFactsHaveSources(t *testing.T) {
	im := facts()
	if im.Programs.Source == "" || len(im.Programs.Names) == 0 {
		t.Error("programs: no names or no source")
	}
	if len(im.Families) < 4 {
		t.Fatalf("%d families", len(im.Families))
	}
	for i, f := range im.Families {
		key, _, _ := strings.Cut(f.Source, " ")
		if im.Sources[key] == nil {
			t.Errorf("families[%d] (%q): its source %q names no entry of sources", i, f.Says, key)
		}
		r := f.Repository
		if f.Says == "" || f.Source == "" || (r.Contains == "" && r.Prefix == "" && len(r.Names) == 0 && !f.Tag.any()) {
			t.Errorf("families[%d] (%q): says, source and a match are required", i, f.Says)
		}
	}
}
