//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// jobRequests is the --count of the app in testdata/job.yaml.
	jobRequests = 20
	// stillRunningFor is how long the ordered control is watched after its app exited.
	stillRunningFor = 15 * time.Second
)

// TestJob runs the function's output for a Job whose sidecar is listed
// second. The kubelet runs the Job's pod template as a pod: in native mode the
// pod succeeds (what the Job controller counts as a completion); in ordered
// mode (the control) the sidecar keeps it running after the app exited.
// When the cluster has a Job controller, the Jobs themselves run too.
func TestJob(t *testing.T) {
	t.Parallel()
	jobController := hasJobController(t)
	for i, variant := range []string{"native", "ordered"} {
		port := suite.portBase + 3 + i
		t.Run(variant, func(t *testing.T) {
			t.Parallel()
			jobPodScenario(t, variant, port)
		})
		t.Run("job-object-"+variant, func(t *testing.T) {
			r := summary.add(t, "job-object", variant)
			if !jobController {
				r.observed = "no kube-controller-manager in this cluster: no Job controller"
				t.Skip("no kube-controller-manager lease in kube-system: the cluster has no Job controller")
			}
			t.Parallel()
			jobObjectScenario(t, r, variant, port+2)
		})
	}
}

// renderJob runs the function on testdata/job.yaml in the mode and returns
// its Job.
func renderJob(t *testing.T, dir, name, variant string, port int) (*batchv1.Job, string) {
	vars := podVars(name, port)
	vars["MODE"] = variant
	items, results := runFunction(t, dir, render(t, "job.yaml", vars), render(t, "sidecar-lifecycle.yaml", vars))
	if variant == "native" {
		requireResult(t, results, "info", "moved proxy to initContainers as a native sidecar")
	} else {
		requireResult(t, results, "warning", "Job in ordered mode")
	}
	var job batchv1.Job
	decodeNode(t, onlyItem(t, items), &job)
	return &job, writeNodes(t, dir, "job.yaml", items)
}

func jobPodScenario(t *testing.T, variant string, port int) {
	r := summary.add(t, "job", variant)
	name := fmt.Sprintf("e2e-%s-job-%s", suite.runID, variant)
	dir := filepath.Join(suite.artifacts, "job-"+variant)
	job, _ := renderJob(t, dir, name, variant, port)

	// The pod the Job controller would create from the template.
	pod := corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Labels: job.Spec.Template.Labels, Annotations: job.Spec.Template.Annotations,
			Finalizers: []string{"e2e.sidecar-lifecycle.dev/keep-status"},
		},
		Spec: job.Spec.Template.Spec,
	}
	data, err := json.MarshalIndent(pod, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	createPod(t, name, save(t, dir, "pod.json", data))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	app := follow(ctx, name, "app", 3*time.Minute)
	proxy := follow(ctx, name, "proxy", 3*time.Minute)

	var final *corev1.Pod
	if variant == "native" {
		final = waitPod(t, name, 3*time.Minute, "finished", func(p *corev1.Pod) bool {
			return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
		})
		proxy.wait(t, time.Minute)
	} else {
		final = waitPod(t, name, 3*time.Minute, "finished with its app", func(p *corev1.Pod) bool {
			s := status(p, "app")
			return s != nil && s.State.Terminated != nil
		})
	}
	app.wait(t, time.Minute)
	appEvents := app.events(t)
	save(t, dir, "app.log", []byte(app.text()))
	reqs, _ := requests(appEvents, time.Time{})
	r.ok, r.failed = tally(reqs)
	appExit := first(appEvents, "exit")
	appStatus := status(final, "app")
	r.check(appExit != nil && appExit.Fields["reason"] == "count", "the app did not log its exit after --count")
	r.check(appStatus.State.Terminated.ExitCode == 0, "the app exited %d, want 0", appStatus.State.Terminated.ExitCode)
	r.check(len(reqs) == jobRequests && r.failed == 0, "%d of %d requests failed; first: %s", r.failed, len(reqs), reason(firstFailure(reqs)))

	if variant == "native" {
		save(t, dir, "proxy.log", []byte(proxy.text()))
		proxyEvents := proxy.events(t)
		ready, sigterm := first(proxyEvents, "ready"), first(proxyEvents, "sigterm")
		r.check(final.Status.Phase == corev1.PodSucceeded, "the pod ended %s, want Succeeded: %s", final.Status.Phase, podSummary(final))
		if r.check(ready != nil && sigterm != nil && appExit != nil && len(reqs) > 0, "incomplete logs") {
			r.check(reqs[0].Time.After(ready.Time), "the first request was %s before the sidecar was ready", secs(ready.Time.Sub(reqs[0].Time)))
			r.check(!sigterm.Time.Before(appExit.Time), "the sidecar got SIGTERM before the app exited")
			r.observed = fmt.Sprintf("pod %s; kubelet sent the sidecar SIGTERM %s the app exited", final.Status.Phase, relative(sigterm.Time.Sub(appExit.Time)))
		}
		r.done()
		return
	}

	// Ordered: the app is done, yet the pod keeps running with its sidecar.
	checkStillRunning(ctx, t, r, name, "proxy")
	save(t, dir, "proxy.log", []byte(proxy.text()))
	r.observed = fmt.Sprintf("app exited 0; pod still Running %s later: the sidecar never stops", stillRunningFor)
	r.done()
}

// checkStillRunning checks, for stillRunningFor, that the ordered Job's
// pod keeps running with its sidecar container although its app exited.
func checkStillRunning(ctx context.Context, t *testing.T, r *row, pod, sidecar string) {
	t.Helper()
	deadline := time.Now().Add(stillRunningFor)
	for time.Now().Before(deadline) {
		p, err := getPod(ctx, pod)
		if err != nil {
			t.Fatal(err)
		}
		s := status(p, sidecar)
		if !r.check(p.Status.Phase == corev1.PodRunning && s != nil && s.State.Running != nil,
			"the ordered Job's pod did not keep running: %s", podSummary(p)) {
			return
		}
		time.Sleep(time.Second)
	}
}

// hasJobController reports whether kube-controller-manager runs: its leader
// lease is in kube-system.
func hasJobController(t *testing.T) bool {
	out, err := kubectl(context.Background(), "get", "lease", "kube-controller-manager", "-n", "kube-system", "--ignore-not-found", "-o", "name")
	if err != nil {
		t.Fatal(err)
	}
	return out != ""
}

// jobObjectScenario creates the Job itself: native completes, ordered does not.
func jobObjectScenario(t *testing.T, r *row, variant string, port int) {
	ctx := context.Background()
	name := fmt.Sprintf("e2e-%s-jobobj-%s", suite.runID, variant)
	_, file := renderJob(t, filepath.Join(suite.artifacts, "job-object-"+variant), name, variant, port)
	if _, err := kubectl(ctx, "create", "-n", suite.namespace, "-f", file); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = kubectl(context.Background(), "delete", "job", name, "-n", suite.namespace, "--ignore-not-found", "--wait=false", "--cascade=background", "--grace-period=1")
	})
	if variant == "native" {
		_, err := kubectl(ctx, "wait", "job/"+name, "-n", suite.namespace, "--for=condition=Complete", "--timeout=180s")
		r.check(err == nil, "the native Job did not complete: %v", err)
		r.observed = "Job Complete"
	} else {
		_, err := kubectl(ctx, "wait", "job/"+name, "-n", suite.namespace, "--for=condition=Complete", "--timeout=60s")
		r.check(err != nil, "the ordered Job completed: the control shows nothing")
		r.observed = "Job not Complete after 60s"
	}
	r.done()
}
