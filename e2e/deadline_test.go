//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/e2e/internal/eventlog"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/explain"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
)

// nodeDeadline is the node class's deadline in testdata/deadline.yaml:
// shorter than the app's 12 s preStop.
const nodeDeadline = 8

// serveAfterTerm is how long the stand-in sidecar of
// testdata/deadline-pod.yaml serves after its SIGTERM (--serve-after-term):
// --explain takes a container to leave at its SIGTERM, so where the sidecar
// exits by itself the test expects its exit this long after the SIGTERM
// --explain placed.
const serveAfterTerm = 5

// TestNodeDeadline: the explained timeline is what kubelet does. Ordered
// and native pods from the function's output are deleted with a grace of
// the node deadline (what a node going away does) and with their own; the
// SIGTERM of each container, and the sidecar's SIGKILL after the minimum
// grace where the deadline cuts it, come within 1 s of where --explain
// placed them, counted from when kubelet starts the termination (the
// SIGTERM of a container without a preStop, which --explain places at 0):
// kubelet starts it a second or so after the API server's deletion; and no
// request of the app fails. The controls run the base pod unmodified, with
// both graces: its requests fail from the sidecar's exit to the app's
// SIGTERM, each within 1 s of where --explain of that pod placed them.
// Ports: the suite's base + 13 to 18, the witnesses' + 57, 58 and 60 to 63.
func TestNodeDeadline(t *testing.T) {
	t.Parallel()
	i := 0
	for _, mode := range []string{"ordered", "native"} {
		for _, grace := range []string{"deadline", "own"} {
			port := suite.portBase + 13 + i
			i++
			t.Run(mode+"-"+grace, func(t *testing.T) {
				t.Parallel()
				deadlineScenario(t, mode, grace, port, port+47)
			})
		}
	}
	for j, grace := range []string{"deadline", "own"} {
		port := suite.portBase + 17 + j
		t.Run(control+"-"+grace, func(t *testing.T) {
			t.Parallel()
			deadlineScenario(t, control, grace, port, suite.portBase+57+j)
		})
	}
}

// control is the mode of the scenario that runs the base pod unmodified.
const control = "control"

// expected are the moments --explain gives, in seconds after the
// termination starts.
type expected struct {
	appSigterm, proxySigterm float64
	// proxyKilled is when the sidecar, still serving, is killed; 0 when
	// it leaves on its own.
	proxyKilled float64
	// proxyExit is when the sidecar exits by itself, serveAfterTerm after
	// its SIGTERM; 0 when it is killed.
	proxyExit float64
}

func deadlineScenario(t *testing.T, mode, grace string, port, witnessPort int) {
	r := summary.add(t, "node deadline", mode+", "+grace+" grace")
	name := fmt.Sprintf("e2e-%s-deadline-%s-%s", suite.runID, mode, grace)
	dir := filepath.Join(suite.artifacts, "deadline-"+mode+"-"+grace)
	vars := podVars(name, port)
	vars["MODE"], vars["DEADLINE"], vars["WITNESS_PORT"] = mode, fmt.Sprintf("%ds", nodeDeadline), strconv.Itoa(witnessPort)
	config := "deadline.yaml"
	if mode == control {
		config = "deadline-control.yaml"
	}
	base, cfg := render(t, "deadline-pod.yaml", vars), render(t, config, vars)
	items, results := runFunction(t, dir, base, cfg)
	requireResult(t, results, "warning", "may land on short-lived nodes", "Its shutdown is cut at 8s")
	var out corev1.Pod
	decodeNode(t, onlyItem(t, items), &out)
	if mode == control {
		nodes, err := kio.FromBytes(base)
		if err != nil {
			t.Fatal(err)
		}
		var in corev1.Pod
		decodeNode(t, onlyItem(t, nodes), &in)
		if !reflect.DeepEqual(in, out) {
			t.Fatalf("the function changed the control's pod:\n%s", describe(onlyItem(t, items)))
		}
	}
	want := explained(t, dir, base, cfg, grace, mode == control)
	manifest := writeNodes(t, dir, "pod.yaml", items)

	ctx, app, proxy := startServing(t, name, manifest)
	witness := follow(ctx, name, "witness", 3*time.Minute)
	var finish *finishWatch // the sidecar's, which the control does not time
	if mode != control {
		finish = watchFinish(name, "proxy")
		t.Cleanup(finish.close)
	}
	var extra []string
	if grace == "deadline" {
		extra = append(extra, fmt.Sprintf("--grace-period=%d", nodeDeadline))
	}
	sd := deleteObserved(t, r, ctx, dir, name, time.Duration(*out.Spec.TerminationGracePeriodSeconds)*time.Second, app, proxy, witness, extra...)
	pod, appEvents, proxyEvents, near, zero, deleted := sd.pod, sd.app, sd.proxy, sd.near, sd.zero, sd.deleted
	appSigterm, proxySigterm := sd.appSigterm, sd.proxySigterm
	near("the app got SIGTERM", appSigterm.Time, want.appSigterm)
	near("the sidecar got SIGTERM", proxySigterm.Time, want.proxySigterm)

	// The app's requests from the deletion on: it sends until its SIGTERM,
	// so its last request comes then.
	_, draining := requests(appEvents, deleted)
	r.ok, r.failed = tally(draining)
	if !r.check(len(draining) > 0, "no request after the deletion") {
		r.done()
		return
	}
	last := draining[len(draining)-1]
	near("the app's last request", last.Time, want.appSigterm)
	if mode == control {
		deadlineControl(r, want, zero, deleted, near, draining, proxyEvents, appSigterm.Time, proxySigterm.Time)
		return
	}
	r.check(r.failed == 0, "%d of %d requests failed after the deletion; first: %s", r.failed, len(draining), reason(firstFailure(draining)))

	s := status(pod, "proxy")
	if !r.check(s != nil && s.State.Terminated != nil, "no terminated status for the sidecar: %s", podSummary(pod)) {
		r.done()
		return
	}
	// The sidecar is gone when containerd says it finished where it is
	// killed, when it logged its exit where it exits by itself.
	gone, wantGone := finish.finishedAt(t, s.State.Terminated.FinishedAt.Time), want.proxyKilled
	if want.proxyKilled > 0 {
		near("the sidecar was killed", gone, want.proxyKilled)
		r.check(first(proxyEvents, "exit") == nil, "the sidecar exited by itself, while --explain said it is killed at %.0fs", want.proxyKilled)
	} else if exit := first(proxyEvents, "exit"); r.check(exit != nil, "the sidecar did not exit by itself: %s", podSummary(pod)) {
		near("the sidecar exited", exit.Time, want.proxyExit)
		gone, wantGone = exit.Time, want.proxyExit
	}
	r.observed = fmt.Sprintf("termination started %s after the deletion; then app SIGTERM %s, sidecar SIGTERM %s, sidecar gone %s (explained: %.0fs, %.0fs, %.0fs); last request %s, none failed",
		secs(zero.Sub(deleted)), secs(appSigterm.Time.Sub(zero)), secs(proxySigterm.Time.Sub(zero)), secs(gone.Sub(zero)), want.appSigterm, want.proxySigterm, wantGone, secs(last.Time.Sub(zero)))
	r.done()
}

// deadlineControl checks the control's loss against its explanation: the
// sidecar, a plain container, exits serveAfterTerm after its SIGTERM; from
// then on the app's requests fail, until its own SIGTERM ends them.
func deadlineControl(r *row, want expected, zero, deleted time.Time, near func(string, time.Time, float64), draining, proxyEvents []eventlog.Event, appSigterm, proxySigterm time.Time) {
	defer r.done()
	exit := first(proxyEvents, "exit")
	if !r.check(exit != nil, "the sidecar did not exit by itself") {
		return
	}
	near("the sidecar exited", exit.Time, want.proxyExit)
	failed := firstFailure(draining)
	if !r.check(r.failed > 0 && failed != nil, "no request failed after the deletion: the control shows nothing") {
		return
	}
	near("the first request failed", failed.Time, want.proxyExit)
	last := draining[len(draining)-1]
	r.check(last.Fields["result"] != "ok", "the app's last request succeeded: the failures ended before its SIGTERM")
	r.observed = fmt.Sprintf("termination started %s after the deletion; sidecar SIGTERM %s, exit %s; requests failed from %s (%s) to %s; app SIGTERM %s (explained: %.0fs, %.0fs, %.0fs)",
		secs(zero.Sub(deleted)), secs(proxySigterm.Sub(zero)), secs(exit.Time.Sub(zero)), secs(failed.Time.Sub(zero)), reason(failed), secs(last.Time.Sub(zero)),
		secs(appSigterm.Sub(zero)), want.proxySigterm, want.proxyExit, want.appSigterm)
}

// explained runs --explain on the base pod with the config and reads the
// moments it gives: with the deadline's grace, the node deadline (SIGTERM
// to every container still in its preStop and to the native sidecars, the
// sidecar killed after the tail); with the pod's own, each container's
// SIGTERM. In the control the sidecar is a plain container without a
// preStop: its SIGTERM is at 0 whatever the grace, and it exits
// serveAfterTerm later, before the node deadline.
func explained(t *testing.T, dir string, base, cfg []byte, grace string, isControl bool) expected {
	t.Helper()
	tl, text := explainOne(t, dir, base, cfg)
	if grace == "deadline" && (len(tl.Nodes) != 1 || tl.Nodes[0].Tail == 0) {
		t.Fatalf("explain draws no node deadline with a tail:\n%s", text)
	}
	if isControl {
		e := expected{appSigterm: at(t, tl, "app: preStop ends; SIGTERM"), proxySigterm: at(t, tl, "proxy: no preStop; SIGTERM")}
		if grace == "deadline" {
			e.appSigterm = float64(tl.Nodes[0].At)
		}
		e.proxyExit = e.proxySigterm + serveAfterTerm
		if e.proxyExit >= e.appSigterm {
			t.Fatalf("explain has the control's sidecar leave at %.0fs, not before the app's SIGTERM at %.0fs: the control would show nothing:\n%s", e.proxyExit, e.appSigterm, text)
		}
		return e
	}
	if grace == "deadline" {
		n := tl.Nodes[0]
		return expected{appSigterm: float64(n.At), proxySigterm: float64(n.At), proxyKilled: float64(n.At + n.Tail)}
	}
	e := expected{appSigterm: at(t, tl, "app: preStop ends; SIGTERM"),
		proxySigterm: at(t, tl, "proxy (sidecar): preStop ends; SIGTERM", "proxy (sidecar): no preStop; SIGTERM")}
	e.proxyExit = e.proxySigterm + serveAfterTerm
	return e
}

// shutdown is a deleted pod's shutdown as its containers logged it: the
// app's and the sidecar's events and first SIGTERMs, zero (the witness's
// SIGTERM: when kubelet started the termination), and near, which checks
// that a moment came within 1 s of what --explain said.
type shutdown struct {
	pod                      *corev1.Pod
	deleted, zero            time.Time
	app, proxy               []eventlog.Event
	appSigterm, proxySigterm *eventlog.Event
	near                     func(what string, got time.Time, want float64)
}

// deleteObserved deletes the serving pod (kubectl delete with extra
// arguments), waits for it to stop within grace, and reads what the app,
// the sidecar and the witness logged; near records its checks in r.
func deleteObserved(t *testing.T, r *row, ctx context.Context, dir, name string, grace time.Duration, app, proxy, witness *follower, extra ...string) shutdown {
	t.Helper()
	sd := shutdown{deleted: time.Now()}
	if _, err := kubectl(ctx, append([]string{"delete", "pod", name, "-n", suite.namespace, "--wait=false"}, extra...)...); err != nil {
		t.Fatal(err)
	}
	sd.pod, sd.app, sd.proxy = stopped(t, dir, name, grace, app, proxy)
	witness.wait(t, time.Minute)
	save(t, dir, "witness.log", []byte(witness.text()))
	var start *eventlog.Event
	sd.appSigterm, sd.proxySigterm, start = first(sd.app, "sigterm"), first(sd.proxy, "sigterm"), first(witness.events(t), "sigterm")
	if sd.appSigterm == nil || sd.proxySigterm == nil || start == nil {
		t.Fatalf("incomplete logs:\napp:\n%sproxy:\n%switness:\n%s", describeEvents(sd.app, 40), describeEvents(sd.proxy, 40), witness.text())
	}
	sd.zero = start.Time
	sd.near = func(what string, got time.Time, want float64) {
		at := got.Sub(sd.zero).Seconds()
		r.check(at > want-1 && at < want+1, "%s %.1fs after the termination started, --explain said %.0fs", what, at, want)
	}
	return sd
}

// explainOne runs --explain on the base pod with the config, saves its
// marks in dir as explain.txt and returns its timeline and those marks.
func explainOne(t *testing.T, dir string, base, cfg []byte) (budget.Timeline, string) {
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
	return tl, text.String()
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

// finishWatch polls cristatus (see the local-kube README) from the
// deletion on and keeps a container's finish time, in nanoseconds from
// containerd: kubelet removes a deleted pod's exited containers soon after
// they stop, and their times with them, so one look after the pod has
// stopped may find nothing.
type finishWatch struct {
	pod, container string
	once           sync.Once
	stop, done     chan struct{}
	mu             sync.Mutex
	finished       time.Time
	err            error
}

// watchFinish starts polling, every 500 ms, until finishedAt or close.
func watchFinish(pod, container string) *finishWatch {
	w := &finishWatch{pod: pod, container: container, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			w.sample()
			select {
			case <-w.stop:
				return
			case <-time.After(500 * time.Millisecond):
			}
		}
	}()
	return w
}

// sample reads cristatus once.
func (w *finishWatch) sample() {
	out, err := runCristatus()
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.err = err
		return
	}
	if at, ok := finishedIn(out, w.pod, w.container, time.Now()); ok {
		w.finished = at
	}
}

// close stops the polling and waits for it to end.
func (w *finishWatch) close() {
	w.once.Do(func() { close(w.stop) })
	<-w.done
}

// finishedAt stops the polling and returns the container's finish time,
// else fallback, the pod status's whole second.
func (w *finishWatch) finishedAt(t *testing.T, fallback time.Time) time.Time {
	t.Helper()
	w.close()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished.IsZero() {
		t.Logf("cristatus did not list %s of %s finished (last error: %v): the pod status's whole second is used", w.container, w.pod, w.err)
		return fallback
	}
	return w.finished
}

// finishedIn reads from cristatus's output when the container of the pod
// finished; its times are of the day, taken to be at most 12 h after now.
func finishedIn(out, pod, container string, now time.Time) (time.Time, bool) {
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
		day := now.UTC()
		got := time.Date(day.Year(), day.Month(), day.Day(), clock.Hour(), clock.Minute(), clock.Second(), clock.Nanosecond(), time.UTC)
		if got.Sub(day) > 12*time.Hour {
			got = got.Add(-24 * time.Hour)
		}
		return got, true
	}
	return time.Time{}, false
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
