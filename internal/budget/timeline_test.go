package budget_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
)

// nativePod is a pod with two native sidecars (mesh, then proxy) and one
// application container, with the given lifecycles.
func nativePod(t *testing.T, mesh, proxy, app string) budget.Pod {
	t.Helper()
	spec := fmt.Sprintf(`terminationGracePeriodSeconds: 100
initContainers:
- {name: mesh, restartPolicy: Always, lifecycle: %s}
- {name: proxy, restartPolicy: Always, lifecycle: %s}
containers:
- {name: app, lifecycle: %s}
`, mesh, proxy, app)
	return budget.ReadPod(krmtest.Parse(t, spec), nil)
}

const (
	noHook     = "{}"
	sleep5     = "{preStop: {sleep: {seconds: 5}}}"
	sleep20    = "{preStop: {sleep: {seconds: 20}}}"
	sleep25    = "{preStop: {sleep: {seconds: 25}}}"
	sleep30    = "{preStop: {sleep: {seconds: 30}}}"
	unreadable = "{preStop: {httpGet: {path: /quit, port: 8080}}}"
)

// marks lists a timeline's marks as "t: text".
func marks(tl budget.Timeline) []string {
	var out []string
	for _, m := range tl.Marks {
		out = append(out, fmt.Sprintf("%d: %s", m.At, m.Text))
	}
	return out
}

// count returns how many marks contain every one of the words.
func count(tl budget.Timeline, words ...string) int {
	n := 0
	for _, m := range marks(tl) {
		all := true
		for _, w := range words {
			all = all && strings.Contains(m, w)
		}
		if all {
			n++
		}
	}
	return n
}

// TestNativeExitedOnce: "every container has exited" is said once per
// workload, when the last container exits, whatever the native sidecars'
// preStops; their preStops run from t=0, as kubelet's killContainer runs
// them, and each gets SIGTERM at the later of its preStop's end and its
// turn, the last one first, each after the one behind it.
func TestNativeExitedOnce(t *testing.T) {
	for name, tc := range map[string]struct {
		mesh, proxy string
		want        []string
	}{
		"no preStops": {noHook, noHook, []string{"20: proxy (sidecar): no preStop; SIGTERM, it leaves", "20: mesh (sidecar): no preStop; SIGTERM, it leaves"}},
		"last one waits": {noHook, sleep5, []string{"0: proxy (sidecar): preStop starts with the termination (5s",
			"5: proxy (sidecar): preStop ends; its SIGTERM waits for its turn", "20: proxy (sidecar): its turn; SIGTERM, it leaves", "20: mesh (sidecar): no preStop; SIGTERM, it leaves"}},
		"both wait": {sleep5, sleep5, []string{"0: mesh (sidecar): preStop starts with the termination", "5: mesh (sidecar): preStop ends; its SIGTERM waits",
			"20: proxy (sidecar): its turn; SIGTERM", "20: mesh (sidecar): its turn; SIGTERM, it leaves"}},
		"preStop past the turn": {noHook, sleep25, []string{"0: proxy (sidecar): preStop starts with the termination (25s",
			"25: proxy (sidecar): preStop ends; SIGTERM, it leaves", "25: mesh (sidecar): no preStop; SIGTERM, it leaves"}},
		"the first one's past the last's": {sleep30, sleep25, []string{"25: proxy (sidecar): preStop ends; SIGTERM, it leaves",
			"30: mesh (sidecar): preStop ends; SIGTERM, it leaves"}},
		"the last one's past the first's": {sleep25, sleep30, []string{"30: proxy (sidecar): preStop ends; SIGTERM, it leaves",
			"25: mesh (sidecar): preStop ends; its SIGTERM waits for its turn", "30: mesh (sidecar): its turn; SIGTERM, it leaves"}},
	} {
		t.Run(name, func(t *testing.T) {
			tl := budget.NewTimeline("Pod shop/web", nativePod(t, tc.mesh, tc.proxy, sleep20), nil)
			if n := count(tl, "every container has exited"); n != 1 || count(tl, "20: every container has exited") != 1 {
				t.Errorf("%d marks say every container has exited, want 1 at 20s:\n%s", n, strings.Join(marks(tl), "\n"))
			}
			for _, w := range tc.want {
				if count(tl, w) != 1 {
					t.Errorf("no mark %q:\n%s", w, strings.Join(marks(tl), "\n"))
				}
			}
			for _, b := range tl.Bars {
				if b.Start != 0 {
					t.Errorf("bar %+v does not start with the termination", b)
				}
			}
		})
	}
}

// TestNativeUnplaced: while a container whose preStop cannot be read may
// still run, the native sidecars' preStops run from t=0 but their SIGTERMs
// are not placed, and nothing says every container has exited.
func TestNativeUnplaced(t *testing.T) {
	tl := budget.NewTimeline("Pod shop/web", nativePod(t, sleep5, sleep5, unreadable), nil)
	if count(tl, "every container has exited") != 0 || count(tl, "it leaves") != 0 {
		t.Errorf("native sidecars' SIGTERMs placed after an app whose exit is unknown:\n%s", strings.Join(marks(tl), "\n"))
	}
	if count(tl, "0: kubelet stops the native sidecars, the last one first, once app has exited, which cannot be placed") != 1 ||
		count(tl, "5: mesh (sidecar): preStop ends; SIGTERM once app has exited, which cannot be placed") != 1 {
		t.Errorf("no mark says the native sidecars wait for app:\n%s", strings.Join(marks(tl), "\n"))
	}
	for _, b := range tl.Bars {
		if b.Row != "app" && (b.Start != 0 || b.End != 5) {
			t.Errorf("bar %+v is not the sidecar's preStop from 0 to 5s", b)
		}
	}
	pod := nativePod(t, noHook, noHook, unreadable)
	pod.Containers = append(pod.Containers, pod.Containers[0])
	pod.Containers[1].Name = "worker"
	if tl := budget.NewTimeline("Pod shop/web", pod, nil); count(tl, "once app and worker have exited, which cannot be placed") != 1 || count(tl, "(sidecar)") != 0 {
		t.Errorf("two containers of unknown exit not named:\n%s", strings.Join(marks(tl), "\n"))
	}

	tl = budget.NewTimeline("Pod shop/web", nativePod(t, sleep5, unreadable, sleep20), nil)
	if count(tl, "20: every container has exited") != 1 || count(tl, "0: proxy (sidecar): preStop starts with the termination; its duration cannot be read") != 1 ||
		count(tl, "5: mesh (sidecar): preStop ends; SIGTERM once proxy has exited, which cannot be placed") != 1 || count(tl, "it leaves") != 0 {
		t.Errorf("a native sidecar behind one of unknown duration placed:\n%s", strings.Join(marks(tl), "\n"))
	}
}

// TestNoNative: without native sidecars nothing is said about them.
func TestNoNative(t *testing.T) {
	pod := budget.ReadPod(krmtest.Parse(t, "containers:\n- {name: app, lifecycle: {preStop: {sleep: {seconds: 3}}}}\n"), nil)
	if tl := budget.NewTimeline("Pod shop/web", pod, nil); count(tl, "native") != 0 {
		t.Errorf("native sidecars mentioned:\n%s", strings.Join(marks(tl), "\n"))
	}
}

// graceMarks lists the marks from the grace period's end on, as "t: text".
func graceMarks(tl budget.Timeline) []string {
	var out []string
	for _, m := range tl.Marks {
		if strings.Contains(m.Text, "grace period") {
			out = append(out, fmt.Sprintf("%d: %s", m.At, m.Text))
		}
	}
	return out
}

// TestGraceTail: where a preStop runs to or past the pod's own grace, or a
// native sidecar still runs when it ends, the grace's end is what kubelet
// does there: SIGTERM with its 2 s minimum grace to every container still
// in its preStop and to every native sidecar still running, SIGKILL 2 s
// later; with nothing running past the grace it ends with one SIGKILL.
func TestGraceTail(t *testing.T) {
	tail := []string{
		"30: the grace period ends: SIGKILL to every container that got SIGTERM before it and still runs",
		"30: grace period: every container still in its preStop, and every native sidecar still running, gets SIGTERM with kubelet's 2s minimum grace",
		"32: grace period: SIGKILL to every container still running",
	}
	for name, tc := range map[string]struct {
		spec string
		want []string
		tail int64
	}{
		"preStop past the grace": {`terminationGracePeriodSeconds: 30
containers:
- {name: app, lifecycle: {preStop: {sleep: {seconds: 40}}}}
- {name: proxy, lifecycle: {preStop: {sleep: {seconds: 10}}}}
`, tail, 2},
		"native sidecars running at the grace": {`terminationGracePeriodSeconds: 30
initContainers:
- {name: mesh, restartPolicy: Always}
- {name: proxy, restartPolicy: Always}
containers:
- {name: app, lifecycle: {preStop: {sleep: {seconds: 30}}}}
`, tail, 2},
		"nothing past the grace": {`terminationGracePeriodSeconds: 30
initContainers:
- {name: proxy, restartPolicy: Always, lifecycle: {preStop: {sleep: {seconds: 5}}}}
containers:
- {name: app, lifecycle: {preStop: {sleep: {seconds: 20}}}}
`, []string{"30: the grace period ends: SIGKILL to every container still running"}, 0},
	} {
		t.Run(name, func(t *testing.T) {
			tl := budget.NewTimeline("Pod shop/web", budget.ReadPod(krmtest.Parse(t, tc.spec), nil), nil)
			if got := graceMarks(tl); strings.Join(got, "\n") != strings.Join(tc.want, "\n") || tl.Tail != tc.tail {
				t.Errorf("the grace ends with (tail %ds):\n%s\nwant (tail %ds):\n%s\nall marks:\n%s", tl.Tail, strings.Join(got, "\n"), tc.tail, strings.Join(tc.want, "\n"), strings.Join(marks(tl), "\n"))
			}
			for i := 1; i < len(tl.Marks); i++ {
				if tl.Marks[i].At < tl.Marks[i-1].At {
					t.Errorf("marks out of time order:\n%s", strings.Join(marks(tl), "\n"))
				}
			}
		})
	}
}
