package native_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/native"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

var linkerdProbe = &corev1.Probe{
	ProbeHandler:     corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(4191)}},
	PeriodSeconds:    1,
	FailureThreshold: 120,
}

func convert(t *testing.T, spec string, f native.Convert) (string, report.Log) {
	t.Helper()
	node, err := yaml.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	var log report.Log
	f.Log = &log
	if _, err := f.Filter([]*yaml.RNode{node}); err != nil {
		t.Fatal(err)
	}
	return node.MustString(), log
}

func TestConvert(t *testing.T) {
	linkerd := native.Sidecar{Name: "linkerd-proxy", DefaultProbe: linkerdProbe, WaitCommand: []string{"/usr/lib/linkerd/linkerd-await", "--timeout=2m"}}
	mesh := []string{"linkerd-init", "istio-init"}
	for _, tc := range []struct {
		name, spec, want string
		sidecars         []native.Sidecar
		replace          bool
		changes          int
	}{
		{
			name:     "no init containers: the list is made before containers",
			spec:     "containers:\n- name: app\n# the proxy\n- name: linkerd-proxy\n",
			want:     "initContainers:\n# the proxy\n- name: linkerd-proxy\n  restartPolicy: Always\n  startupProbe:\n    httpGet:\n      path: /ready\n      port: 4191\n    periodSeconds: 1\n    failureThreshold: 120\ncontainers:\n- name: app\n",
			sidecars: []native.Sidecar{linkerd}, changes: 3,
		},
		{
			name:     "after the mesh init, before the user's",
			spec:     "initContainers:\n- {name: linkerd-init}\n- {name: migrate}\ncontainers:\n- {name: app}\n- {name: linkerd-proxy, startupProbe: {tcpSocket: {port: 4191}}}\n",
			want:     "initContainers:\n- {name: linkerd-init}\n- {name: linkerd-proxy, startupProbe: {tcpSocket: {port: 4191}}, restartPolicy: Always}\n- {name: migrate}\ncontainers:\n- {name: app}\n",
			sidecars: []native.Sidecar{linkerd}, changes: 2,
		},
		{
			name:     "ordered-mode hooks are removed, others kept",
			spec:     "containers:\n- name: app\n- name: linkerd-proxy\n  lifecycle:\n    postStart:\n      exec: {command: [/usr/lib/linkerd/linkerd-await, --timeout=2m]}\n    preStop:\n      sleep: {seconds: 30}\n- name: agent\n  lifecycle:\n    preStop:\n      exec: {command: [/drain]}\n",
			want:     "initContainers:\n- name: linkerd-proxy\n  restartPolicy: Always\n  startupProbe:\n    httpGet:\n      path: /ready\n      port: 4191\n    periodSeconds: 1\n    failureThreshold: 120\n- name: agent\n  lifecycle:\n    preStop:\n      exec: {command: [/drain]}\n  restartPolicy: Always\ncontainers:\n- name: app\n",
			sidecars: []native.Sidecar{linkerd, {Name: "agent"}}, changes: 7,
		},
		{
			name:     "replace removes the other hooks too",
			spec:     "containers:\n- name: app\n- name: agent\n  readinessProbe: {tcpSocket: {port: 1}}\n  lifecycle:\n    preStop:\n      exec: {command: [/drain]}\n",
			want:     "initContainers:\n- name: agent\n  readinessProbe: {tcpSocket: {port: 1}}\n  restartPolicy: Always\n  startupProbe: {tcpSocket: {port: 1}}\ncontainers:\n- name: app\n",
			sidecars: []native.Sidecar{{Name: "agent"}}, replace: true, changes: 4,
		},
		{
			name:     "already native: nothing to do",
			spec:     "initContainers:\n- name: linkerd-init\n- name: linkerd-proxy\n  restartPolicy: Always\n  startupProbe: {httpGet: {path: /ready, port: 4191}}\ncontainers:\n- name: app\n",
			want:     "initContainers:\n- name: linkerd-init\n- name: linkerd-proxy\n  restartPolicy: Always\n  startupProbe: {httpGet: {path: /ready, port: 4191}}\ncontainers:\n- name: app\n",
			sidecars: []native.Sidecar{linkerd}, changes: 0,
		},
		{
			name:     "config order, not input order",
			spec:     "containers:\n- {name: b}\n- {name: a}\n- {name: app}\n",
			want:     "initContainers:\n- {name: a, restartPolicy: Always}\n- {name: b, restartPolicy: Always}\ncontainers:\n- {name: app}\n",
			sidecars: []native.Sidecar{{Name: "a"}, {Name: "b"}}, changes: 4,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, log := convert(t, tc.spec, native.Convert{Sidecars: tc.sidecars, MeshInit: mesh, ReplaceHooks: tc.replace})
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if len(log.Changes) != tc.changes {
				t.Errorf("changes %d, want %d: %q", len(log.Changes), tc.changes, log.Changes)
			}
			again, log2 := convert(t, got, native.Convert{Sidecars: tc.sidecars, MeshInit: mesh, ReplaceHooks: tc.replace})
			if again != got || len(log2.Changes) != 0 {
				t.Errorf("not idempotent: %q\n%s", log2.Changes, again)
			}
		})
	}
}

func TestConvertConfigProbe(t *testing.T) {
	probe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"ready"}}}, PeriodSeconds: 2}
	got, log := convert(t, "containers:\n- name: app\n- name: agent\n  startupProbe: {httpGet: {path: /old, port: 1}}\n",
		native.Convert{Sidecars: []native.Sidecar{{Name: "agent", StartupProbe: probe}}})
	if !strings.Contains(got, "startupProbe: {exec: {command: [ready]}, periodSeconds: 2}") {
		t.Errorf("config probe not set:\n%s", got)
	}
	if !strings.Contains(strings.Join(log.Changes.Strings(), ";"), "from the config") {
		t.Errorf("changes %q", log.Changes)
	}
	_, log = convert(t, got, native.Convert{Sidecars: []native.Sidecar{{Name: "agent", StartupProbe: probe}}})
	if len(log.Changes) != 0 {
		t.Errorf("same probe reported as a change: %q", log.Changes)
	}
}

func TestConvertNoProbeWarns(t *testing.T) {
	_, log := convert(t, "containers:\n- name: app\n- name: logger\n", native.Convert{Sidecars: []native.Sidecar{{Name: "logger"}}})
	if len(log.Warnings) != 1 || !strings.Contains(log.Warnings[0].Detail, "no startupProbe and no readinessProbe") {
		t.Errorf("warnings %q", log.Warnings)
	}
}

// istioDrain is the preStop Istio's injector writes on a native istio-proxy.
var istioDrain = []string{"pilot-agent", "request", "--debug-port=15020", "POST", "drain"}

func TestConvertPlacement(t *testing.T) {
	mesh := []string{"linkerd-init", "linkerd-network-validator", "istio-init", "istio-validation"}
	istio := native.Sidecar{Name: "istio-proxy"}
	for _, tc := range []struct {
		name, spec, want string
		sidecars         []native.Sidecar
	}{
		{
			name:     "a user init container before the mesh's goes after the proxy",
			spec:     "initContainers:\n- {name: migrate}\n- {name: istio-init}\ncontainers:\n- {name: app}\n- {name: istio-proxy, startupProbe: {tcpSocket: {port: 1}}}\n",
			want:     "initContainers:\n- {name: istio-init}\n- {name: istio-proxy, startupProbe: {tcpSocket: {port: 1}}, restartPolicy: Always}\n- {name: migrate}\ncontainers:\n- {name: app}\n",
			sidecars: []native.Sidecar{istio},
		},
		{
			name:     "already native but behind a user init container",
			spec:     "initContainers:\n- {name: migrate}\n- {name: linkerd-init}\n- {name: linkerd-network-validator}\n- {name: linkerd-proxy, restartPolicy: Always, startupProbe: {tcpSocket: {port: 1}}}\n- {name: seed}\ncontainers:\n- {name: app}\n",
			want:     "initContainers:\n- {name: linkerd-init}\n- {name: linkerd-network-validator}\n- {name: linkerd-proxy, restartPolicy: Always, startupProbe: {tcpSocket: {port: 1}}}\n- {name: migrate}\n- {name: seed}\ncontainers:\n- {name: app}\n",
			sidecars: []native.Sidecar{{Name: "linkerd-proxy"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, log := convert(t, tc.spec, native.Convert{Sidecars: tc.sidecars, MeshInit: mesh})
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if len(log.Changes) == 0 {
				t.Error("no change reported")
			}
			again, log2 := convert(t, got, native.Convert{Sidecars: tc.sidecars, MeshInit: mesh})
			if again != got || len(log2.Changes) != 0 {
				t.Errorf("not idempotent: %q\n%s", log2.Changes, again)
			}
		})
	}
}

func TestConvertNativePreStop(t *testing.T) {
	istio := native.Sidecar{Name: "istio-proxy", WaitCommand: []string{"pilot-agent", "wait"}, PreStop: istioDrain}
	for _, tc := range []struct {
		name, spec, want string
		replace          bool
	}{
		{
			name: "the ordered-mode hooks give way to Istio's drain",
			spec: "containers:\n- name: app\n- name: istio-proxy\n  startupProbe: {tcpSocket: {port: 1}}\n  lifecycle:\n    postStart:\n      exec: {command: [pilot-agent, wait]}\n    preStop:\n      sleep: {seconds: 20}\n",
			want: "initContainers:\n- name: istio-proxy\n  startupProbe: {tcpSocket: {port: 1}}\n  restartPolicy: Always\n  lifecycle:\n    preStop:\n      exec:\n        command:\n        - pilot-agent\n        - request\n        - --debug-port=15020\n        - POST\n        - drain\ncontainers:\n- name: app\n",
		},
		{
			name:    "replace keeps the drain it writes",
			spec:    "containers:\n- name: app\n- name: istio-proxy\n  startupProbe: {tcpSocket: {port: 1}}\n  lifecycle:\n    preStop:\n      exec: {command: [/drain.sh]}\n",
			want:    "initContainers:\n- name: istio-proxy\n  startupProbe: {tcpSocket: {port: 1}}\n  restartPolicy: Always\n  lifecycle:\n    preStop:\n      exec:\n        command:\n        - pilot-agent\n        - request\n        - --debug-port=15020\n        - POST\n        - drain\ncontainers:\n- name: app\n",
			replace: true,
		},
		{
			name: "a drain on another status port, as its injector was configured, is kept",
			spec: "initContainers:\n- name: istio-proxy\n  restartPolicy: Always\n  startupProbe: {tcpSocket: {port: 1}}\n  lifecycle:\n    preStop:\n      exec: {command: [pilot-agent, request, --debug-port=15999, POST, drain]}\ncontainers:\n- name: app\n",
			want: "initContainers:\n- name: istio-proxy\n  restartPolicy: Always\n  startupProbe: {tcpSocket: {port: 1}}\n  lifecycle:\n    preStop:\n      exec: {command: [pilot-agent, request, --debug-port=15999, POST, drain]}\ncontainers:\n- name: app\n",
		},
		{
			name: "another preStop is kept",
			spec: "containers:\n- name: app\n- name: istio-proxy\n  startupProbe: {tcpSocket: {port: 1}}\n  lifecycle:\n    preStop:\n      exec: {command: [/drain.sh]}\n",
			want: "initContainers:\n- name: istio-proxy\n  startupProbe: {tcpSocket: {port: 1}}\n  lifecycle:\n    preStop:\n      exec: {command: [/drain.sh]}\n  restartPolicy: Always\ncontainers:\n- name: app\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := native.Convert{Sidecars: []native.Sidecar{istio}, ReplaceHooks: tc.replace}
			got, _ := convert(t, tc.spec, f)
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			again, log := convert(t, got, f)
			if again != got || len(log.Changes) != 0 {
				t.Errorf("not idempotent: %q\n%s", log.Changes, again)
			}
		})
	}
}

// TestStartupProbeFromReadinessSucceedsOnce: a readinessProbe may need
// several successes, a startupProbe only one (the API server rejects any
// other successThreshold), so the copy drops it and keeps the rest.
func TestStartupProbeFromReadinessSucceedsOnce(t *testing.T) {
	got, _ := convert(t, "containers:\n- name: agent\n  readinessProbe:\n    httpGet: {port: 8080}\n    successThreshold: 3 # ready after three\n    periodSeconds: 2\n",
		native.Convert{Sidecars: []native.Sidecar{{Name: "agent"}}})
	want := "initContainers:\n- name: agent\n  readinessProbe:\n    httpGet: {port: 8080}\n    successThreshold: 3 # ready after three\n    periodSeconds: 2\n  restartPolicy: Always\n  startupProbe:\n    httpGet: {port: 8080}\n    periodSeconds: 2\ncontainers: []\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
