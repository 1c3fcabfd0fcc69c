package budget_test

import (
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
)

// wait is Linkerd's exit delay annotation, as its catalog entry names it.
const wait = "config.alpha.linkerd.io/proxy-wait-before-exit-seconds"

func TestInjectedExit(t *testing.T) {
	linkerd, _ := preset.Lookup(preset.Linkerd)
	istio, _ := preset.Lookup(preset.Istio)
	const cfg = "proxy.istio.io/config"
	tests := []struct {
		name        string
		delays      []preset.Delay
		annotations map[string]string
		want        budget.Exit
	}{
		{"linkerd wait-before-exit", linkerd.ExitDelays, map[string]string{wait: "30"},
			budget.Exit{Seconds: 30, Source: wait + ` "30"`}},
		{"linkerd default", linkerd.ExitDelays, nil,
			budget.Exit{Seconds: 0, Source: "no " + wait + ": its default 0s"}},
		{"linkerd in a duration", linkerd.ExitDelays, map[string]string{wait: "30s"},
			budget.Exit{Source: wait + ` "30s"`, Problem: "it is not a number of seconds"}},
		{"istio terminationDrainDuration, YAML", istio.ExitDelays, map[string]string{cfg: "{terminationDrainDuration: 20s}"},
			budget.Exit{Seconds: 20, Source: "terminationDrainDuration in " + cfg + ` "20s"`}},
		{"istio terminationDrainDuration, JSON", istio.ExitDelays, map[string]string{cfg: `{"terminationDrainDuration":"1m30s","holdApplicationUntilProxyStarts":true}`},
			budget.Exit{Seconds: 90, Source: "terminationDrainDuration in " + cfg + ` "1m30s"`}},
		{"istio default", istio.ExitDelays, map[string]string{cfg: "{holdApplicationUntilProxyStarts: true}"},
			budget.Exit{Seconds: 5, Source: "no terminationDrainDuration in " + cfg + ": its default 5s"}},
		{"istio until idle wins over the drain", istio.ExitDelays, map[string]string{cfg: "terminationDrainDuration: 20s\nproxyMetadata:\n  EXIT_ON_ZERO_ACTIVE_CONNECTIONS: \"true\"\n"},
			budget.Exit{Seconds: 5, UntilIdle: true, Source: "proxyMetadata.EXIT_ON_ZERO_ACTIVE_CONNECTIONS in " + cfg + ` "true"`}},
		{"istio until idle off", istio.ExitDelays, map[string]string{cfg: `{"terminationDrainDuration":"20s","proxyMetadata":{"EXIT_ON_ZERO_ACTIVE_CONNECTIONS":"false"}}`},
			budget.Exit{Seconds: 20, Source: "terminationDrainDuration in " + cfg + ` "20s"`}},
		{"istio unreadable config", istio.ExitDelays, map[string]string{cfg: "{terminationDrainDuration: [20s]}"},
			budget.Exit{Seconds: 5, Source: "no terminationDrainDuration in " + cfg + ": its default 5s"}},
		{"no settings", nil, nil, budget.Exit{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.Name, tc.want.Injected = "proxy", true
			if got := budget.InjectedExit("proxy", tc.delays, tc.annotations); got != tc.want {
				t.Errorf("InjectedExit = %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestOrderedBreaksInjected: an injected sidecar's break names the setting
// it was read from; one that stays until idle, or whose setting cannot be
// read, is not a break.
func TestOrderedBreaksInjected(t *testing.T) {
	pod := budget.ReadPod(krmtest.Parse(t, "containers:\n- name: app\n  lifecycle: {preStop: {sleep: {seconds: 40}}}\n"), nil)
	got := pod.OrderedBreaks([]budget.Exit{
		{Name: "linkerd-proxy", Seconds: 30, Injected: true, Source: wait + ` "30"`},
		{Name: "istio-proxy", Seconds: 5, Injected: true, UntilIdle: true},
		{Name: "other", Injected: true, Problem: "it is not a number of seconds"},
	}, 86390).Strings()
	want := `linkerd-proxy (injected by the mesh) leaves at 30s (config.alpha.linkerd.io/proxy-wait-before-exit-seconds "30"), before the preStop of app (40s) ends`
	if len(got) != 1 || !strings.HasPrefix(got[0], want) {
		t.Errorf("breaks %q, want one starting %q", got, want)
	}
}

func TestTimelineInjected(t *testing.T) {
	pod := budget.ReadPod(krmtest.Parse(t, "terminationGracePeriodSeconds: 50\ncontainers:\n- name: app\n  lifecycle: {preStop: {sleep: {seconds: 40}}}\n"), nil)
	pod.Injected = []budget.Injected{
		{Exit: budget.Exit{Name: "linkerd-proxy", Seconds: 30, Injected: true, Source: "wait"}, Start: "held first"},
		{Exit: budget.Exit{Name: "istio-proxy", Seconds: 5, Injected: true, UntilIdle: true, Source: "idle"}, Start: "held first"},
		{Exit: budget.Exit{Name: "late", Seconds: 60, Injected: true, Source: "drain"}},
	}
	tl := budget.NewTimeline("Deployment shop/web", pod, nil)
	if tl.Startup[0].Name != "linkerd-proxy (injected)" || tl.Startup[0].Text != "held first" || tl.Startup[3].Name != "app" {
		t.Errorf("start-up %+v", tl.Startup)
	}
	for _, w := range []struct {
		at     int64
		breaks bool
		words  string
	}{
		{0, false, "linkerd-proxy (injected): stays 30s after termination starts (wait)"},
		{30, true, "linkerd-proxy (injected) leaves"},
		{0, false, "istio-proxy (injected): SIGTERM; it drains and stays until its connections have closed, at least 5s (idle)"},
		{40, false, "istio-proxy (injected) leaves once the application has exited"},
		{60, false, "late (injected) leaves"},
	} {
		found := false
		for _, m := range tl.Marks {
			found = found || (m.At == w.at && m.Breaks == w.breaks && strings.Contains(m.Text, w.words))
		}
		if !found {
			t.Errorf("no mark at %d (break %v) with %q in\n%s", w.at, w.breaks, w.words, strings.Join(marks(tl), "\n"))
		}
	}
	want := []string{
		"linkerd-proxy (injected) leaves at 30s, before the preStop of app (40s) ends",
		"exit delay of late (injected) runs to 60s, past the grace period (50s): kubelet kills it at 50s",
	}
	if strings.Join(tl.Breaks, "\n") != strings.Join(want, "\n") {
		t.Errorf("breaks\n%s\nwant\n%s", strings.Join(tl.Breaks, "\n"), strings.Join(want, "\n"))
	}
}
