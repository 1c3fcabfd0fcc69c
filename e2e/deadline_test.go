//go:build e2e

package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/explain"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
)

// nodeDeadline is the node class's deadline in testdata/deadline.yaml:
// shorter than the app's 12 s preStop.
const nodeDeadline = 8

// TestNodeDeadline: the explained timeline is what kubelet does. Ordered
// and native pods from the function's output are deleted with a grace of
// the node deadline (what a node going away does) and with their own; the
// SIGTERM of each container, and the sidecar's SIGKILL after the minimum
// grace where the deadline cuts it, come within 1 s of where --explain
// placed them, counted from when kubelet starts the termination (the
// SIGTERM of a container without a preStop, which --explain places at 0):
// kubelet starts it a second or so after the API server's deletion.
func TestNodeDeadline(t *testing.T) {
	t.Parallel()
	i := 0
	for _, mode := range []string{"ordered", "native"} {
		for _, grace := range []string{"deadline", "own"} {
			port := suite.portBase + 13 + i
			i++
			t.Run(mode+"-"+grace, func(t *testing.T) {
				t.Parallel()
				deadlineScenario(t, mode, grace, port)
			})
		}
	}
}

// expected are the moments --explain gives, in seconds after the deletion.
type expected struct {
	appSigterm, proxySigterm float64
	// proxyKilled is when the sidecar, still serving, is killed; 0 when
	// it leaves on its own.
	proxyKilled float64
}

func deadlineScenario(t *testing.T, mode, grace string, port int) {
	r := summary.add(t, "node deadline", mode+", "+grace+" grace")
	name := fmt.Sprintf("e2e-%s-deadline-%s-%s", suite.runID, mode, grace)
	dir := filepath.Join(suite.artifacts, "deadline-"+mode+"-"+grace)
	vars := podVars(name, port)
	vars["MODE"], vars["DEADLINE"], vars["WITNESS_PORT"] = mode, fmt.Sprintf("%ds", nodeDeadline), strconv.Itoa(port+47)
	base, cfg := render(t, "deadline-pod.yaml", vars), render(t, "deadline.yaml", vars)
	items, results := runFunction(t, dir, base, cfg)
	requireResult(t, results, "warning", "may land on short-lived nodes", "Its shutdown is cut at 8s")
	var out corev1.Pod
	decodeNode(t, onlyItem(t, items), &out)
	want := explained(t, dir, base, cfg, grace)
	manifest := writeNodes(t, dir, "pod.yaml", items)

	ctx, app, proxy := startServing(t, name, manifest)
	witness := follow(ctx, name, "witness", 3*time.Minute)
	args := []string{"delete", "pod", name, "-n", suite.namespace, "--wait=false"}
	if grace == "deadline" {
		args = append(args, fmt.Sprintf("--grace-period=%d", nodeDeadline))
	}
	deleted := time.Now()
	if _, err := kubectl(ctx, args...); err != nil {
		t.Fatal(err)
	}
	pod, appEvents, proxyEvents := stopped(t, dir, name, time.Duration(*out.Spec.TerminationGracePeriodSeconds)*time.Second, app, proxy)
	witness.wait(t, time.Minute)
	save(t, dir, "witness.log", []byte(witness.text()))
	appSigterm, proxySigterm, start := first(appEvents, "sigterm"), first(proxyEvents, "sigterm"), first(witness.events(t), "sigterm")
	if appSigterm == nil || proxySigterm == nil || start == nil {
		t.Fatalf("incomplete logs:\napp:\n%sproxy:\n%switness:\n%s", describeEvents(appEvents, 40), describeEvents(proxyEvents, 40), witness.text())
	}
	zero := start.Time
	near := func(what string, got time.Time, want float64) {
		at := got.Sub(zero).Seconds()
		r.check(at > want-1 && at < want+1, "%s %.1fs after the termination started, --explain said %.0fs", what, at, want)
	}
	near("the app got SIGTERM", appSigterm.Time, want.appSigterm)
	near("the sidecar got SIGTERM", proxySigterm.Time, want.proxySigterm)
	s := status(pod, "proxy")
	if !r.check(s != nil && s.State.Terminated != nil, "no terminated status for the sidecar: %s", podSummary(pod)) {
		r.done()
		return
	}
	finished := containerFinished(t, name, "proxy", s.State.Terminated.FinishedAt.Time)
	if want.proxyKilled > 0 {
		near("the sidecar was killed", finished, want.proxyKilled)
		r.check(first(proxyEvents, "exit") == nil, "the sidecar exited by itself, while --explain said it is killed at %.0fs", want.proxyKilled)
	} else {
		r.check(first(proxyEvents, "exit") != nil, "the sidecar did not exit by itself: %s", podSummary(pod))
	}
	r.observed = fmt.Sprintf("termination started %s after the deletion; then app SIGTERM %s, sidecar SIGTERM %s, sidecar gone %s (explained: %.0fs, %.0fs, %.0fs)",
		secs(zero.Sub(deleted)), secs(appSigterm.Time.Sub(zero)), secs(proxySigterm.Time.Sub(zero)), secs(finished.Sub(zero)), want.appSigterm, want.proxySigterm, want.proxyKilled)
	r.done()
}

// explained runs --explain on the base pod with the config and reads the
// moments it gives: with the deadline's grace, the node deadline (SIGTERM
// to every container still in its preStop and to the native sidecars, the
// sidecar killed after the tail); with the pod's own, each container's
// SIGTERM.
func explained(t *testing.T, dir string, base, cfg []byte, grace string) expected {
	t.Helper()
	rl, err := krmtest.ResourceList(base, cfg)
	if err != nil {
		t.Fatal(err)
	}
	workloads, err := explain.Explain(rl)
	if err != nil || len(workloads) != 1 {
		t.Fatalf("explain: %d workloads, %v", len(workloads), err)
	}
	tl := workloads[0].Timeline
	var text strings.Builder
	for _, m := range tl.Marks {
		fmt.Fprintf(&text, "%d %s\n", m.At, m.Text)
	}
	save(t, dir, "explain.txt", []byte(text.String()))
	if grace == "deadline" {
		if len(tl.Nodes) != 1 || tl.Nodes[0].Tail == 0 {
			t.Fatalf("explain draws no node deadline with a tail:\n%s", text.String())
		}
		n := tl.Nodes[0]
		return expected{appSigterm: float64(n.At), proxySigterm: float64(n.At), proxyKilled: float64(n.At + n.Tail)}
	}
	return expected{appSigterm: at(t, tl, "app: preStop ends; SIGTERM"),
		proxySigterm: at(t, tl, "proxy (sidecar): preStop ends; SIGTERM", "proxy (sidecar): no preStop; SIGTERM")}
}

// at is the moment of the first mark whose text starts with one of the prefixes.
func at(t *testing.T, tl budget.Timeline, prefixes ...string) float64 {
	t.Helper()
	for _, m := range tl.Marks {
		for _, p := range prefixes {
			if strings.HasPrefix(m.Text, p) {
				return float64(m.At)
			}
		}
	}
	t.Fatalf("no moment %q in the explanation", prefixes)
	return 0
}

// containerFinished is when the container finished, in nanoseconds from
// containerd (cristatus, see the local-kube README) where it is there,
// else the pod status's whole second.
func containerFinished(t *testing.T, pod, container string, fallback time.Time) time.Time {
	t.Helper()
	out, err := runCristatus()
	if err != nil {
		t.Logf("cristatus: %v; the pod status's whole second is used", err)
		return fallback
	}
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, " pod="+suite.namespace+"/"+pod+" ") || !strings.Contains(line, " container="+container+" ") {
			continue
		}
		_, finished, ok := strings.Cut(line, " finished=")
		if !ok || finished == "-" {
			continue
		}
		clock, err := time.Parse("15:04:05.000000000", strings.TrimSpace(finished))
		if err != nil {
			continue
		}
		day := fallback.UTC()
		got := time.Date(day.Year(), day.Month(), day.Day(), clock.Hour(), clock.Minute(), clock.Second(), clock.Nanosecond(), time.UTC)
		if got.Sub(day) > 12*time.Hour {
			got = got.Add(-24 * time.Hour)
		}
		return got
	}
	return fallback
}

// runCristatus runs $LOCAL_KUBE_ROOT/bin/cristatus.
func runCristatus() (string, error) {
	root := os.Getenv("LOCAL_KUBE_ROOT")
	if root == "" {
		return "", errors.New("LOCAL_KUBE_ROOT is not set")
	}
	out, err := exec.Command(filepath.Join(root, "bin", "cristatus")).Output()
	return string(out), err
}
