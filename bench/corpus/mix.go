package corpus

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Mix is a realistic repository: workloads (with their Namespaces,
// Services and ConfigMaps, see Write), custom resource definitions of about
// a megabyte each, and more Services and ConfigMaps, half each.
type Mix struct {
	Workloads, CRDs, Others int
}

// each calls f with every resource of the mix, in order.
func (m Mix) each(f func(doc string) error) error {
	if err := docs(m.Workloads, f); err != nil {
		return err
	}
	for i := 0; i < m.CRDs; i++ {
		if err := f(crd(i, 1<<20)); err != nil {
			return err
		}
	}
	for i := 0; i < m.Others; i++ {
		doc := configMap(m.Workloads + i)
		if i%2 == 0 {
			doc = service(m.Workloads + i)
		}
		if err := f(doc); err != nil {
			return err
		}
	}
	return nil
}

// WriteMix writes the mix as a ResourceList, laid out as Write lays it out.
func WriteMix(w io.Writer, m Mix) error {
	return writeList(w, m.each)
}

// WritePlain writes the mix as a plain multi-document stream, as `helm
// template` or `kustomize build` write one: the input of --config mode.
func WritePlain(w io.Writer, m Mix) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	first := true
	m.each(func(doc string) error {
		if !first {
			bw.WriteString("---\n")
		}
		first = false
		bw.WriteString(doc)
		return nil
	})
	return bw.Flush()
}

// WriteBigConfigMap writes a ResourceList of one ConfigMap of about size
// bytes: many keys, each a block scalar of a few lines.
func WriteBigConfigMap(w io.Writer, size int) error {
	return writeList(w, func(f func(doc string) error) error {
		var b strings.Builder
		b.Grow(size + 4096)
		b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n  namespace: shop\ndata:\n")
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "  file-%d.conf: |\n    listen: :%d\n    upstream: http://catalog-%d.catalog.svc.cluster.local\n    retries: 3\n", i, 8000+i%1000, i)
		}
		return f(b.String())
	})
}

// WriteBigDeployment writes a ResourceList of one Deployment of about size
// bytes: the app and the Linkerd proxy, and an app with many environment
// variables.
func WriteBigDeployment(w io.Writer, size int) error {
	return writeList(w, func(f func(doc string) error) error {
		var b strings.Builder
		b.Grow(size + 4096)
		b.WriteString("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: big\n  namespace: shop\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: shop/app:1\n        env:\n")
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "        - name: SETTING_%d\n          value: upstream-%d.catalog.svc.cluster.local\n", i, i)
		}
		b.WriteString("      - name: linkerd-proxy\n        image: cr.l5d.io/linkerd/proxy:stable-2.14.10\n")
		return f(b.String())
	})
}

// writeList writes the resources each gives as a ResourceList with the
// FunctionConfig.
func writeList(w io.Writer, each func(f func(doc string) error) error) error {
	return writeListWith(w, each, FunctionConfig)
}

// writeListWith is writeList with the given functionConfig, or none for "".
func writeListWith(w io.Writer, each func(f func(doc string) error) error, functionConfig string) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	if err := each(func(doc string) error {
		item(bw, doc)
		return nil
	}); err != nil {
		return err
	}
	if functionConfig != "" {
		bw.WriteString("functionConfig:\n")
		for _, line := range strings.SplitAfter(strings.TrimSuffix(functionConfig, "\n"), "\n") {
			bw.WriteString("  " + line)
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

// crd is a CustomResourceDefinition of about size bytes: a schema of
// many described properties, as controller-gen writes one.
func crd(i, size int) string {
	var b strings.Builder
	b.Grow(size + 4096)
	fmt.Fprintf(&b, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets%[1]d.example.com
spec:
  group: example.com
  names:
    kind: Widget%[1]d
    plural: widgets%[1]d
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
`, i)
	for p := 0; b.Len() < size; p++ {
		fmt.Fprintf(&b, `          field%[1]d:
            description: |-
              Field %[1]d of the widget: how many replicas of the part to
              keep, and where. Defaults to one in the widget's namespace.
            type: object
            properties:
              count:
                type: integer
                format: int32
              zone:
                type: string
`, p)
	}
	return b.String()
}
