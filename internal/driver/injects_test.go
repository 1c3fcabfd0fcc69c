package driver_test

import (
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
)

// injectedDeployment is a Deployment with one application container, its pod
// template's labels and annotations, and spec fields of its own.
func injectedDeployment(name, namespace, labels, annotations, spec string) string {
	return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name + ", namespace: " + namespace + "}\nspec:\n  selector: {matchLabels: {app: " + name + "}}\n  template:\n    metadata: {labels: {app: " + name + labels + "}, annotations: {" + annotations + "}}\n    spec: {" + spec + "containers: [{name: app, image: app:1}]}\n"
}

// TestNoProxyWhereTheInjectorWillNot: a workload whose injector's webhooks
// do not select it (a revision that is not the default, a Namespace whose
// webhooks are off) or whose code refuses it (hostNetwork, kube-system)
// gets no mesh annotation, though its switch is on; its neighbour, which
// the injector does inject, does. Without the Namespace in the input, the
// Namespace taken as Kubernetes creates it is said once, as a shared warning.
func TestNoProxyWhereTheInjectorWillNot(t *testing.T) {
	cases := []struct {
		name, in string
		// annotated are the workloads that get the mesh's annotation.
		annotated, left []string
		assumed         int
	}{
		{"istio revision, no Namespace",
			injectedDeployment("rev", "shop", ", sidecar.istio.io/inject: \"true\", istio.io/rev: canary", "", "") + "---\n" +
				injectedDeployment("rev2", "shop", ", sidecar.istio.io/inject: \"true\", istio.io/rev: canary", "", "") + "---\n" +
				injectedDeployment("on", "shop", ", sidecar.istio.io/inject: \"true\"", "", ""),
			[]string{"on"}, []string{"rev", "rev2"}, 1},
		{"istio hostNetwork and kube-system, Namespace in the input",
			"apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {istio-injection: enabled}}\n---\n" +
				"apiVersion: v1\nkind: Namespace\nmetadata: {name: kube-system, labels: {istio-injection: enabled}}\n---\n" +
				injectedDeployment("host", "shop", "", "", "hostNetwork: true, ") + "---\n" +
				injectedDeployment("sys", "kube-system", "", "", "") + "---\n" +
				injectedDeployment("on", "shop", "", "", ""),
			[]string{"on"}, []string{"host", "sys"}, 0},
		{"linkerd webhooks off on the Namespace",
			"apiVersion: v1\nkind: Namespace\nmetadata: {name: quiet, labels: {config.linkerd.io/admission-webhooks: disabled}}\n---\n" +
				injectedDeployment("off", "quiet", "", "linkerd.io/inject: enabled", "") + "---\n" +
				injectedDeployment("on", "shop", "", "linkerd.io/inject: enabled", ""),
			[]string{"on"}, []string{"off"}, 0},
	}
	for _, c := range cases {
		rl, err := krmtest.ResourceList([]byte(c.in), nil)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := run(t, rl)
		items := string(out)
		if i := strings.Index(items, "\nresults:"); i >= 0 {
			items = items[:i]
		}
		for _, name := range append(append([]string{}, c.annotated...), c.left...) {
			doc := injectedDoc(items, name)
			if doc == "" {
				t.Fatalf("%s: no workload %s in\n%s", c.name, name, out)
			}
			asked := strings.Contains(doc, "proxy.istio.io/config") || strings.Contains(doc, "config.linkerd.io/proxy-await")
			if want := listed(c.annotated, name); asked != want {
				t.Errorf("%s: %s annotated for a proxy = %v, want %v:\n%s", c.name, name, asked, want, doc)
			}
		}
		if got := strings.Count(string(out), "as Kubernetes creates it"); got != c.assumed {
			t.Errorf("%s: the assumed Namespace is said %d times, want %d:\n%s", c.name, got, c.assumed, out)
		}
	}
}

// injectedDoc is the item of the ResourceList output named name.
func injectedDoc(items, name string) string {
	for _, doc := range strings.Split(items, "\n- ") {
		if strings.Contains(doc, "name: "+name+"\n") || strings.Contains(doc, "name: "+name+",") || strings.Contains(doc, "{name: "+name+",") {
			if strings.Contains(doc, "kind: Deployment") {
				return doc
			}
		}
	}
	return ""
}

func listed(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
