package shapes_test

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/shapes"
)

// A sidecar that shares the app container's env by alias and takes its
// image from a base by a merge key: expanded, it can move before the app
// container and still mean the same.
func ExampleExpand() {
	pod, _ := yaml.Parse(`containers:
- &base
  name: app
  image: shop/app:1
  env: &env
  - {name: REGION, value: eu}
- <<: *base
  name: linkerd-proxy
  env: *env
`)
	expanded, err := shapes.Expand(pod.YNode())
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := yaml.NewRNode(expanded).String()
	fmt.Print(out)
	// Output:
	// containers:
	// - name: app
	//   image: shop/app:1
	//   env:
	//   - {name: REGION, value: eu}
	// - image: shop/app:1
	//   name: linkerd-proxy
	//   env:
	//   - {name: REGION, value: eu}
}

// A duplicate key is reported with the path of its mapping.
func ExampleWalk() {
	pod, _ := yaml.Parse("spec:\n  containers:\n  - name: app\n    lifecycle: {}\n    lifecycle: {}\n")
	_, err := shapes.Walk(pod.YNode())
	fmt.Println(err)
	// Output:
	// spec.containers[0]: duplicate key "lifecycle": remove one; the API server rejects duplicate fields and this function would read only the first
}
