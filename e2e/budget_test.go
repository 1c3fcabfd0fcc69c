//go:build e2e

package e2e

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// The budget scenario's numbers: the app's own preStop (testdata/budget-pod.yaml),
// the sidecar's configured exit in the control, and what auto makes of it.
const (
	appPreStop   = 12 * time.Second
	shortExit    = 5 * time.Second
	autoExit     = appPreStop + 5*time.Second
	budgetPeriod = 100 * time.Millisecond
)

// TestTerminationBudget: the app drains in its own 12 s preStop while it
// calls through its sidecar. With waitBeforeExit 5s (the control) the
// sidecar leaves at 5 s, the function warns, and the app's requests fail
// until its own SIGTERM; with waitBeforeExit auto the sidecar waits 17 s,
// and in native mode kubelet stops it after the app: no request fails.
func TestTerminationBudget(t *testing.T) {
	t.Parallel()
	for i, variant := range []string{"short-exit", "auto", "native"} {
		port := suite.portBase + 10 + i
		t.Run(variant, func(t *testing.T) {
			t.Parallel()
			budgetScenario(t, variant, port)
		})
	}
}

func budgetScenario(t *testing.T, variant string, port int) {
	r := summary.add(t, "budget", variant)
	name := fmt.Sprintf("e2e-%s-budget-%s", suite.runID, variant)
	dir := filepath.Join(suite.artifacts, "budget-"+variant)
	vars := podVars(name, port)
	vars["MODE"], vars["EXIT"] = "ordered", shortExit.String()
	switch variant {
	case "auto":
		vars["EXIT"] = "auto"
	case "native":
		vars["MODE"] = "native"
	}
	items, results := runFunction(t, dir, render(t, "budget-pod.yaml", vars), render(t, "budget.yaml", vars))
	switch variant {
	case "short-exit":
		requireResult(t, results, "warning", "proxy leaves at 5s, before the preStop of app (12s) ends")
		requireResult(t, results, "info", "raised terminationGracePeriodSeconds from 20 to 22 (preStop of app 12s + margin 10s)")
	case "auto":
		requireResult(t, results, "info", "added preStop sleep 17s to proxy", "raised terminationGracePeriodSeconds from 20 to 27 (preStop of proxy 17s + margin 10s)")
	case "native":
		requireResult(t, results, "info", "raised terminationGracePeriodSeconds from 20 to 22 (preStop of app 12s + margin 10s)")
	}
	var out corev1.Pod
	decodeNode(t, onlyItem(t, items), &out)
	manifest := writeNodes(t, dir, "pod.yaml", items)

	ctx, app, proxy := startServing(t, name, manifest)

	deleted := time.Now()
	if _, err := kubectl(ctx, "delete", "pod", name, "-n", suite.namespace, "--wait=false"); err != nil {
		t.Fatal(err)
	}
	grace := time.Duration(*out.Spec.TerminationGracePeriodSeconds) * time.Second
	pod, appEvents, proxyEvents := stopped(t, dir, name, grace, app, proxy)
	appSigterm, appExit := first(appEvents, "sigterm"), first(appEvents, "exit")
	proxySigterm, proxyExit := first(proxyEvents, "sigterm"), first(proxyEvents, "exit")
	if appSigterm == nil || appExit == nil || proxySigterm == nil || proxyExit == nil {
		t.Fatalf("incomplete logs:\napp:\n%sproxy:\n%s", describeEvents(appEvents, 40), describeEvents(proxyEvents, 40))
	}
	_, draining := requests(appEvents, deleted)
	r.ok, r.failed = tally(draining)

	// The app's preStop ran: its SIGTERM came about 12 s after the deletion.
	held := appSigterm.Time.Sub(deleted)
	r.check(held >= appPreStop-time.Second, "the app got SIGTERM %s after the deletion, want about %s (its preStop)", secs(held), appPreStop)
	r.check(len(draining) >= int(appPreStop/budgetPeriod)/2, "only %d requests after the deletion: the app's preStop did not run", len(draining))
	proxyLeft := proxyExit.Time.Sub(deleted)
	if variant == "short-exit" {
		r.check(r.failed > 0, "no request failed while the app drained without the budget: the control shows nothing")
		r.check(proxyExit.Time.Before(appSigterm.Time), "the sidecar exited %s after the deletion, not before the app's SIGTERM", secs(proxyLeft))
		r.observed = fmt.Sprintf("sidecar left %s after the deletion, the app got SIGTERM at %s; first failure: %s",
			secs(proxyLeft), secs(held), reason(firstFailure(draining)))
		r.done()
		return
	}
	r.check(r.failed == 0, "%d of %d requests failed after the deletion; first: %s", r.failed, len(draining), reason(firstFailure(draining)))
	r.check(proxyExit.Time.After(appExit.Time), "the sidecar exited %s before the app", secs(appExit.Time.Sub(proxyExit.Time)))
	if s := status(pod, "proxy"); r.check(s != nil && s.State.Terminated != nil, "no terminated status for the sidecar: %s", podSummary(pod)) {
		r.check(s.State.Terminated.ExitCode == 0, "the sidecar exited %d (%s): killed, not exited by itself", s.State.Terminated.ExitCode, s.State.Terminated.Reason)
	}
	if variant == "auto" {
		waited := proxySigterm.Time.Sub(deleted)
		r.check(waited >= autoExit-time.Second, "the sidecar got SIGTERM %s after the deletion, want about %s (auto)", secs(waited), autoExit)
	}
	r.observed = fmt.Sprintf("app got SIGTERM %s after the deletion and exited %s; the sidecar left %s after the deletion",
		secs(held), secs(appExit.Time.Sub(deleted)), secs(proxyLeft))
	r.done()
}
