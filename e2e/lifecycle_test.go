//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/e2e/internal/eventlog"
)

const (
	// baseGrace is terminationGracePeriodSeconds in testdata/pod.yaml;
	// raisedGrace is what the function sets: waitBeforeExit 10s + margin 10s.
	baseGrace, raisedGrace = 8, 20
	// okBeforeDelete is how many good answers the app gets before the pod is deleted.
	okBeforeDelete = 10
	// minDrainRequests: the app drains 5s at 100ms, so far more than this
	// many requests after SIGTERM prove the drain ran.
	minDrainRequests = 20
)

// podVars are the template variables of one scenario.
func podVars(name string, port int) map[string]string {
	return map[string]string{
		"NAME": name, "RUN": suite.runID, "NODE": suite.node, "PORT": strconv.Itoa(port),
		"APP_IMAGE": suite.appImage, "SIDECAR_IMAGE": suite.sidecarImage,
	}
}

// TestStartupAndShutdown runs the base pod unmodified (the control), and the
// function's ordered and native output, each in its own pod: the app's
// requests through the sidecar from its first moment, then, after the pod is
// deleted, through its drain.
func TestStartupAndShutdown(t *testing.T) {
	t.Parallel()
	for i, variant := range []string{"unmodified", "ordered", "native"} {
		port := suite.portBase + i
		t.Run(variant, func(t *testing.T) {
			t.Parallel()
			lifecycleScenario(t, variant, port)
		})
	}
}

func lifecycleScenario(t *testing.T, variant string, port int) {
	startup := summary.add(t, "start-up", variant)
	shutdown := summary.add(t, "shutdown", variant)
	name := fmt.Sprintf("e2e-%s-%s", suite.runID, variant)
	dir := filepath.Join(suite.artifacts, "lifecycle-"+variant)
	vars := podVars(name, port)
	base := render(t, "pod.yaml", vars)

	// The manifest: the base, or the function's output for it.
	manifest := save(t, dir, "pod.yaml", base)
	wantGrace := int64(baseGrace)
	if variant != "unmodified" {
		vars["MODE"] = variant
		items, results := runFunction(t, dir, base, render(t, "sidecar-lifecycle.yaml", vars))
		requireResult(t, results, "info", "raised terminationGracePeriodSeconds from 8 to 20")
		item := onlyItem(t, items)
		manifest = writeNodes(t, dir, "pod.yaml", items)
		var out corev1.Pod
		decodeNode(t, item, &out)
		wantGrace = raisedGrace
		shutdown.check(out.Spec.TerminationGracePeriodSeconds != nil && *out.Spec.TerminationGracePeriodSeconds == raisedGrace,
			"the function's output has terminationGracePeriodSeconds %v, want %d", out.Spec.TerminationGracePeriodSeconds, raisedGrace)
	}

	ctx, app, proxy := startServing(t, name, manifest)

	// Delete it, and read the pod until every container has stopped; the
	// finalizer keeps the object.
	if _, err := kubectl(ctx, "delete", "pod", name, "-n", suite.namespace, "--wait=false"); err != nil {
		t.Fatal(err)
	}
	deleting, err := getPod(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	pod, appEvents, proxyEvents := stopped(t, dir, name, time.Duration(wantGrace)*time.Second, app, proxy)

	appStart, appSigterm, appExit := first(appEvents, "start"), first(appEvents, "sigterm"), first(appEvents, "exit")
	proxyReady, proxySigterm, proxyExit := first(proxyEvents, "ready"), first(proxyEvents, "sigterm"), first(proxyEvents, "exit")
	if appStart == nil || appSigterm == nil || appExit == nil || proxyReady == nil || proxySigterm == nil || proxyExit == nil {
		t.Fatalf("incomplete logs: app start/sigterm/exit %v/%v/%v, proxy ready/sigterm/exit %v/%v/%v\napp:\n%sproxy:\n%s",
			appStart != nil, appSigterm != nil, appExit != nil, proxyReady != nil, proxySigterm != nil, proxyExit != nil,
			describeEvents(appEvents, 40), describeEvents(proxyEvents, 40))
	}
	before, after := requests(appEvents, appSigterm.Time)
	startup.ok, startup.failed = tally(before)
	shutdown.ok, shutdown.failed = tally(after)

	checkStartup(startup, variant, before, appStart, proxyReady)
	startup.done()
	checkShutdown(shutdown, variant, pod, deleting, wantGrace, after, appSigterm, appExit, proxySigterm, proxyExit)
	shutdown.done()
}

// checkStartup: the control's first request fails; with the function every
// request succeeds and the app starts only once the sidecar is ready.
func checkStartup(r *row, variant string, before []eventlog.Event, appStart, proxyReady *eventlog.Event) {
	if !r.check(len(before) > 0, "the app logged no request before SIGTERM") {
		return
	}
	firstRequest := before[0]
	lead := firstRequest.Time.Sub(proxyReady.Time)
	if variant == "unmodified" {
		r.check(firstRequest.Fields["result"] == "fail", "the app's first request succeeded without the function: the control shows nothing")
		r.check(appStart.Time.Before(proxyReady.Time), "the app started %s after the sidecar was ready: the control shows nothing", secs(appStart.Time.Sub(proxyReady.Time)))
		r.check(r.ok > 0, "no request succeeded even after the sidecar was ready")
		r.observed = fmt.Sprintf("first request %s (%s), %s the sidecar was ready", firstRequest.Fields["result"], reason(&firstRequest), relative(lead))
		return
	}
	r.check(r.failed == 0, "%d of %d requests failed at start-up; first: %s", r.failed, len(before), reason(firstFailure(before)))
	r.check(!appStart.Time.Before(proxyReady.Time), "the app started %s before the sidecar was ready", secs(-appStart.Time.Sub(proxyReady.Time)))
	r.check(lead > 0, "the first request was %s before the sidecar was ready", secs(-lead))
	r.observed = fmt.Sprintf("first request %s, %s the sidecar was ready", firstRequest.Fields["result"], relative(lead))
}

// checkShutdown: without the function the sidecar exits with the app's
// SIGTERM and the drain fails; with it the sidecar outlives the app's drain,
// within the grace period the function set, which the kubelet honoured.
func checkShutdown(r *row, variant string, pod, deleting *corev1.Pod, wantGrace int64, after []eventlog.Event,
	appSigterm, appExit, proxySigterm, proxyExit *eventlog.Event) {
	appStatus, proxyStatus := status(pod, "app"), status(pod, "proxy")
	if !r.check(appStatus != nil && proxyStatus != nil && appStatus.State.Terminated != nil && proxyStatus.State.Terminated != nil,
		"no terminated status for app and proxy: %s", podSummary(pod)) {
		return
	}
	grace := pod.Spec.TerminationGracePeriodSeconds
	r.check(grace != nil && *grace == wantGrace, "the pod's terminationGracePeriodSeconds is %v, want %d", grace, wantGrace)
	r.check(deleting.DeletionGracePeriodSeconds != nil && *deleting.DeletionGracePeriodSeconds == wantGrace,
		"the deletion's grace period is %v, want %d", deleting.DeletionGracePeriodSeconds, wantGrace)
	r.check(appStatus.State.Terminated.ExitCode == 0, "the app exited %d, want 0 (it drains and exits by itself)", appStatus.State.Terminated.ExitCode)
	r.check(len(after) > 0, "the app logged no request after SIGTERM")
	sidecarAfterApp := proxyExit.Time.Sub(appExit.Time)

	if variant == "unmodified" {
		r.check(r.failed > 0, "no request failed during the drain without the function: the control shows nothing")
		r.check(sidecarAfterApp < 0, "the sidecar exited %s after the app without the function", secs(sidecarAfterApp))
		r.observed = fmt.Sprintf("sidecar got SIGTERM %s the app and exited %s it; first failure: %s",
			relative(proxySigterm.Time.Sub(appSigterm.Time)), relative(sidecarAfterApp), reason(firstFailure(after)))
		return
	}
	r.check(r.failed == 0, "%d of %d requests failed during the drain; first: %s", r.failed, len(after), reason(firstFailure(after)))
	r.check(len(after) >= minDrainRequests, "only %d requests after SIGTERM, want >= %d: the drain did not run", len(after), minDrainRequests)
	r.check(sidecarAfterApp > 0, "the sidecar exited %s before the app", secs(-sidecarAfterApp))
	r.check(!proxyStatus.State.Terminated.FinishedAt.Before(&appStatus.State.Terminated.FinishedAt),
		"the kubelet saw the sidecar finish at %s, before the app at %s", proxyStatus.State.Terminated.FinishedAt, appStatus.State.Terminated.FinishedAt)
	// The kubelet honoured the grace period: the sidecar exited by itself
	// (exit code 0, its exit logged) within it, counted from the app's SIGTERM.
	r.check(proxyStatus.State.Terminated.ExitCode == 0, "the sidecar exited %d (%s): killed, not exited by itself",
		proxyStatus.State.Terminated.ExitCode, proxyStatus.State.Terminated.Reason)
	inGrace := proxyExit.Time.Sub(appSigterm.Time)
	r.check(inGrace <= time.Duration(wantGrace)*time.Second, "the sidecar exited %s after the app's SIGTERM, beyond the %ds grace period", secs(inGrace), wantGrace)
	for _, s := range []*corev1.ContainerStatus{appStatus, proxyStatus} {
		r.check(s.RestartCount == 0, "%s restarted %d times", s.Name, s.RestartCount)
	}
	switch variant {
	case "ordered":
		// The preStop sleep (10s) held SIGTERM back past the base grace
		// period (8s): only the raised one let the sidecar finish.
		held := proxySigterm.Time.Sub(appSigterm.Time)
		r.check(held >= baseGrace*time.Second, "the sidecar got SIGTERM %s after the app, want >= %ds (its preStop sleep)", secs(held), baseGrace)
		r.observed = fmt.Sprintf("sidecar got SIGTERM %s the app (preStop sleep), exited %s it, %s into the %ds grace (was %ds)",
			relative(held), relative(sidecarAfterApp), secs(inGrace), wantGrace, baseGrace)
	case "native":
		r.check(!proxySigterm.Time.Before(appExit.Time), "the sidecar got SIGTERM %s before the app exited", secs(appExit.Time.Sub(proxySigterm.Time)))
		r.observed = fmt.Sprintf("kubelet sent the sidecar SIGTERM %s the app exited; it exited %s into the %ds grace (was %ds)",
			relative(proxySigterm.Time.Sub(appExit.Time)), secs(inGrace), wantGrace, baseGrace)
	}
}

// waitFor polls cond until it holds, or fails the test with the logs so far.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool, logs ...*follower) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			msg := fmt.Sprintf("no %s after %s", what, timeout)
			for _, f := range logs {
				msg += fmt.Sprintf("\n%s log:\n%s", f.container, f.text())
			}
			t.Fatal(msg)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// startServing creates the pod, follows the logs of its app and proxy
// containers, and waits until the app has had its good answers and the
// sidecar's ready line has arrived. The context ends with the test.
func startServing(t *testing.T, name, manifest string) (context.Context, *follower, *follower) {
	t.Helper()
	createPod(t, name, manifest)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	app := follow(ctx, name, "app", 3*time.Minute)
	proxy := follow(ctx, name, "proxy", 3*time.Minute)
	waitFor(t, 3*time.Minute, fmt.Sprintf("%d ok requests in the app's log", okBeforeDelete), func() bool {
		before, _ := requests(app.events(t), time.Time{})
		ok, _ := tally(before)
		return ok >= okBeforeDelete && first(proxy.events(t), "ready") != nil
	}, app, proxy)
	return ctx, app, proxy
}

// stopped waits, for up to the grace period and two minutes more, until
// every container of the deleted pod has stopped, then waits for the app's
// and the proxy's logs to end, saves them in dir and returns the pod and
// their events; a failed test logs them.
func stopped(t *testing.T, dir, name string, grace time.Duration, app, proxy *follower) (*corev1.Pod, []eventlog.Event, []eventlog.Event) {
	t.Helper()
	pod := waitPod(t, name, grace+2*time.Minute, "terminated", allTerminated)
	app.wait(t, time.Minute)
	proxy.wait(t, time.Minute)
	save(t, dir, "app.log", []byte(app.text()))
	save(t, dir, "proxy.log", []byte(proxy.text()))
	appEvents, proxyEvents := app.events(t), proxy.events(t)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("pod %s: %s\napp log:\n%sproxy log:\n%s", name, podSummary(pod), describeEvents(appEvents, 30), describeEvents(proxyEvents, 30))
		}
	})
	return pod, appEvents, proxyEvents
}
