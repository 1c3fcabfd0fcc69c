package grace_test

import (
	"fmt"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/grace"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// With policy raise, a pod spec without terminationGracePeriodSeconds (the
// default 30 s) gets enough time for its longest preStop plus the margin.
func ExampleFilter() {
	spec := yaml.MustParse(`containers:
- name: linkerd-proxy
  lifecycle:
    preStop:
      sleep:
        seconds: 40 # outlive the app's drain
- name: app
`)
	var log report.Log
	f := grace.Filter{Policy: config.GraceRaise, Margin: 10 * time.Second, Log: &log}
	if _, err := f.Filter([]*yaml.RNode{spec}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(spec.MustString())
	fmt.Println(log.Changes)
	// Output:
	// containers:
	// - name: linkerd-proxy
	//   lifecycle:
	//     preStop:
	//       sleep:
	//         seconds: 40 # outlive the app's drain
	// - name: app
	// terminationGracePeriodSeconds: 50
	// [raised terminationGracePeriodSeconds from 30 to 50 (preStop of linkerd-proxy 40s + margin 10s)]
}

// With policy keep the grace period is left alone, but a sleep action longer
// than it is an error: the API server would reject the pod.
func ExampleFilter_keep() {
	spec := yaml.MustParse(`terminationGracePeriodSeconds: 20
containers:
- name: istio-proxy
  lifecycle: {preStop: {sleep: {seconds: 25}}}
`)
	var log report.Log
	f := grace.Filter{Policy: config.GraceKeep, Margin: 10 * time.Second, Log: &log}
	if _, err := f.Filter([]*yaml.RNode{spec}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(grace.Current(spec))
	for _, e := range log.Errors {
		fmt.Println(e)
	}
	// Output:
	// 20
	// the preStop sleep action of istio-proxy (25s) is longer than terminationGracePeriodSeconds (20), which the API server rejects: raise terminationGracePeriodSeconds or set terminationGracePeriod.policy to raise
}
