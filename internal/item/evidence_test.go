package item

import (
	"slices"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
)

// TestJudge: recognition's verdict on one pod, with an empty config (every
// catalog entry recognised) or a config of its own: which recognised
// containers stay sidecars, which are the pod's application, and when the
// pod is left as it is, with what named.
func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		name, config, pod string
		// sidecars are the plan's sidecars found in the pod; applications
		// the recognised containers found to be the application.
		sidecars, applications []string
		// conflict and leave are substrings of the verdict's messages; "" is none.
		conflict, leave string
	}{{
		name:     "an application with a recognised proxy",
		pod:      "metadata: {name: web, labels: {app: web}}\nspec:\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - {name: web, image: shop/web:1}\n      - {name: linkerd-proxy, image: cr.l5d.io/linkerd/proxy:edge-26.8.3}\n",
		sidecars: []string{"linkerd-proxy"},
	}, {
		name:         "the recognised container alone is the application",
		pod:          "metadata: {name: auth}\nspec:\n  template:\n    spec:\n      containers:\n      - {name: auth, image: quay.io/oauth2-proxy/oauth2-proxy:v7.6.0}\n",
		applications: []string{"auth"},
	}, {
		name:         "a helper its preStop calls is not an application",
		pod:          "metadata: {name: edge}\nspec:\n  template:\n    spec:\n      containers:\n      - {name: drainer, image: acme/drainer:1, ports: [{containerPort: 8090}]}\n      - name: envoy\n        image: envoyproxy/envoy:v1.36.0\n        lifecycle: {preStop: {httpGet: {path: /shutdown, port: 8090}}}\n",
		applications: []string{"envoy"},
	}, {
		name:         "a container of the image that writes its config is a helper",
		pod:          "metadata: {name: edge}\nspec:\n  template:\n    spec:\n      initContainers:\n      - {name: bootstrap, image: acme/ctl:2, volumeMounts: [{name: config, mountPath: /config}]}\n      containers:\n      - {name: manager, image: acme/ctl:2}\n      - {name: envoy, image: envoyproxy/envoy:v1.36.0, volumeMounts: [{name: config, mountPath: /config, readOnly: true}]}\n",
		applications: []string{"envoy"},
	}, {
		name:     "named for the recognised container, beside another: conflict",
		pod:      "metadata: {name: fluent-bit, labels: {app.kubernetes.io/name: fluent-bit}}\nspec:\n  template:\n    spec:\n      containers:\n      - {name: fluent-bit, image: cr.fluentbit.io/fluent/fluent-bit:4.0.3, ports: [{containerPort: 2020, name: http}]}\n      - {name: reloader, image: ghcr.io/jimmidyson/configmap-reload:v0.14.0, args: [--webhook-url=http://localhost:2020/api/v2/reload]}\n",
		sidecars: []string{"fluent-bit"},
		conflict: `fluent-bit (fluent-bit) is recognised as a sidecar of "reloader", but the Deployment is named "fluent-bit"`,
	}, {
		name:     "host ports: conflict",
		pod:      "metadata: {name: ingress}\nspec:\n  template:\n    spec:\n      containers:\n      - {name: sidecar, image: acme/tool:1}\n      - {name: envoy, image: envoyproxy/envoy:v1.36.0, ports: [{containerPort: 8080, hostPort: 80}]}\n",
		sidecars: []string{"envoy"},
		conflict: "it binds the node's ports 80",
	}, {
		name:     "a container the config names is not judged",
		config:   "spec:\n  sidecars:\n  - {name: envoy}\n",
		pod:      "metadata: {name: envoy}\nspec:\n  template:\n    spec:\n      containers:\n      - {name: app, image: acme/app:1}\n      - {name: envoy, image: envoyproxy/envoy:v1.36.0, ports: [{containerPort: 8080, hostPort: 80}]}\n",
		sidecars: []string{"envoy"},
	}, {
		name:     "the vendor's word in a container's environment",
		pod:      "metadata: {name: linkerd-identity}\nspec:\n  template:\n    spec:\n      containers:\n      - {name: identity, image: cr.l5d.io/linkerd/controller:edge-26.8.3, env: [{name: LINKERD_DISABLED, value: \"linkerd-await cannot block the identity controller\"}]}\n      - {name: linkerd-proxy, image: cr.l5d.io/linkerd/proxy:edge-26.8.3}\n",
		sidecars: []string{"linkerd-proxy"},
		leave:    `environment variable LINKERD_DISABLED "linkerd-await cannot block the identity controller" on container "identity"`,
	}, {
		name:     "the vendor's word holds for a preset the config names",
		config:   "spec:\n  sidecars:\n  - {preset: istio}\n",
		pod:      "metadata: {name: grpc}\nspec:\n  template:\n    metadata: {annotations: {inject.istio.io/templates: grpc-agent}}\n    spec:\n      containers:\n      - {name: app, image: acme/app:1}\n      - {name: istio-proxy, image: docker.io/istio/proxyv2:1.30.3}\n",
		sidecars: []string{"istio-proxy"},
		leave:    `annotation inject.istio.io/templates "grpc-agent"`,
	}, {
		name:     "Istio's sidecar template with another is the sidecar's",
		pod:      "metadata: {name: web}\nspec:\n  template:\n    metadata: {annotations: {inject.istio.io/templates: \"sidecar, spire\"}}\n    spec:\n      containers:\n      - {name: app, image: acme/app:1}\n      - {name: istio-proxy, image: docker.io/istio/proxyv2:1.30.3}\n",
		sidecars: []string{"istio-proxy"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			w, ok := workload.Find(krmtest.Parse(t, "apiVersion: apps/v1\nkind: Deployment\n"+tc.pod), nil)
			if !ok {
				t.Fatal("not a workload")
			}
			cfg := tc.config
			if cfg != "" {
				cfg = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: judge}\n" + cfg
			}
			ed := New(krmtest.Config(t, cfg))
			p, errs := ed.newPlan(ed.readPod(w, readPodMeta(w), preset.Meta{}))
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			spec, _ := w.PodSpec()
			var found []string
			for _, sc := range p.sidecars {
				if present(spec, sc.Name) {
					found = append(found, sc.Name)
				}
			}
			if !slices.Equal(found, tc.sidecars) || !slices.Equal(p.applications, tc.applications) {
				t.Errorf("sidecars %q, applications %q; want %q, %q", found, p.applications, tc.sidecars, tc.applications)
			}
			for _, c := range []struct{ got, want, what string }{{p.conflict, tc.conflict, "conflict"}, {p.leave, tc.leave, "leave"}} {
				if (c.want == "") != (c.got == "") || !strings.Contains(c.got, c.want) {
					t.Errorf("%s %q, want one with %q", c.what, c.got, c.want)
				}
			}
		})
	}
}
