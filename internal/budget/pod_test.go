package budget_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
)

const issuePod = `terminationGracePeriodSeconds: 60
initContainers:
- name: migrate
- name: istio-proxy
  restartPolicy: Always
  startupProbe: {httpGet: {path: /healthz/ready, port: 15021}}
containers:
- name: linkerd-proxy
  lifecycle:
    postStart: {exec: {command: [/usr/lib/linkerd/linkerd-await, --timeout=2m]}}
    preStop: {sleep: {seconds: 30}}
- name: app
  lifecycle:
    preStop:
      exec:
        command: [/bin/bash, -c, 'sleep 130 && while pkill -QUIT -f myapp; do sleep 1; done']
- name: metrics
  lifecycle: {preStop: {httpGet: {path: /quit, port: 9090}}}
- name: worker
`

func TestReadPod(t *testing.T) {
	pod := budget.ReadPod(krmtest.Parse(t, issuePod), map[string]bool{"linkerd-proxy": true})
	if pod.Grace != 60 {
		t.Errorf("grace %d, want 60", pod.Grace)
	}
	if len(pod.Init) != 2 || !pod.Init[1].Native || !pod.Init[1].Sidecar || !pod.Init[1].StartupProbe || pod.Init[0].Sidecar {
		t.Errorf("init containers read as %+v", pod.Init)
	}
	var apps []string
	for _, c := range pod.Apps() {
		apps = append(apps, c.Name)
	}
	if !reflect.DeepEqual(apps, []string{"app", "metrics", "worker"}) {
		t.Errorf("apps %q", apps)
	}
	if got := pod.Containers[0].PostStart; len(got) != 2 {
		t.Errorf("postStart of linkerd-proxy read as %q", got)
	}
	d := pod.Drain()
	if d.Seconds != 130 || d.Container != "app" || len(d.Unknown) != 1 || d.Unknown[0].Name != "metrics" {
		t.Errorf("drain %+v, want 130s of app, metrics unknown", d)
	}
	if got := budget.ReadPod(krmtest.Parse(t, "containers: [{name: a}]\n"), nil).Grace; got != 30 {
		t.Errorf("absent grace read as %d, want the default 30", got)
	}
}

func TestOrderedBreaks(t *testing.T) {
	pod := budget.ReadPod(krmtest.Parse(t, issuePod), map[string]bool{"linkerd-proxy": true})
	got := pod.OrderedBreaks([]budget.Exit{{Name: "istio-proxy", Seconds: 130, Injected: true}, {Name: "vault", Seconds: 131, Injected: true}}, 86390).Strings()
	if len(got) != 2 {
		t.Fatalf("breaks %q, want linkerd-proxy and istio-proxy", got)
	}
	for _, want := range []string{"istio-proxy (injected by the mesh) leaves at 130s, before the preStop of app (130s) ends", "linkerd-proxy leaves at 30s, before the preStop of app (130s) ends"} {
		if !strings.Contains(strings.Join(got, "\n"), want) {
			t.Errorf("breaks %q lack %q", got, want)
		}
	}
	calm := budget.ReadPod(krmtest.Parse(t, "containers:\n- name: proxy\n  lifecycle: {preStop: {sleep: {seconds: 5}}}\n- name: app\n"), map[string]bool{"proxy": true})
	if got := calm.OrderedBreaks(nil, 86390).Strings(); len(got) != 0 {
		t.Errorf("an app without preStop breaks nothing, got %q", got)
	}
}

// TestOrderedBreaksFix: the fix a break suggests is one the config can
// write: no waitBeforeExit above what the config accepts, no auto that
// would be longer.
func TestOrderedBreaksFix(t *testing.T) {
	tests := []struct{ drain, want string }{
		{"130", "set waitBeforeExit above 130s, or to auto"},
		{"86386", "set waitBeforeExit above 86386s"},
		{"86390", "waitBeforeExit can be at most 86390s (24h less spec.terminationGracePeriod.margin), so shorten the preStop of app"},
		{"9223372036854775807", "waitBeforeExit can be at most 86390s (24h less spec.terminationGracePeriod.margin), so shorten the preStop of app"},
	}
	for _, tc := range tests {
		pod := budget.ReadPod(krmtest.Parse(t, "containers:\n- name: proxy\n- name: app\n  lifecycle: {preStop: {exec: {command: [sleep, \""+tc.drain+"\"]}}}\n"), map[string]bool{"proxy": true})
		got := pod.OrderedBreaks(nil, 86390).Strings()
		if len(got) != 1 || !strings.HasSuffix(got[0], "drains; "+tc.want) {
			t.Errorf("drain %s: breaks %q, want one ending in %q", tc.drain, got, tc.want)
		}
	}
}

func TestAutoExit(t *testing.T) {
	sidecars := map[string]bool{"proxy": true}
	tests := []struct {
		name    string
		spec    string
		drain   int64
		want    int64
		ok      bool
		noDrain string
	}{
		{"longest readable preStop", issuePod, 0, 130 + budget.AutoAllowance, true, ""},
		{"drain delay for a container without preStop", "containers: [{name: proxy}, {name: app}]\n", 20, 20 + budget.AutoAllowance, true, ""},
		{"own preStop longer than the drain delay", "containers:\n- name: app\n  lifecycle: {preStop: {sleep: {seconds: 40}}}\n- name: other\n", 20, 40 + budget.AutoAllowance, true, ""},
		{"nothing to read", "containers: [{name: proxy}, {name: app}]\n", 0, 0, false, "no application container has a preStop and app.drainDelay is 0"},
		{"only unknown", "containers:\n- name: app\n  lifecycle: {preStop: {httpGet: {port: 80}}}\n", 10, 0, false, "(app: httpGet)"},
		{"only sidecars", "containers: [{name: proxy}]\n", 10, 0, false, "no application container"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := budget.ReadPod(krmtest.Parse(t, tc.spec), sidecars)
			got, ok := pod.AutoExit(tc.drain)
			if ok != tc.ok || (ok && got != tc.want) {
				t.Errorf("AutoExit = %d, %v; want %d, %v", got, ok, tc.want, tc.ok)
			}
			if !ok && !strings.Contains(pod.NoDrain(tc.drain), tc.noDrain) {
				t.Errorf("NoDrain = %q, want it to contain %q", pod.NoDrain(tc.drain), tc.noDrain)
			}
		})
	}
}
