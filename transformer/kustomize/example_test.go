package kustomize_test

import (
	"fmt"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/kustomize"
)

// A program that embeds kustomize builds a kustomization and applies the
// function to the resulting ResMap, in place.
func Example() {
	fs := filesys.MakeFsInMemory()
	_ = fs.WriteFile("/app/kustomization.yaml", []byte("resources: [deploy.yaml]\n"))
	_ = fs.WriteFile("/app/deploy.yaml", []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
      - name: app
        image: example.com/web:1.0
      - name: cloud-sql-proxy
        image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1
        args: [--port=5432, project:region:instance]
`))
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, "/app")
	if err != nil {
		panic(err)
	}
	cfg, err := config.LoadBytes([]byte(`apiVersion: fn.sidecar-lifecycle.dev/v1alpha1
kind: SidecarLifecycle
spec:
  sidecars:
  - preset: cloud-sql-proxy
`))
	if err != nil {
		panic(err)
	}
	if err := (kustomize.Transformer{Config: cfg}).Transform(resources); err != nil {
		panic(err) // a *transformer.ResultsError lists every error result
	}
	deploy := resources.Resources()[0]
	containers, _ := deploy.GetFieldValue("spec.template.spec.containers")
	for _, c := range containers.([]any) {
		fmt.Println(c.(map[string]any)["name"])
	}
	// Output:
	// cloud-sql-proxy
	// app
}
