package preset

import "testing"

// podMeta is a pod template's labels and annotations, read as a Pod.
type podMeta = Meta

// TestInjects: each injector of the catalog injects a pod as its chart's
// webhooks and its code decide, the switches aside: the Namespace's and
// the pod's labels through the selectors, the system Namespaces and
// hostNetwork refused.
func TestInjects(t *testing.T) {
	type L = map[string]string
	cases := []struct {
		preset, name string
		pod          L
		ns           L
		at           Target
		want         bool
	}{
		{"istio", "pod label, unlabelled Namespace", L{"sidecar.istio.io/inject": "true"}, nil, Target{Namespace: "shop"}, true},
		{"istio", "Namespace istio-injection", nil, L{"istio-injection": "enabled"}, Target{Namespace: "shop", NamespaceKnown: true}, true},
		{"istio", "Namespace istio-injection, pod label false", L{"sidecar.istio.io/inject": "false"}, L{"istio-injection": "enabled"}, Target{Namespace: "shop", NamespaceKnown: true}, false},
		{"istio", "Namespace istio-injection disabled, pod label true", L{"sidecar.istio.io/inject": "true"}, L{"istio-injection": "disabled"}, Target{Namespace: "shop", NamespaceKnown: true}, false},
		{"istio", "Namespace default revision", nil, L{"istio.io/rev": "default"}, Target{Namespace: "shop", NamespaceKnown: true}, true},
		{"istio", "Namespace of another revision", nil, L{"istio.io/rev": "canary"}, Target{Namespace: "shop", NamespaceKnown: true}, false},
		{"istio", "pod label true and another revision", L{"sidecar.istio.io/inject": "true", "istio.io/rev": "canary"}, nil, Target{Namespace: "shop"}, false},
		{"istio", "pod default revision label", L{"istio.io/rev": "default"}, nil, Target{Namespace: "shop"}, true},
		{"istio", "no switch anywhere", nil, nil, Target{Namespace: "shop"}, false},
		{"istio", "hostNetwork", L{"sidecar.istio.io/inject": "true"}, nil, Target{Namespace: "shop", HostNetwork: true}, false},
		{"istio", "kube-system", nil, L{"istio-injection": "enabled"}, Target{Namespace: "kube-system", NamespaceKnown: true}, false},
		{"istio", "kube-public", L{"sidecar.istio.io/inject": "true"}, nil, Target{Namespace: "kube-public"}, false},
		{"linkerd", "unlabelled Namespace", nil, nil, Target{Namespace: "shop"}, true},
		{"linkerd", "no Namespace name", nil, nil, Target{}, true},
		{"linkerd", "webhooks disabled on the Namespace", nil, L{"config.linkerd.io/admission-webhooks": "disabled"}, Target{Namespace: "shop", NamespaceKnown: true}, false},
		{"linkerd", "kube-system", nil, nil, Target{Namespace: "kube-system"}, false},
		{"linkerd", "cert-manager", nil, nil, Target{Namespace: "cert-manager", NamespaceKnown: true}, false},
		{"linkerd", "Namespace named otherwise by its label", nil, L{NamespaceNameLabel: "kube-system"}, Target{Namespace: "shop", NamespaceKnown: true}, false},
		{"linkerd", "control plane pod", L{"linkerd.io/control-plane-component": "destination"}, nil, Target{Namespace: "linkerd"}, false},
		{"linkerd", "CNI pod", L{"linkerd.io/cni-resource": "true"}, nil, Target{Namespace: "linkerd-cni"}, false},
		{"linkerd", "hostNetwork", nil, nil, Target{Namespace: "shop", HostNetwork: true}, false},
	}
	for _, c := range cases {
		p, ok := Lookup(c.preset)
		if !ok || p.Injector == nil {
			t.Fatalf("%s: no injector in the catalog", c.preset)
		}
		if got := p.Injector.Injects(podMeta{Labels: c.pod}, Meta{Labels: c.ns}, c.at); got != c.want {
			t.Errorf("%s, %s: Injects = %v, want %v", c.preset, c.name, got, c.want)
		}
	}
	// Refusals read on the pod's labels, annotations and containers and on
	// its Namespace's annotations, and the webhooks of Kuma, Consul, Vault
	// and Dapr: each case fails when its rule is taken out of the catalog.
	in := func(ns string, c ...Container) Target { return Target{Namespace: ns, Containers: c} }
	known := func(ns string, c ...Container) Target {
		return Target{Namespace: ns, NamespaceKnown: true, Containers: c}
	}
	app := Container{Name: "app", Image: "shop/app:1"}
	refusals := []struct {
		preset, name string
		pod, ns      Meta
		at           Target
		want         bool
	}{
		{preset: "linkerd", name: "an application alone", at: in("shop", app), want: true},
		{preset: "linkerd", name: "linkerd-proxy there already", at: in("shop", app, Container{Name: "linkerd-proxy", Image: "x"})},
		{preset: "linkerd", name: "istio-proxy there already", at: in("shop", app, Container{Name: "istio-proxy", Image: "x"})},
		{preset: "linkerd", name: "a proxy image under another name", at: in("shop", app, Container{Name: "mesh", Image: "cr.l5d.io/linkerd/proxy:edge-26.8.3"})},
		{preset: "linkerd", name: "Istio's proxy image", at: in("shop", app, Container{Name: "mesh", Image: "gcr.io/istio-release/proxyv2:1.30.3"})},
		{preset: "linkerd", name: "linkerd-init there already", at: in("shop", app, Container{Name: "linkerd-init", Image: "x", Init: true})},
		{preset: "linkerd", name: "istio-init there already", at: in("shop", app, Container{Name: "istio-init", Image: "x", Init: true})},
		{preset: "linkerd", name: "proxy-init image in an init container", at: in("shop", app, Container{Name: "init", Image: "cr.l5d.io/linkerd/proxy-init:v2", Init: true})},
		{preset: "linkerd", name: "Istio's proxy_init image in an init container", at: in("shop", app, Container{Name: "init", Image: "gcr.io/istio-release/proxy_init:1.5", Init: true})},
		{preset: "linkerd", name: "linkerd-init as a regular container is no init", at: in("shop", app, Container{Name: "linkerd-init", Image: "x"}), want: true},
		{preset: "linkerd", name: "inject annotation of no meaning on the pod", pod: Meta{Annotations: map[string]string{"linkerd.io/inject": "true"}}, at: in("shop", app)},
		{preset: "linkerd", name: "inject annotation of no meaning on the Namespace", pod: Meta{Annotations: map[string]string{"linkerd.io/inject": "enabled"}}, ns: Meta{Annotations: map[string]string{"linkerd.io/inject": "on"}}, at: in("shop", app)},
		{preset: "linkerd", name: "inject annotation ingress", pod: Meta{Annotations: map[string]string{"linkerd.io/inject": "ingress"}}, at: in("shop", app), want: true},
		{preset: "kuma", name: "pod label enabled, Namespace label disabled", pod: Meta{Labels: L{"kuma.io/sidecar-injection": "enabled"}}, ns: Meta{Labels: L{"kuma.io/sidecar-injection": "disabled"}}, at: known("shop", app), want: true},
		{preset: "kuma", name: "pod label true, Namespace label disabled", pod: Meta{Labels: L{"kuma.io/sidecar-injection": "true"}}, ns: Meta{Labels: L{"kuma.io/sidecar-injection": "disabled"}}, at: known("shop", app)},
		{preset: "kuma", name: "pod label enabled, unlabelled Namespace", pod: Meta{Labels: L{"kuma.io/sidecar-injection": "enabled"}}, at: known("shop", app)},
		{preset: "kuma", name: "Namespace label true", ns: Meta{Labels: L{"kuma.io/sidecar-injection": "true"}}, at: known("shop", app), want: true},
		{preset: "kuma", name: "Namespace label yes", ns: Meta{Labels: L{"kuma.io/sidecar-injection": "yes"}}, at: known("shop", app)},
		{preset: "kuma", name: "the control plane's Namespace", ns: Meta{Labels: L{"kuma.io/sidecar-injection": "enabled"}}, at: known("kuma-system", app)},
		{preset: "kuma", name: "zone proxy in the control plane's Namespace", pod: Meta{Labels: L{"kuma.io/sidecar-injection": "enabled", "kuma.io/mesh": "default", "k8s.kuma.io/zone-proxy-type": "ingress"}}, at: known("kuma-system", app), want: true},
		{preset: "kuma", name: "kube-system", ns: Meta{Labels: L{"kuma.io/sidecar-injection": "enabled"}}, at: known("kube-system", app)},
		{preset: "kuma", name: "OpenShift build pod", pod: Meta{Labels: L{"openshift.io/build.name": "b-1"}}, ns: Meta{Labels: L{"kuma.io/sidecar-injection": "enabled"}}, at: known("shop", app)},
		{preset: "kuma", name: "OpenShift deployer pod", pod: Meta{Labels: L{"openshift.io/deployer-pod-for.name": "d-1"}}, ns: Meta{Labels: L{"kuma.io/sidecar-injection": "enabled"}}, at: known("shop", app)},
		{preset: "kuma", name: "kuma-sidecar there already", ns: Meta{Labels: L{"kuma.io/sidecar-injection": "enabled"}}, at: known("shop", app, Container{Name: "kuma-sidecar", Image: "x", Init: true})},
		{preset: "consul", name: "an application", at: known("shop", app), want: true},
		{preset: "consul", name: "kube-public", at: known("kube-public", app)},
		{preset: "consul", name: "kube-system", at: known("kube-system", app)},
		{preset: "consul", name: "gmp-system", at: known("gmp-system", app)},
		{preset: "consul", name: "OpenShift monitoring Namespace", ns: Meta{Labels: L{"openshift.io/cluster-monitoring": "true"}}, at: known("mon", app)},
		{preset: "consul", name: "Consul's own pod", pod: Meta{Labels: L{"app": "consul"}}, at: known("consul", app)},
		{preset: "consul", name: "marked injected", pod: Meta{Annotations: L{"consul.hashicorp.com/connect-inject-status": "injected"}}, at: known("shop", app)},
		{preset: "vault-agent", name: "an application in kube-system", at: known("kube-system", app), want: true},
		{preset: "vault-agent", name: "the injector's own pod", pod: Meta{Labels: L{"app.kubernetes.io/name": "vault-agent-injector"}}, at: known("vault", app)},
		{preset: "vault-agent", name: "marked injected", pod: Meta{Annotations: L{"vault.hashicorp.com/agent-inject-status": "injected"}}, at: known("shop", app)},
		{preset: "vault-agent", name: "marked update", pod: Meta{Annotations: L{"vault.hashicorp.com/agent-inject-status": "update"}}, at: known("shop", app), want: true},
		{preset: "dapr", name: "an application in kube-system", at: known("kube-system", app), want: true},
		{preset: "dapr", name: "daprd there already", at: known("shop", app, Container{Name: "daprd", Image: "x"})},
	}
	for _, c := range refusals {
		p, _ := Lookup(c.preset)
		if got := p.Injector.Injects(c.pod, c.ns, c.at); got != c.want {
			t.Errorf("%s, %s: Injects = %v, want %v", c.preset, c.name, got, c.want)
		}
	}
}

// TestSelectorMatches: label selectors read as Kubernetes reads them.
func TestSelectorMatches(t *testing.T) {
	type L = map[string]string
	sel := &SelectorFact{MatchLabels: L{"a": "1"}, MatchExpressions: []ExpressionFact{
		{Key: "b", Operator: "In", Values: []string{"x", "y"}},
		{Key: "c", Operator: "NotIn", Values: []string{"no"}},
		{Key: "d", Operator: "Exists"},
		{Key: "e", Operator: "DoesNotExist"},
	}}
	cases := []struct {
		labels L
		want   bool
	}{
		{L{"a": "1", "b": "x", "d": ""}, true},
		{L{"a": "1", "b": "y", "c": "yes", "d": "v"}, true},
		{L{"a": "2", "b": "x", "d": ""}, false},
		{L{"b": "x", "d": ""}, false},
		{L{"a": "1", "d": ""}, false},
		{L{"a": "1", "b": "z", "d": ""}, false},
		{L{"a": "1", "b": "x", "c": "no", "d": ""}, false},
		{L{"a": "1", "b": "x"}, false},
		{L{"a": "1", "b": "x", "d": "", "e": ""}, false},
	}
	for _, c := range cases {
		if got := matches(sel, Meta{Labels: c.labels}.TemplateLabel); got != c.want {
			t.Errorf("%v: matches = %v, want %v", c.labels, got, c.want)
		}
	}
	var none *SelectorFact
	if !matches(none, Meta{}.TemplateLabel) {
		t.Error("a nil selector matches nothing, want everything")
	}
	if matches(&SelectorFact{MatchExpressions: []ExpressionFact{{Key: "a", Operator: "Bogus"}}}, Meta{}.TemplateLabel) {
		t.Error("an unknown operator holds")
	}
}

// TestInjectorDecides: whether a pod gets its injector's sidecar, as the
// injector decides it, its switches' precedence (pod over Namespace, label
// over annotation) and its webhooks and refusals together.
func TestInjectorDecides(t *testing.T) {
	type L = map[string]string
	cases := []struct {
		preset, name string
		pod, ns      Meta
		want         bool
	}{
		{"istio", "label true over annotation false", Meta{Labels: L{"sidecar.istio.io/inject": "true"}, Annotations: L{"sidecar.istio.io/inject": "false"}}, Meta{}, true},
		{"istio", "annotation false in an injected Namespace", Meta{Annotations: L{"sidecar.istio.io/inject": "false"}}, Meta{Labels: L{"istio-injection": "enabled"}}, false},
		{"istio", "label of no meaning over annotation false in an injected Namespace", Meta{Labels: L{"sidecar.istio.io/inject": "maybe"}, Annotations: L{"sidecar.istio.io/inject": "false"}}, Meta{Labels: L{"istio-injection": "enabled"}}, true},
		{"istio", "annotation true alone", Meta{Annotations: L{"sidecar.istio.io/inject": "true"}}, Meta{}, false},
		{"linkerd", "pod enabled, Namespace disabled", Meta{Annotations: L{"linkerd.io/inject": "enabled"}}, Meta{Annotations: L{"linkerd.io/inject": "disabled"}}, true},
		{"linkerd", "pod disabled, Namespace enabled", Meta{Annotations: L{"linkerd.io/inject": "disabled"}}, Meta{Annotations: L{"linkerd.io/inject": "enabled"}}, false},
		{"kuma", "pod no, Namespace enabled", Meta{Labels: L{"kuma.io/sidecar-injection": "no"}}, Meta{Labels: L{"kuma.io/sidecar-injection": "enabled"}}, false},
		{"kuma", "pod yes, Namespace enabled", Meta{Labels: L{"kuma.io/sidecar-injection": "yes"}}, Meta{Labels: L{"kuma.io/sidecar-injection": "enabled"}}, true},
		{"kuma", "pod enabled, Namespace disabled", Meta{Labels: L{"kuma.io/sidecar-injection": "enabled"}}, Meta{Labels: L{"kuma.io/sidecar-injection": "disabled"}}, true},
		{"kuma", "pod annotation enabled", Meta{Annotations: L{"kuma.io/sidecar-injection": "enabled"}}, Meta{Labels: L{"kuma.io/sidecar-injection": "disabled"}}, false},
		{"consul", "annotation true", Meta{Annotations: L{"consul.hashicorp.com/connect-inject": "true"}}, Meta{}, true},
		{"consul", "Namespace annotation true", Meta{}, Meta{Annotations: L{"consul.hashicorp.com/connect-inject": "true"}}, false},
		{"vault-agent", "annotation true, injected already", Meta{Annotations: L{"vault.hashicorp.com/agent-inject": "true", "vault.hashicorp.com/agent-inject-status": "injected"}}, Meta{}, false},
		{"dapr", "annotation true", Meta{Annotations: L{"dapr.io/enabled": "true"}}, Meta{}, true},
	}
	for _, c := range cases {
		p, _ := Lookup(c.preset)
		_, _, admitted := p.Admitted(c.pod, c.ns)
		got := admitted && p.Injector.Injects(c.pod, c.ns, Target{Namespace: "shop", NamespaceKnown: true})
		if got != c.want {
			t.Errorf("%s, %s: injected = %v, want %v", c.preset, c.name, got, c.want)
		}
	}
}

// TestByNamespace: a pod the injector leaves out is left out by the
// namespace selectors alone when no refusal holds and a webhook selects its
// labels; then the verdict rests on what is known of the Namespace.
func TestByNamespace(t *testing.T) {
	type L = map[string]string
	cases := []struct {
		preset, name string
		pod          L
		at           Target
		want         bool
	}{
		{"kuma", "pod label alone", L{"kuma.io/sidecar-injection": "enabled"}, Target{Namespace: "shop"}, true},
		{"istio", "another revision", L{"istio.io/rev": "canary"}, Target{Namespace: "shop"}, true},
		{"istio", "injected", L{"sidecar.istio.io/inject": "true"}, Target{Namespace: "shop"}, false},
		{"istio", "hostNetwork", L{"sidecar.istio.io/inject": "true"}, Target{Namespace: "shop", HostNetwork: true}, false},
		{"vault-agent", "the injector's own pod", L{"app.kubernetes.io/name": "vault-agent-injector"}, Target{Namespace: "vault"}, false},
		{"linkerd", "kube-system", nil, Target{Namespace: "kube-system"}, true},
		{"linkerd", "a control plane pod", L{"linkerd.io/control-plane-component": "identity"}, Target{Namespace: "linkerd"}, false},
	}
	for _, c := range cases {
		p, _ := Lookup(c.preset)
		if got := p.Injector.ByNamespace(Meta{Labels: c.pod}, Meta{}, c.at); got != c.want {
			t.Errorf("%s, %s: ByNamespace = %v, want %v", c.preset, c.name, got, c.want)
		}
	}
}
