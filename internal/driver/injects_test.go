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

// oldCluster is Kubernetes 1.28, where Kuma's injector writes no native
// sidecar, so the function annotates for it.
const oldCluster = `kubernetesVersion: "1.28"`

// injectsConfig is a functionConfig with the spec's fields and more.
func injectsConfig(spec ...string) []byte {
	var fields []string
	for _, f := range spec {
		if f != "" {
			fields = append(fields, f)
		}
	}
	return []byte("apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: injects}\nspec: {" + strings.Join(fields, ", ") + "}\n")
}

// TestNoProxyWhereTheInjectorWillNot: a workload whose injector's webhooks
// do not select it (a revision that is not the default, a Namespace whose
// webhooks are off) or whose code refuses it (hostNetwork, kube-system)
// gets no mesh annotation, though its switch is on; its neighbour, which
// the injector does inject, does, and validate fails it alone. Without the
// Namespace in the input, the Namespace taken as Kubernetes creates it is
// said once, as a shared warning.
func TestNoProxyWhereTheInjectorWillNot(t *testing.T) {
	cases := []struct {
		name, in string
		// annotated are the workloads that get the mesh's annotation.
		annotated, left []string
		assumed         int
		// spec is the functionConfig's spec fields, if any.
		spec string
		// found are workloads the injector injects that get a finding
		// though the function writes nothing for their injector.
		found []string
	}{
		{"istio revision, no Namespace",
			injectedDeployment("rev", "shop", ", sidecar.istio.io/inject: \"true\", istio.io/rev: canary", "", "") + "---\n" +
				injectedDeployment("rev2", "shop", ", sidecar.istio.io/inject: \"true\", istio.io/rev: canary", "", "") + "---\n" +
				injectedDeployment("on", "shop", ", sidecar.istio.io/inject: \"true\"", "", ""),
			[]string{"on"}, []string{"rev", "rev2"}, 1, "", nil},
		{"istio hostNetwork and kube-system, Namespace in the input",
			"apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {istio-injection: enabled}}\n---\n" +
				"apiVersion: v1\nkind: Namespace\nmetadata: {name: kube-system, labels: {istio-injection: enabled}}\n---\n" +
				injectedDeployment("host", "shop", "", "", "hostNetwork: true, ") + "---\n" +
				injectedDeployment("sys", "kube-system", "", "", "") + "---\n" +
				injectedDeployment("on", "shop", "", "", ""),
			[]string{"on"}, []string{"host", "sys"}, 0, "", nil},
		{"linkerd webhooks off on the Namespace",
			"apiVersion: v1\nkind: Namespace\nmetadata: {name: quiet, labels: {config.linkerd.io/admission-webhooks: disabled}}\n---\n" +
				injectedDeployment("off", "quiet", "", "linkerd.io/inject: enabled", "") + "---\n" +
				injectedDeployment("on", "shop", "", "linkerd.io/inject: enabled", ""),
			[]string{"on"}, []string{"off"}, 0, "", nil},
		{"linkerd, a proxy there already or an inject value of no meaning",
			"apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, annotations: {linkerd.io/inject: enabled}}\n---\n" +
				injectedDeployment("init", "shop", "", "", "initContainers: [{name: istio-init, image: gcr.io/istio-release/proxy_init:1.5}], ") + "---\n" +
				injectedDeployment("odd", "shop", "", "linkerd.io/inject: \"true\"", "") + "---\n" +
				injectedDeployment("on", "shop", "", "", ""),
			[]string{"on"}, []string{"init", "odd"}, 0, "", nil},
		{"istio label over annotation",
			"apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {istio-injection: enabled}}\n---\n" +
				injectedDeployment("label", "shop", ", sidecar.istio.io/inject: \"true\"", "sidecar.istio.io/inject: \"false\"", "") + "---\n" +
				injectedDeployment("off", "shop", "", "sidecar.istio.io/inject: \"false\"", ""),
			[]string{"label"}, []string{"off"}, 0, "", nil},
		{"kuma, a pod label alone without the Namespace",
			injectedDeployment("alone", "shop", ", kuma.io/sidecar-injection: enabled", "", "") + "---\n" +
				injectedDeployment("alone2", "shop", ", kuma.io/sidecar-injection: enabled", "", ""),
			nil, []string{"alone", "alone2"}, 1, oldCluster, nil},
		{"kuma, Namespace labelled, pod opted out or an exception",
			"apiVersion: v1\nkind: Namespace\nmetadata: {name: meshed, labels: {kuma.io/sidecar-injection: enabled}}\n---\n" +
				"apiVersion: v1\nkind: Namespace\nmetadata: {name: optout, labels: {kuma.io/sidecar-injection: disabled}}\n---\n" +
				injectedDeployment("pod-no", "meshed", ", kuma.io/sidecar-injection: \"no\"", "", "") + "---\n" +
				injectedDeployment("build", "meshed", ", openshift.io/build.name: b-1", "", "") + "---\n" +
				injectedDeployment("pod-true", "optout", ", kuma.io/sidecar-injection: \"true\"", "", "") + "---\n" +
				injectedDeployment("pod-enabled", "optout", ", kuma.io/sidecar-injection: enabled", "", "") + "---\n" +
				injectedDeployment("on", "meshed", "", "", ""),
			[]string{"on", "pod-enabled"}, []string{"pod-no", "build", "pod-true"}, 0, oldCluster, nil},
		{"consul, the system Namespaces and a pod marked injected",
			injectedDeployment("public", "kube-public", "", "consul.hashicorp.com/connect-inject: \"true\"", "") + "---\n" +
				injectedDeployment("marked", "shop", "", "consul.hashicorp.com/connect-inject: \"true\", consul.hashicorp.com/connect-inject-status: injected", "") + "---\n" +
				injectedDeployment("consul", "shop", "", "consul.hashicorp.com/connect-inject: \"true\"", "") + "---\n" +
				injectedDeployment("on", "shop", "", "consul.hashicorp.com/connect-inject: \"true\"", ""),
			[]string{"on"}, []string{"public", "marked", "consul"}, 0, "mode: native", nil},
		{"vault, the injector's own pod and a pod marked injected",
			injectedDeployment("own", "vault", ", app.kubernetes.io/name: vault-agent-injector", "vault.hashicorp.com/agent-inject: \"true\"", "") + "---\n" +
				injectedDeployment("marked", "shop", "", "vault.hashicorp.com/agent-inject: \"true\", vault.hashicorp.com/agent-inject-status: injected", "") + "---\n" +
				injectedDeployment("on", "shop", "", "vault.hashicorp.com/agent-inject: \"true\"", ""),
			nil, []string{"own", "marked"}, 0, "", []string{"on"}},
	}
	for _, c := range cases {
		rl, err := krmtest.ResourceList([]byte(c.in), injectsConfig(c.spec))
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
			asked := strings.Contains(doc, "proxy.istio.io/config") || strings.Contains(doc, "config.linkerd.io/proxy-await") || strings.Contains(doc, "kuma.io/wait-for-dataplane-ready") || strings.Contains(doc, "consul.hashicorp.com/enable-consul-dataplane-as-sidecar")
			if want := listed(c.annotated, name); asked != want {
				t.Errorf("%s: %s annotated for a proxy = %v, want %v:\n%s", c.name, name, asked, want, doc)
			}
		}
		o, err := krmtest.Split(out)
		if err != nil {
			t.Fatal(err)
		}
		named := map[string]bool{}
		for _, r := range o.ResultList() {
			named[r.Ref[strings.LastIndex(r.Ref, "/")+1:]] = true
		}
		for _, name := range c.left {
			if named[name] {
				t.Errorf("%s: a finding names %s, which no proxy comes to:\n%s", c.name, name, out)
			}
		}
		for _, name := range c.found {
			if !named[name] {
				t.Errorf("%s: no finding names %s, which its injector injects:\n%s", c.name, name, out)
			}
		}
		if got := strings.Count(string(out), "as Kubernetes creates it"); got != c.assumed {
			t.Errorf("%s: the assumed Namespace is said %d times, want %d:\n%s", c.name, got, c.assumed, out)
		}
		// validate fails the workloads the injector injects, whose
		// annotations are missing, and no other.
		rl, err = krmtest.ResourceList([]byte(c.in), injectsConfig(c.spec, "action: validate"))
		if err != nil {
			t.Fatal(err)
		}
		out, _ = run(t, rl)
		o, err = krmtest.Split(out)
		if err != nil {
			t.Fatal(err)
		}
		failed := map[string]bool{}
		for _, r := range o.ResultList() {
			if r.Severity == "error" {
				failed[r.Ref[strings.LastIndex(r.Ref, "/")+1:]] = true
			}
		}
		for _, name := range append(append([]string{}, c.annotated...), c.left...) {
			if want := listed(c.annotated, name); failed[name] != want {
				t.Errorf("%s: validate fails %s = %v, want %v:\n%s", c.name, name, failed[name], want, out)
			}
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
