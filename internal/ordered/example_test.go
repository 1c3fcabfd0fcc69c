package ordered_test

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/ordered"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// MoveFirst puts the sidecars at the front of spec.containers; each container
// keeps its comments.
func ExampleMoveFirst() {
	spec := yaml.MustParse(`containers:
# the application
- name: app
  image: shop:1.4
# injected by linkerd inject --manual
- name: linkerd-proxy # keep in sync with the control plane
  image: cr.l5d.io/linkerd/proxy:edge-24.5.1
`)
	var log report.Log
	f := ordered.MoveFirst{Names: []string{"linkerd-proxy"}, Log: &log}
	if _, err := f.Filter([]*yaml.RNode{spec}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(spec.MustString())
	fmt.Println(log.Changes)
	// Output:
	// containers:
	// # injected by linkerd inject --manual
	// - name: linkerd-proxy # keep in sync with the control plane
	//   image: cr.l5d.io/linkerd/proxy:edge-24.5.1
	// # the application
	// - name: app
	//   image: shop:1.4
	// [moved linkerd-proxy to the front of containers]
}

// The ordered-mode edits are kio.Filters applied one after the other: move the
// sidecar first, make its postStart wait for readiness, and delay its exit with
// a preStop sleep.
func ExampleWaitForReady() {
	spec := yaml.MustParse(`containers: [{name: app}, {name: istio-proxy}]
`)
	var log report.Log
	filters := []kio.Filter{
		ordered.MoveFirst{Names: []string{"istio-proxy"}, Log: &log},
		ordered.WaitForReady{Container: "istio-proxy", Command: []string{"pilot-agent", "wait"}, ExistingHooks: config.HooksKeep, Log: &log},
		ordered.ExitDelay{Container: "istio-proxy", Seconds: 20, Sleep: ordered.Sleep{Action: true}, ExistingHooks: config.HooksKeep, Log: &log},
	}
	for _, f := range filters {
		if _, err := f.Filter([]*yaml.RNode{spec}); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Print(spec.MustString())
	for _, c := range log.Changes {
		fmt.Println(c)
	}
	// Output:
	// containers: [{name: istio-proxy, lifecycle: {postStart: {exec: {command: [pilot-agent, wait]}}, preStop: {sleep: {seconds: 20}}}}, {name: app}]
	// moved istio-proxy to the front of containers
	// added postStart ["pilot-agent", "wait"] to istio-proxy
	// added preStop sleep 20s to istio-proxy
}
