//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
)

// appPreStopSeconds is the app's preStop sleep in
// testdata/native-prestop-pod.yaml.
const appPreStopSeconds = 12

// TestNativePreStop: a native sidecar's preStop runs from the start of the
// pod's termination, alongside the app's 12 s one, and its SIGTERM comes at
// the later of its preStop's end and its turn (once the app has exited),
// as --explain lays it out: a 5 s preStop leaves it to its turn, a 15 s
// one holds it 3 s past the app. The pod of
// testdata/native-prestop-pod.yaml, which the function leaves as it is, is
// deleted with its own grace; kubelet's Killing event for the sidecar
// (recorded as killContainer starts, just before the preStop runs) and its
// SIGTERM come within 1 s of where --explain placed its preStop's start
// and its SIGTERM, counted from the witness's SIGTERM; the app's SIGTERM
// too; and no request of the app fails. Ports: the suite's base + 70 to
// 73, the sidecars' and the witnesses' in turn.
func TestNativePreStop(t *testing.T) {
	t.Parallel()
	for i, preStop := range []int{5, 15} {
		port := suite.portBase + 70 + 2*i
		name := "native-prestop"
		if preStop > appPreStopSeconds {
			name += "-long"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			nativePreStopScenario(t, name, preStop, port, port+1)
		})
	}
}

func nativePreStopScenario(t *testing.T, variant string, preStop, port, witnessPort int) {
	r := summary.add(t, "native sidecar preStop", fmt.Sprintf("%ds, own grace", preStop))
	name := fmt.Sprintf("e2e-%s-%s", suite.runID, variant)
	dir := filepath.Join(suite.artifacts, variant)
	vars := podVars(name, port)
	vars["WITNESS_PORT"], vars["SIDECAR_PRESTOP"] = strconv.Itoa(witnessPort), strconv.Itoa(preStop)
	base, cfg := render(t, "native-prestop-pod.yaml", vars), render(t, "native-prestop.yaml", vars)
	items, _ := runFunction(t, dir, base, cfg)
	nodes, err := kio.FromBytes(base)
	if err != nil {
		t.Fatal(err)
	}
	var in, out corev1.Pod
	decodeNode(t, onlyItem(t, nodes), &in)
	decodeNode(t, onlyItem(t, items), &out)
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("the function changed the pod:\n%s", describe(onlyItem(t, items)))
	}
	want := explainedNativePreStop(t, dir, base, cfg)
	manifest := writeNodes(t, dir, "pod.yaml", items)

	ctx, app, proxy := startServing(t, name, manifest)
	witness := follow(ctx, name, "witness", 3*time.Minute)
	sd := deleteObserved(t, r, ctx, dir, name, time.Duration(*out.Spec.TerminationGracePeriodSeconds)*time.Second, app, proxy, witness)
	appEvents, near, zero, deleted := sd.app, sd.near, sd.zero, sd.deleted
	appSigterm, proxySigterm := sd.appSigterm, sd.proxySigterm
	// kubelet's event has whole seconds: the moment is taken as the middle
	// of its second.
	killing := killingEvent(t, dir, name, "proxy")
	if r.check(!killing.IsZero(), "no Killing event for the sidecar") {
		near("kubelet started stopping the sidecar (its preStop runs next)", killing.Add(500*time.Millisecond), want.preStopStart)
	}
	near("the app got SIGTERM", appSigterm.Time, want.appSigterm)
	near("the sidecar got SIGTERM", proxySigterm.Time, want.proxySigterm)
	// The sleep ends before the SIGTERM: where the SIGTERM comes before
	// the app's preStop ends plus the sleep, the sleep began before the app
	// exited.
	ranFrom := proxySigterm.Time.Add(-time.Duration(preStop) * time.Second)
	r.check(ranFrom.Before(appSigterm.Time), "the sidecar's %ds preStop began at %.1fs at the latest, not before the app exited (%.1fs)",
		preStop, ranFrom.Sub(zero).Seconds(), appSigterm.Time.Sub(zero).Seconds())

	_, draining := requests(appEvents, deleted)
	r.ok, r.failed = tally(draining)
	if r.check(len(draining) > 0, "no request after the deletion") {
		r.check(r.failed == 0, "%d of %d requests failed after the deletion; first: %s", r.failed, len(draining), reason(firstFailure(draining)))
	}
	r.observed = fmt.Sprintf("termination started %s after the deletion; then the sidecar's Killing event in the second starting %s, app SIGTERM %s, sidecar SIGTERM %s (explained: preStop from %.0fs, app %.0fs, sidecar %.0fs)",
		secs(zero.Sub(deleted)), secs(killing.Sub(zero)), secs(appSigterm.Time.Sub(zero)), secs(proxySigterm.Time.Sub(zero)), want.preStopStart, want.appSigterm, want.proxySigterm)
	t.Log(r.observed)
	r.done()
}

// nativePreStopWant are the moments --explain gives the scenario, in
// seconds after the termination starts.
type nativePreStopWant struct {
	preStopStart, appSigterm, proxySigterm float64
}

// explainedNativePreStop runs --explain on the pod and reads the start of
// the sidecar's preStop bar, the app's SIGTERM and the sidecar's.
func explainedNativePreStop(t *testing.T, dir string, base, cfg []byte) nativePreStopWant {
	t.Helper()
	tl, text := explainOne(t, dir, base, cfg)
	w := nativePreStopWant{preStopStart: -1, appSigterm: at(t, tl, "app: preStop ends; SIGTERM"), proxySigterm: leaves(t, tl, "proxy (sidecar): ")}
	for _, b := range tl.Bars {
		if b.Row == "proxy" && b.Label == "preStop" && !b.Unknown {
			w.preStopStart = float64(b.Start)
		}
	}
	if w.preStopStart < 0 {
		t.Fatalf("explain draws no preStop bar for the sidecar:\n%s", text)
	}
	return w
}

// leaves is the moment of the mark, of the container the prefix names,
// that gives it SIGTERM and says it leaves.
func leaves(t *testing.T, tl budget.Timeline, prefix string) float64 {
	t.Helper()
	for _, m := range tl.Marks {
		if strings.HasPrefix(m.Text, prefix) && strings.Contains(m.Text, "SIGTERM, it leaves") {
			return float64(m.At)
		}
	}
	t.Fatalf("no moment %q ... SIGTERM, it leaves in the explanation", prefix)
	return 0
}

// killingEvent is when kubelet recorded its Killing event for the pod's
// container (kubelet's killContainer records it before it runs the
// preStop), to the whole second; zero when there is none.
func killingEvent(t *testing.T, dir, pod, container string) time.Time {
	t.Helper()
	var list corev1.EventList
	for try := 0; try < 10; try++ {
		out, err := kubectl(t.Context(), "get", "events", "-n", suite.namespace, "--field-selector", "involvedObject.name="+pod+",reason=Killing", "-o", "json")
		if err != nil {
			t.Fatal(err)
		}
		save(t, dir, "events.json", []byte(out))
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatal(err)
		}
		for _, e := range list.Items {
			if strings.Contains(e.InvolvedObject.FieldPath, "{"+container+"}") {
				if !e.EventTime.IsZero() {
					return e.EventTime.Time
				}
				return e.FirstTimestamp.Time
			}
		}
		time.Sleep(time.Second)
	}
	return time.Time{}
}
