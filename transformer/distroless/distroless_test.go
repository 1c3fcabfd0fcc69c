package distroless

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/report"
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
		"busybox:1.36":                                               false,
		"":                                                           false,
	} {
		if got := Looks(image) != ""; got != want {
			t.Errorf("Looks(%q) = %q, want shell-less %v", image, Looks(image), want)
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
	if _, err := (SleepCheck{SpecPath: "spec.template.spec", Log: &log}).Filter([]*yaml.RNode{krmtest.Parse(t, spec)}); err != nil {
		t.Fatal(err)
	}
	krmtest.CheckLog(t, "warnings", log.Warnings, []string{
		`spec.template.spec.initContainers[0].lifecycle.preStop.exec.command (container "cloud-sql-proxy"): image "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1" looks shell-less (the Cloud SQL Auth Proxy's distroless image) and has no "/bin/sleep"...set kubernetesVersion to 1.30 or newer`,
		`spec.template.spec.containers[0].lifecycle.preStop.exec.command (container "app"): image "gcr.io/distroless/static:nonroot" looks shell-less (distroless) and has no "sh"`,
	})
	log = report.Log{}
	if _, err := (SleepCheck{SleepAction: true, Log: &log}).Filter([]*yaml.RNode{krmtest.Parse(t, spec)}); err != nil {
		t.Fatal(err)
	}
	krmtest.CheckLog(t, "warnings with the sleep action", log.Warnings, []string{"use the lifecycle sleep action", "use the lifecycle sleep action"})
}
