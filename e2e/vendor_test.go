//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/e2e/internal/eventlog"
)

// The Cloud SQL Auth Proxy scenarios' numbers: the app's own preStop in
// testdata/csql-deployment.yaml, and how many connections it opens before
// the test deletes the pod.
const (
	csqlAppPreStop  = 6 * time.Second
	csqlOKBefore    = 10
	csqlOperatorCtr = "csql-e2e-db"
	csqlHTTPPortEnv = "9801" // the operator's, fixed in testdata/csql-operator-deployment.yaml
)

// TestVendorProxies runs Google's Cloud SQL and AlloyDB Auth Proxies
// themselves, each built from its module at a pinned version, in the pods
// the function writes for them, each beside the unmodified input as the
// control: the app's TCP connections to the proxy are accepted from its
// first moment and through its drain, and a native Job completes; and
// oauth2-proxy in front of an application, whose requests through it
// during the application's drain are answered. Ports: the suite's base +
// 20 to 51 (each proxy from its port: its lifecycle scenarios the first
// six, the Cloud SQL proxy's env-configured ones the next three, its Jobs
// four more), and 9801. Every proxy runs offline: a watch of its
// processes' sockets sees no remote address off this machine (see
// socketWatch).
func TestVendorProxies(t *testing.T) {
	t.Parallel()
	for _, v := range vendorProxies {
		t.Run(v.program, func(t *testing.T) {
			t.Parallel()
			offline := summary.add(t, v.prefix+"-offline", "all")
			ctx, stop := context.WithCancel(context.Background())
			watch := watchSockets(ctx, v.program)
			t.Cleanup(func() { // after every scenario below
				stop()
				if p := watch.check(); offline.check(p == "", "%s", p) {
					offline.observed = watch.summary()
				}
				offline.done()
			})
			for i, variant := range []string{"unmodified", "ordered", "native"} {
				port := suite.portBase + v.port + 2*i
				t.Run("lifecycle-"+variant, func(t *testing.T) {
					t.Parallel()
					csqlLifecycle(t, v, variant, port)
				})
			}
			if v == cloudSQLProxy {
				// One port 9801 for all three: one after another.
				t.Run("env-configured", func(t *testing.T) {
					t.Parallel()
					for i, variant := range []string{"unmodified", "ordered", "native"} {
						t.Run(variant, func(t *testing.T) { csqlEnvConfigured(t, v, variant, suite.portBase+26+i) })
					}
				})
			}
			for i, variant := range []string{"native", "ordered"} {
				if v.job == "" {
					break
				}
				port := suite.portBase + v.port + 9 + 2*i
				t.Run("job-"+variant, func(t *testing.T) {
					t.Parallel()
					csqlJob(t, v, variant, port)
				})
			}
		})
	}
}

// csqlVars are the template variables of one proxy scenario.
func csqlVars(v *vendorProxy, name, variant, container string, port int) map[string]string {
	vars := podVars(name, port)
	vars["HTTP_PORT"] = strconv.Itoa(port + 1)
	vars["PROXY_IMAGE"] = v.image
	vars["PRESET"] = v.preset
	vars["MODE"] = variant
	vars["CONTAINER"] = container
	vars["EXIT"] = "2s"
	return vars
}

// csqlRender returns the base (unmodified) or the function's output for it
// in the mode, saved under dir, and its pod template.
func csqlRender(t *testing.T, dir, base string, vars map[string]string) (string, corev1.PodTemplateSpec, []result) {
	t.Helper()
	nodes, err := kio.FromBytes(render(t, base, vars))
	if err != nil {
		t.Fatalf("testdata/%s: %v", base, err)
	}
	var results []result
	if vars["MODE"] != "unmodified" {
		nodes, results = runFunction(t, dir, render(t, base, vars), render(t, "vendor-proxy.yaml", vars))
	}
	file := writeNodes(t, dir, base, nodes)
	var obj struct {
		Spec struct {
			Template corev1.PodTemplateSpec `json:"template"`
		} `json:"spec"`
	}
	decodeNode(t, onlyItem(t, nodes), &obj)
	return file, obj.Spec.Template, results
}

// podFromTemplate is the pod a controller would create from the template,
// with the suite's finalizer; it is created, and removed with the test.
func podFromTemplate(t *testing.T, dir, name string, tmpl corev1.PodTemplateSpec) {
	t.Helper()
	pod := corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Labels: tmpl.Labels, Annotations: tmpl.Annotations,
			Finalizers: []string{"e2e.sidecar-lifecycle.dev/keep-status"},
		},
		Spec: tmpl.Spec,
	}
	data, err := json.MarshalIndent(pod, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	createPod(t, name, save(t, dir, "pod.json", data))
}

// csqlPod is a scenario's pod: the template it was made from, the
// function's results, and the app's and the proxy's logs.
type csqlPod struct {
	tmpl       corev1.PodTemplateSpec
	results    []result
	app, proxy *follower
}

// csqlStart renders the base manifest for the variant, checks where the
// proxy container (serving health on httpPort) was placed, creates the pod
// from the template and follows the app's and the proxy's logs until ctx
// ends.
func csqlStart(ctx context.Context, t *testing.T, r *row, v *vendorProxy, dir, name, base, variant, container, httpPort string, vars map[string]string) csqlPod {
	t.Helper()
	_, tmpl, results := csqlRender(t, dir, base, vars)
	checkProxyPlaced(r, v, variant, container, httpPort, tmpl.Spec)
	podFromTemplate(t, dir, name, tmpl)
	return csqlPod{tmpl, results, follow(ctx, name, "app", 3*time.Minute), follow(ctx, name, container, 3*time.Minute)}
}

// checkProxyPlaced checks where the function put the proxy: first with its
// own wait command on its port (ordered), or a native sidecar whose
// startupProbe kubelet reaches on the pod IP (native).
func checkProxyPlaced(r *row, v *vendorProxy, variant, container, httpPort string, spec corev1.PodSpec) {
	switch {
	case v.noWait && variant == "ordered":
		r.check(len(spec.Containers) > 1 && spec.Containers[0].Name == container, "the function's output does not start %s first", container)
	case v.noWait && variant == "native":
		r.check(len(spec.InitContainers) == 1 && spec.InitContainers[0].Name == container, "the function's output has no native %s", container)
	case variant == "ordered":
		want := []string{"/" + v.program, "wait", "--max=30s", "--http-port", httpPort}
		ok := len(spec.Containers) > 1 && spec.Containers[0].Name == container && spec.Containers[0].Lifecycle != nil &&
			spec.Containers[0].Lifecycle.PostStart != nil && spec.Containers[0].Lifecycle.PostStart.Exec != nil &&
			slices.Equal(spec.Containers[0].Lifecycle.PostStart.Exec.Command, want)
		r.check(ok, "the function's output does not start %s first with postStart %q", container, want)
	case variant == "native":
		ok := len(spec.InitContainers) == 1 && spec.InitContainers[0].Name == container
		if ok {
			p := spec.InitContainers[0].StartupProbe
			ok = p != nil && p.HTTPGet != nil && p.HTTPGet.Path == "/startup" && p.HTTPGet.Port.String() == httpPort && p.HTTPGet.Host == ""
		}
		r.check(ok, "the function's output has no native %s with a startupProbe on the pod IP's /startup:%s", container, httpPort)
	}
}

// checkStartupConnections: the control's first connection is refused; with
// the function every one is accepted.
func checkStartupConnections(r *row, variant string, reqs []eventlog.Event) {
	r.ok, r.failed = tally(reqs)
	if !r.check(len(reqs) > 0, "the app logged no connection") {
		return
	}
	firstConn := reqs[0]
	if variant == "unmodified" {
		r.check(firstConn.Fields["result"] == "fail", "the app's first connection was accepted without the function: the control shows nothing")
		r.check(r.ok > 0, "no connection was accepted even after the proxy started")
		r.observed = fmt.Sprintf("first connection refused (%s); %d refused before the proxy listened", reason(&firstConn), r.failed)
		return
	}
	r.check(r.failed == 0, "%d of %d connections refused at start-up; first: %s", r.failed, len(reqs), reason(firstFailure(reqs)))
	r.observed = fmt.Sprintf("first connection %s, all %d accepted", firstConn.Fields["result"], len(reqs))
}

// csqlLifecycle: Google's example Deployment, unmodified (the control) or
// through the function; the app connects from its first moment, then the
// pod is deleted and the app keeps connecting through its 6 s preStop.
func csqlLifecycle(t *testing.T, v *vendorProxy, variant string, port int) {
	var startup *row
	if !v.noWait {
		startup = summary.add(t, v.prefix+"-start-up", variant)
	}
	shutdown := summary.add(t, v.prefix+"-shutdown", variant)
	name := fmt.Sprintf("e2e-%s-%s-%s", suite.runID, v.prefix, variant)
	dir := filepath.Join(suite.artifacts, v.prefix+"-"+variant)
	vars := csqlVars(v, name, variant, v.container, port)
	vars["EXIT"] = "auto"
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	placed := startup
	if placed == nil {
		placed = shutdown
	}
	started := csqlStart(ctx, t, placed, v, dir, name, v.deployment, variant, v.container, vars["HTTP_PORT"], vars)
	app, proxy, tmpl := started.app, started.proxy, started.tmpl
	if variant == "ordered" {
		requireResult(t, started.results, "info", "added preStop sleep 11s to "+v.container)
	}
	waitFor(t, 3*time.Minute, fmt.Sprintf("%d accepted connections in the app's log", csqlOKBefore), func() bool {
		reqs, _ := requests(app.events(t), time.Time{})
		ok, _ := tally(reqs)
		return ok >= csqlOKBefore
	}, app, proxy)

	deleted := time.Now()
	if _, err := kubectl(ctx, "delete", "pod", name, "-n", suite.namespace, "--wait=false"); err != nil {
		t.Fatal(err)
	}
	grace := time.Duration(*tmpl.Spec.TerminationGracePeriodSeconds) * time.Second
	pod := waitPod(t, name, grace+2*time.Minute, "terminated", allTerminated)
	app.wait(t, time.Minute)
	proxy.wait(t, time.Minute)
	save(t, dir, "app.log", []byte(app.text()))
	save(t, dir, "proxy.log", []byte(proxy.text()))
	appEvents := app.events(t)
	before, draining := requests(appEvents, deleted)

	if startup != nil {
		checkStartupConnections(startup, variant, before)
		startup.done()
	}

	r := shutdown
	r.ok, r.failed = tally(draining)
	appSigterm := first(appEvents, "sigterm")
	appStatus, proxyStatus := status(pod, "app"), status(pod, v.container)
	if !r.check(appSigterm != nil && appStatus != nil && proxyStatus != nil && appStatus.State.Terminated != nil && proxyStatus.State.Terminated != nil,
		"incomplete logs or statuses: %s\napp:\n%s", podSummary(pod), describeEvents(appEvents, 40)) {
		return
	}
	held := appSigterm.Time.Sub(deleted)
	r.check(held >= csqlAppPreStop-time.Second, "the app got SIGTERM %s after the deletion, want about %s (its preStop)", secs(held), csqlAppPreStop)
	r.check(len(draining) >= int(csqlAppPreStop/(100*time.Millisecond))/2, "only %d connections after the deletion: the app's preStop did not run", len(draining))
	proxyLeft := proxyStatus.State.Terminated.FinishedAt.Sub(appStatus.State.Terminated.FinishedAt.Time)
	if variant == "unmodified" {
		r.check(r.failed > 0, "no connection was refused while the app drained without the function: the control shows nothing")
		r.observed = fmt.Sprintf("the proxy exited %d at once; %d of %d connections during the app's preStop refused (%s)",
			proxyStatus.State.Terminated.ExitCode, r.failed, len(draining), reason(firstFailure(draining)))
		r.done()
		return
	}
	r.check(r.failed == 0, "%d of %d connections refused after the deletion; first: %s", r.failed, len(draining), reason(firstFailure(draining)))
	r.check(proxyLeft >= 0, "kubelet saw the proxy finish %s before the app", secs(-proxyLeft))
	r.observed = fmt.Sprintf("all %d connections during the app's %s preStop and drain accepted; the proxy finished %s the app (whole seconds)",
		len(draining), csqlAppPreStop, relative(proxyLeft))
	r.done()
}

// csqlEnvConfigured: the proxy as the operator configures it, through
// CSQL_PROXY_* variables with its health endpoints on 9801.
func csqlEnvConfigured(t *testing.T, v *vendorProxy, variant string, port int) {
	r := summary.add(t, "csql-env", variant)
	name := fmt.Sprintf("e2e-%s-csqlenv-%s", suite.runID, variant)
	dir := filepath.Join(suite.artifacts, "csql-env-"+variant)
	vars := csqlVars(v, name, variant, csqlOperatorCtr, port)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := csqlStart(ctx, t, r, v, dir, name, "csql-operator-deployment.yaml", variant, csqlOperatorCtr, csqlHTTPPortEnv, vars)
	app, proxy := started.app, started.proxy
	waitFor(t, 3*time.Minute, fmt.Sprintf("%d accepted connections in the app's log", csqlOKBefore), func() bool {
		reqs, _ := requests(app.events(t), time.Time{})
		ok, _ := tally(reqs)
		return ok >= csqlOKBefore
	}, app, proxy)
	save(t, dir, "app.log", []byte(app.text()))
	save(t, dir, "proxy.log", []byte(proxy.text()))
	reqs, _ := requests(app.events(t), time.Time{})
	checkStartupConnections(r, variant, reqs)
	r.done()
	// Port 9801 is free for the next variant once the pod is gone.
	forceDelete(context.Background(), name)
	if _, err := kubectl(context.Background(), "wait", "--for=delete", "pod/"+name, "-n", suite.namespace, "--timeout=60s"); err != nil {
		t.Fatal(err)
	}
}

// csqlJob: a Job with the proxy after its program; native completes, the
// ordered control keeps running with the proxy after the program exited 0.
func csqlJob(t *testing.T, v *vendorProxy, variant string, port int) {
	r := summary.add(t, v.prefix+"-job", variant)
	name := fmt.Sprintf("e2e-%s-%sjob-%s", suite.runID, v.prefix, variant)
	dir := filepath.Join(suite.artifacts, v.prefix+"-job-"+variant)
	vars := csqlVars(v, name, variant, v.container, port)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	started := csqlStart(ctx, t, r, v, dir, name, v.job, variant, v.container, vars["HTTP_PORT"], vars)
	app, proxy := started.app, started.proxy
	if variant == "ordered" {
		requireResult(t, started.results, "warning", "Job in ordered mode")
	}
	final := waitPod(t, name, 3*time.Minute, "finished with its app", func(p *corev1.Pod) bool {
		s := status(p, "app")
		return s != nil && s.State.Terminated != nil
	})
	app.wait(t, time.Minute)
	reqs, _ := requests(app.events(t), time.Time{})
	save(t, dir, "app.log", []byte(app.text()))
	r.ok, r.failed = tally(reqs)
	r.check(status(final, "app").State.Terminated.ExitCode == 0, "the app exited %d, want 0", status(final, "app").State.Terminated.ExitCode)
	r.check(len(reqs) == jobRequests && r.failed == 0, "%d of %d connections refused; first: %s", r.failed, len(reqs), reason(firstFailure(reqs)))

	if variant == "native" {
		final = waitPod(t, name, 2*time.Minute, "finished", func(p *corev1.Pod) bool {
			return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
		})
		proxy.wait(t, time.Minute)
		save(t, dir, "proxy.log", []byte(proxy.text()))
		r.check(final.Status.Phase == corev1.PodSucceeded, "the pod ended %s, want Succeeded: %s", final.Status.Phase, podSummary(final))
		r.observed = fmt.Sprintf("pod %s: kubelet stopped the proxy after the app exited 0", final.Status.Phase)
		r.done()
		return
	}
	checkStillRunning(ctx, t, r, name, v.container)
	save(t, dir, "proxy.log", []byte(proxy.text()))
	r.observed = fmt.Sprintf("app exited 0; pod still Running %s later: the proxy never stops", stillRunningFor)
	r.done()
}
