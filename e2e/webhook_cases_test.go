//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// The webhook's counts of /mutate's answers.
const (
	reviewsUnchanged = `sidecar_lifecycle_webhook_reviews_total{outcome="unchanged",path="/mutate"}`
	reviewsPatched   = `sidecar_lifecycle_webhook_reviews_total{outcome="patched",path="/mutate"}`
)

// testWebhookVault: vault-agent, appended last by its injector, comes out
// first with the policy's wait and preStop, as mutate writes it for the
// injected pod, also when only reinvocation can order it; on the kubelet
// the app starts once vault-agent is ready.
func testWebhookVault(t *testing.T, e *whEnv) {
	pod := e.vaultPod("wh-vault").manifest()
	injected := e.admit(t, roleInject, pod)
	admitted := e.admit(t, roleMain, pod)
	in, out := typed(t, injected), typed(t, admitted)
	if got := names(in.Spec.Containers); strings.Join(got, ",") != "app,vault-agent" {
		t.Fatalf("the stand-in injector wrote containers %v, want [app vault-agent]", got)
	}
	if got := names(out.Spec.Containers); strings.Join(got, ",") != "vault-agent,app" {
		t.Errorf("admitted containers %v, want [vault-agent app]", got)
	}
	if agent := find(out.Spec.Containers, "vault-agent"); agent == nil || agent.Lifecycle == nil ||
		agent.Lifecycle.PostStart == nil || agent.Lifecycle.PostStart.Exec == nil || agent.Lifecycle.PreStop == nil {
		t.Errorf("admitted vault-agent has no postStart wait or no preStop: %+v", agent)
	} else {
		t.Logf("vault-agent postStart %v, preStop %+v; grace %d", agent.Lifecycle.PostStart.Exec.Command, *agent.Lifecycle.PreStop, *out.Spec.TerminationGracePeriodSeconds)
	}
	sameSpec(t, "the admitted pod and mutate's output for the injected pod", admitted, e.mutated(t, roleMain, true, injected))
	// Called before the injector, the webhook has nothing to do; the API
	// server calls it again after the injector, and then it patches.
	u0, p0 := e.main.metric(t, reviewsUnchanged), e.main.metric(t, reviewsPatched)
	sameSpec(t, "the pod admitted with sidecar-lifecycle called before the injector (reinvocation) and after it", e.admit(t, roleReinvoke, pod), admitted)
	if u, p := e.main.metric(t, reviewsUnchanged)-u0, e.main.metric(t, reviewsPatched)-p0; u != 1 || p != 1 {
		t.Errorf("through reinvocation /mutate answered %v times unchanged and %v times patched, want 1 and 1", u, p)
	}

	started := time.Now()
	running, side, app := e.runOnKubelet(t, roleMain, pod, "vault-agent")
	sameSpec(t, "the created pod and the dry run", toMap(running), admitted)
	checkStartedFirst(t, running, "vault-agent", side, app)
	t.Logf("created to 5 requests: %s", time.Since(started).Round(100*time.Millisecond))
	checkOutlives(t, e.ns(roleMain), running.Name, "vault-agent", 5*time.Second)
}

// checkOutlives deletes the running pod and asserts, from the containers'
// logs, that every request the app sent while draining went through the
// sidecar, which got SIGTERM at least hold after the app (its preStop) and
// exited after it.
func checkOutlives(t *testing.T, ns, name, sidecar string, hold time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	appLog, sideLog := followIn(ctx, ns, name, "app", time.Minute), followIn(ctx, ns, name, sidecar, time.Minute)
	waitFor(t, time.Minute, "log streams", func() bool { return appLog.text() != "" && sideLog.text() != "" })
	if _, _, err := whKubectl(nil, "delete", "pod", name, "-n", ns, "--wait=false"); err != nil {
		t.Fatal(err)
	}
	appLog.wait(t, time.Minute)
	sideLog.wait(t, time.Minute)
	app, side := appLog.events(t), sideLog.events(t)
	appTerm, appExit, sideTerm, sideExit := first(app, "sigterm"), first(app, "exit"), first(side, "sigterm"), first(side, "exit")
	if appTerm == nil || appExit == nil || sideTerm == nil || sideExit == nil {
		t.Fatalf("incomplete logs:\napp:\n%s%s:\n%s", describeEvents(app, 20), sidecar, describeEvents(side, 20))
	}
	_, after := requests(app, appTerm.Time)
	ok, failed := tally(after)
	if failed > 0 || ok == 0 {
		t.Errorf("%d of %d requests during the app's drain failed; first: %s", failed, len(after), reason(firstFailure(after)))
	}
	// The app logs its SIGTERM a little after the kubelet starts the
	// sidecar's preStop: half a second of slack.
	if held := sideTerm.Time.Sub(appTerm.Time); held < hold-500*time.Millisecond {
		t.Errorf("%s got SIGTERM %s after the app, want >= %s (its preStop)", sidecar, secs(held), hold)
	}
	if !sideExit.Time.After(appExit.Time) {
		t.Errorf("%s exited %s before the app", sidecar, secs(appExit.Time.Sub(sideExit.Time)))
	}
	t.Logf("shutdown: %d drain requests ok; %s got SIGTERM %s after the app and exited %s after it",
		ok, sidecar, secs(sideTerm.Time.Sub(appTerm.Time)), secs(sideExit.Time.Sub(appExit.Time)))
}

// testWebhookDapr: daprd, appended to initContainers as a native sidecar
// without a startupProbe, gets the policy's startupProbe, as mutate
// writes it; on the kubelet the app starts once daprd is ready.
func testWebhookDapr(t *testing.T, e *whEnv) {
	pod := e.daprPod("wh-dapr", true).manifest()
	injected := e.admit(t, roleInject, pod)
	admitted := e.admit(t, roleMain, pod)
	in, out := typed(t, injected), typed(t, admitted)
	d := find(in.Spec.InitContainers, "daprd")
	if d == nil || d.RestartPolicy == nil || *d.RestartPolicy != corev1.ContainerRestartPolicyAlways || d.StartupProbe != nil {
		t.Fatalf("the stand-in injector did not write daprd as a native sidecar without a startupProbe: %v", names(in.Spec.InitContainers))
	}
	if d := find(out.Spec.InitContainers, "daprd"); d == nil || d.RestartPolicy == nil || d.StartupProbe == nil || d.StartupProbe.HTTPGet == nil {
		t.Errorf("admitted daprd is not a native sidecar with a startupProbe: %+v", d)
	} else {
		t.Logf("daprd startupProbe %s :%s", d.StartupProbe.HTTPGet.Path, d.StartupProbe.HTTPGet.Port.String())
	}
	sameSpec(t, "the admitted pod and mutate's output for the injected pod", admitted, e.mutated(t, roleMain, true, injected))
	sameSpec(t, "the pod admitted with sidecar-lifecycle called before the injector (reinvocation) and after it", e.admit(t, roleReinvoke, pod), admitted)

	running, side, app := e.runOnKubelet(t, roleMain, pod, "daprd")
	checkStartedFirst(t, running, "daprd", side, app)
}

// testWebhookControls: the same pods admitted by the injectors alone, run
// on the kubelet: the app starts before its sidecar is ready and its first
// request fails, which the webhook's pods above do not.
func testWebhookControls(t *testing.T, e *whEnv) {
	for _, c := range []struct {
		pod     map[string]any
		sidecar string
	}{{e.vaultPod("wh-vault").manifest(), "vault-agent"}, {e.daprPod("wh-dapr", true).manifest(), "daprd"}} {
		t.Run("Webhook-control-"+c.sidecar, func(t *testing.T) {
			running, side, app := e.runOnKubelet(t, roleInject, c.pod, c.sidecar)
			ready, start := first(side, "ready"), first(app, "start")
			before, _ := requests(app, time.Time{})
			if ready == nil || start == nil || len(before) == 0 {
				t.Fatalf("incomplete logs: %s", podSummary(running))
			}
			if !start.Time.Before(ready.Time) || before[0].Fields["result"] != "fail" {
				t.Errorf("without the webhook the app started %s after %s was ready and its first request was %s: the control shows nothing",
					secs(start.Time.Sub(ready.Time)), c.sidecar, before[0].Fields["result"])
			}
			t.Logf("control: the app started %s before %s was ready; first request %s (%s)",
				secs(ready.Time.Sub(start.Time)), c.sidecar, before[0].Fields["result"], reason(&before[0]))
			if _, _, err := whKubectl(nil, "delete", "pod", running.Name, "-n", e.ns(roleInject), "--grace-period=1", "--wait=true", "--timeout=60s"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// testWebhookNoPatch: a pod the injectors skip and a pod with one
// container are admitted as they are stored without any webhook, and the
// webhook counts them unchanged, not patched.
func testWebhookNoPatch(t *testing.T, e *whEnv) {
	u0, p0 := e.main.metric(t, reviewsUnchanged), e.main.metric(t, reviewsPatched)
	skipped := whPod{name: "wh-skipped", runnable: true, annotations: map[string]string{
		"vault.hashicorp.com/agent-inject": "false", "dapr.io/enabled": "false"}}
	helper := corev1.Container{Name: "helper", Image: suite.appImage, ImagePullPolicy: corev1.PullNever}
	skipped.more = []corev1.Container{helper}
	for _, p := range []whPod{skipped, {name: "wh-one-container"}} {
		pod := p.manifest()
		admitted := e.admit(t, roleMain, pod)
		stored := e.admit(t, rolePlain, pod)
		sameSpec(t, p.name+": the admitted pod and the pod stored without webhooks", admitted, stored)
		if a, s := typed(t, admitted), typed(t, stored); !equalJSON(a.Spec, s.Spec) {
			t.Errorf("%s: the admitted spec differs from the stored one", p.name)
		}
	}
	if u1, p1 := e.main.metric(t, reviewsUnchanged), e.main.metric(t, reviewsPatched); u1-u0 < 2 || p1 != p0 {
		t.Errorf("/mutate counted %v unchanged and %v patched for the two pods, want >= 2 and 0", u1-u0, p1-p0)
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// testWebhookNamespace: the webhook reads the Namespace's injector switch
// from its informer: annotating the namespace linkerd.io/inject: enabled
// changes what a pod with no switch of its own gets, as mutate with the
// Namespace in its input does, before and after.
func testWebhookNamespace(t *testing.T, e *whEnv) {
	pod := whPod{name: "wh-meshed-by-namespace"}.manifest()
	const await = "config.linkerd.io/proxy-await"
	before := e.admit(t, roleDefaults, pod)
	if _, ok := typed(t, before).Annotations[await]; ok {
		t.Fatalf("%s is set before the namespace asks for Linkerd", await)
	}
	sameSpec(t, "before: the admitted pod and mutate's output with the Namespace", before, e.mutated(t, roleDefaults, false, pod))

	if _, _, err := whKubectl(nil, "annotate", "namespace", e.ns(roleDefaults), "linkerd.io/inject=enabled"); err != nil {
		t.Fatal(err)
	}
	annotated := time.Now()
	want := e.mutated(t, roleDefaults, false, pod)
	if _, ok := typed(t, want).Annotations[await]; !ok {
		t.Fatalf("mutate with the annotated Namespace does not set %s: nothing to prove", await)
	}
	var after map[string]any
	for {
		after = e.admit(t, roleDefaults, pod)
		if _, ok := typed(t, after).Annotations[await]; ok || time.Since(annotated) > 30*time.Second {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Logf("the webhook read the namespace's annotation %s after it was set", time.Since(annotated).Round(100*time.Millisecond))
	sameSpec(t, "after: the admitted pod and mutate's output with the annotated Namespace", after, want)
}

// injectedByRenderTime is what render time predicts the injectors add:
// each of the stand-ins' sidecars that explain lists as injected or a
// finding says is added at admission.
func injectedByRenderTime(explain, stderr string) map[string]bool {
	out := map[string]bool{}
	for _, name := range []string{"vault-agent", "daprd"} {
		listed := regexp.MustCompile(`(?m)^\s*\d+\.\s+` + regexp.QuoteMeta(name) + ` \(injected\)`)
		said := regexp.MustCompile(`(?m)\b` + regexp.QuoteMeta(name) + ` \(.*\(added at admission\)`)
		out[name] = listed.MatchString(explain) || said.MatchString(stderr)
	}
	return out
}

// testWebhookRenderTime: for each stand-in pod, what render time (explain
// and validate over the manifest with its Namespace) predicts the
// injectors add is what the admitted pod holds, with the catalog's
// defaults and with the policy.
func testWebhookRenderTime(t *testing.T, e *whEnv) {
	pods := []whPod{e.vaultPod("wh-rt-vault"), e.daprPod("wh-rt-dapr-native", true), e.daprPod("wh-rt-dapr", false),
		{name: "wh-rt-skipped", runnable: true, annotations: map[string]string{"vault.hashicorp.com/agent-inject": "false"}},
		{name: "wh-rt-plain", runnable: true}}
	for _, path := range []struct {
		name   string
		role   string
		policy bool
	}{{"defaults", roleDefaults, false}, {"policy", roleMain, true}} {
		for _, p := range pods {
			t.Run("Webhook-"+path.name+"-"+strings.TrimPrefix(p.name, "wh-rt-"), func(t *testing.T) {
				pod := e.clean(p.manifest(), path.role)
				explain, _, _ := e.renderTime(t, "explain", path.role, path.policy, pod)
				_, stderr, _ := e.renderTime(t, "validate", path.role, path.policy, pod)
				predicted := injectedByRenderTime(explain, stderr)
				admitted := typed(t, e.admit(t, path.role, p.manifest()))
				all := append(append([]corev1.Container{}, admitted.Spec.InitContainers...), admitted.Spec.Containers...)
				for name, want := range predicted {
					if got := find(all, name) != nil; got != want {
						t.Errorf("render time predicts %s injected: %v; the admitted pod has it: %v\nexplain:\n%s\nvalidate:\n%s", name, want, got, explain, stderr)
					}
				}
			})
		}
	}
}

// findingsOf returns the messages of validate's stderr lines (after the
// resource and field path), which the webhook's findings carry too.
func findingsOf(stderr string) []string {
	var out []string
	line := regexp.MustCompile(`^sidecar-lifecycle: (?:error|warning): [^ ]+: Pod [^ ]+ [^ ]+: (.*)$`)
	for _, l := range strings.Split(stderr, "\n") {
		if m := line.FindStringSubmatch(l); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// testWebhookWarn: /validate with Warn: kubectl apply of a pod whose
// vault-agent the policy would move prints validate's findings as
// warnings, and the pod is created.
func testWebhookWarn(t *testing.T, e *whEnv) {
	injected := e.clean(e.admit(t, roleInject, e.vaultPod("wh-warned").manifest()), roleWarn)
	delete(injected["spec"].(map[string]any), "nodeName") // never runs
	_, stderr, code := e.renderTime(t, "validate", roleWarn, true, injected)
	findings := findingsOf(stderr)
	if code != 1 || len(findings) == 0 {
		t.Fatalf("validate exited %d with no finding for the injected pod: nothing to warn about\n%s", code, stderr)
	}
	data, _ := json.Marshal(injected)
	_, warnings, err := whKubectl(data, "apply", "-n", e.ns(roleWarn), "-f", "-")
	if err != nil {
		t.Fatalf("Warn refused the pod: %v", err)
	}
	for _, f := range findings {
		if !strings.Contains(warnings, f) {
			t.Errorf("kubectl apply did not print the finding %q; it printed:\n%s", f, warnings)
		}
	}
	t.Logf("kubectl apply printed:\n%s", warnings)
}

// testWebhookDeny: /validate with Deny, on the second webhook process
// (the catalog's defaults, its flags from the environment), refuses a pod
// whose Linkerd proxy comes after the app, with validate's findings.
func testWebhookDeny(t *testing.T, e *whEnv) {
	p := whPod{name: "wh-denied", more: []corev1.Container{{Name: "linkerd-proxy", Image: "cr.l5d.io/linkerd/proxy:stable-2.14.10",
		ImagePullPolicy: corev1.PullNever, Ports: []corev1.ContainerPort{{Name: "linkerd-admin", ContainerPort: 4191}}}}}
	pod := e.clean(p.manifest(), roleDeny)
	_, stderr, code := e.renderTime(t, "validate", roleDeny, false, pod)
	findings := findingsOf(stderr)
	if code != 1 || len(findings) == 0 {
		t.Fatalf("validate exited %d with no finding: nothing to deny\n%s", code, stderr)
	}
	data, _ := json.Marshal(pod)
	_, msg, err := whKubectl(data, "apply", "-n", e.ns(roleDeny), "-f", "-")
	if err == nil {
		t.Fatalf("Deny admitted the pod:\n%s", msg)
	}
	if !strings.Contains(msg, "denied the request") {
		t.Errorf("the refusal does not say the webhook denied it: %s", msg)
	}
	for _, f := range findings {
		if !strings.Contains(msg, f) {
			t.Errorf("the refusal does not carry the finding %q:\n%s", f, msg)
		}
	}
	if out, _, err := whKubectl(nil, "get", "pod", "-n", e.ns(roleDeny), p.name, "--ignore-not-found", "-o", "name"); err != nil || out != "" {
		t.Errorf("the denied pod exists: %q %v", out, err)
	}
	t.Logf("refused: %s", strings.TrimSpace(msg))
}

// testWebhookCertRotation: a new certificate from the same CA, written
// over the files, is served without a restart, and the API server keeps
// calling the webhook with it.
func testWebhookCertRotation(t *testing.T, e *whEnv) {
	if serial, err := e.servedSerial(e.main); err != nil || serial != 2 {
		t.Fatalf("the webhook serves serial %d (%v), want 2", serial, err)
	}
	e.writeServingCert(t, 3, e.main.certFile, e.main.keyFile)
	rotated := time.Now()
	for {
		serial, err := e.servedSerial(e.main)
		if err == nil && serial == 3 {
			break
		}
		if time.Since(rotated) > 60*time.Second {
			t.Fatalf("the new certificate is not served 60s after it was written: serial %d, %v", serial, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("the new certificate was served %s after it was written", time.Since(rotated).Round(100*time.Millisecond))
	p0 := e.main.metric(t, reviewsPatched)
	out := typed(t, e.admit(t, roleMain, e.vaultPod("wh-rotated").manifest()))
	if got := names(out.Spec.Containers); strings.Join(got, ",") != "vault-agent,app" {
		t.Errorf("after the rotation the admitted containers are %v, want [vault-agent app]", got)
	}
	if p1 := e.main.metric(t, reviewsPatched); p1 <= p0 {
		t.Errorf("the webhook patched nothing after the rotation")
	}
}

// testWebhookFailOpen: with the webhook process stopped, the API server
// still admits pods (failurePolicy Ignore), as the injector left them, and
// validate over `kubectl get pods -o yaml` reports them, so an audit
// closes the gap.
func testWebhookFailOpen(t *testing.T, e *whEnv) {
	e.main.stop(t)
	stopped := time.Now()
	p := e.vaultPod("wh-unordered")
	pod := p.manifest()
	delete(pod["spec"].(map[string]any), "nodeName") // never runs
	admitted := e.admit(t, roleMain, pod)
	if got := names(typed(t, admitted).Spec.Containers); strings.Join(got, ",") != "app,vault-agent" {
		t.Errorf("with the webhook stopped the admitted containers are %v, want the injector's [app vault-agent]", got)
	}
	t.Logf("admitted %s after the webhook stopped", time.Since(stopped).Round(100*time.Millisecond))
	data, _ := json.Marshal(pod)
	if _, _, err := whKubectl(data, "create", "-n", e.ns(roleMain), "-f", "-"); err != nil {
		t.Fatalf("with the webhook stopped the pod is refused: %v", err)
	}
	list, _, err := whKubectl(nil, "get", "pods", "-n", e.ns(roleMain), "-o", "yaml")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(suite.function, "validate", "--config", e.policy)
	cmd.Stdin = strings.NewReader(list)
	out, err := cmd.CombinedOutput()
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 {
		t.Errorf("validate over kubectl get pods exited %v, want 1:\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m)^sidecar-lifecycle: error: .*Pod ` + regexp.QuoteMeta(e.ns(roleMain)+"/"+p.name) + ` `).Match(out) {
		t.Errorf("validate over kubectl get pods does not report %s:\n%s", p.name, out)
	}
	for _, ok := range []string{"wh-vault", "wh-dapr"} {
		if regexp.MustCompile(`(?m)^sidecar-lifecycle: error: .*Pod ` + regexp.QuoteMeta(e.ns(roleMain)+"/"+ok) + ` `).Match(out) {
			t.Errorf("validate reports %s, which the webhook admitted as mutate writes it:\n%s", ok, out)
		}
	}
}

// testWebhookAdmissionLatency: 500 server-side dry-run creations of the
// Vault pod through the stand-in injector and the webhook; the API
// server's own apiserver_admission_webhook_admission_duration_seconds
// gives each webhook's p99 (the upper bound of its bucket), the stand-in
// injector's being the baseline of the same run.
func testWebhookAdmissionLatency(t *testing.T, e *whEnv) {
	const n = 500
	hooks := []string{"mutate.sidecar-lifecycle.dev", "vault.stand-in-injector.e2e.sidecar-lifecycle.dev"}
	before := admissionHistograms(t, hooks)
	items := make([]any, n)
	for i := range items {
		items[i] = e.vaultPod(fmt.Sprintf("wh-latency-%d", i)).manifest()
	}
	data, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	began := time.Now()
	if _, _, err := whKubectl(data, "create", "--dry-run=server", "-n", e.ns(roleMain), "-o", "name", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	took := time.Since(began)
	after := admissionHistograms(t, hooks)
	var lines []string
	for _, h := range hooks {
		p99, count := after[h].minus(before[h]).quantile(0.99)
		if count < n {
			t.Fatalf("%s: the API server counted %d admissions, want %d", h, count, n)
		}
		lines = append(lines, fmt.Sprintf("%s: %d admissions, p99 <= %gs", h, count, p99))
		if h == hooks[0] && p99 > 1 {
			t.Errorf("%s: p99 %gs", h, p99)
		}
	}
	t.Logf("%d dry-run creations in %s; %s", n, took.Round(time.Millisecond), strings.Join(lines, "; "))
	save(t, e.dir, "admission-latency.txt", []byte(strings.Join(lines, "\n")+"\n"))
}

// histogram is a Prometheus histogram's cumulative bucket counts by upper bound.
type histogram map[float64]float64

func (h histogram) minus(o histogram) histogram {
	d := histogram{}
	for le, c := range h {
		d[le] = c - o[le]
	}
	return d
}

// quantile is the upper bound of the bucket that holds the q quantile,
// and the count of observations.
func (h histogram) quantile(q float64) (float64, int) {
	bounds := make([]float64, 0, len(h))
	for le := range h {
		bounds = append(bounds, le)
	}
	sort.Float64s(bounds)
	total := h[math.Inf(1)]
	for _, le := range bounds {
		if h[le] >= q*total {
			return le, int(total)
		}
	}
	return math.Inf(1), int(total)
}

// admissionHistograms reads the API server's admission duration buckets
// of the named mutating webhooks (CREATE, admit).
func admissionHistograms(t *testing.T, names []string) map[string]histogram {
	t.Helper()
	out, _, err := whKubectl(nil, "get", "--raw", "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^apiserver_admission_webhook_admission_duration_seconds_bucket\{(.*)\} (\S+)$`)
	hs := map[string]histogram{}
	for _, n := range names {
		hs[n] = histogram{}
	}
	for _, line := range strings.Split(out, "\n") {
		m := re.FindStringSubmatch(line)
		if m == nil || !strings.Contains(m[1], `operation="CREATE"`) || !strings.Contains(m[1], `type="admit"`) {
			continue
		}
		for _, n := range names {
			if !strings.Contains(m[1], `name="`+n+`"`) {
				continue
			}
			le := regexp.MustCompile(`le="([^"]+)"`).FindStringSubmatch(m[1])
			bound, err1 := strconv.ParseFloat(le[1], 64)
			count, err2 := strconv.ParseFloat(m[2], 64)
			if err1 == nil && err2 == nil {
				hs[n][bound] += count
			}
		}
	}
	return hs
}

// testWebhookJob: a Job whose template asks for native mode and the Vault
// stand-in's injection. The Job controller creates its pod; admission adds
// vault-agent last to containers and the webhook makes it a native
// sidecar, so when the app has sent its requests the pod succeeds and the
// Job completes. The control, admitted by the injector alone, keeps
// running on its agent after the app exited, and the Job does not finish.
func testWebhookJob(t *testing.T, e *whEnv) {
	for _, c := range []struct {
		role      string
		completes bool
	}{{roleMain, true}, {roleInject, false}} {
		ns, name := e.ns(c.role), "wh-job"
		p := e.vaultPod(name)
		p.annotations["sidecar-lifecycle.dev/mode"] = "native"
		pod := p.manifest()
		spec := pod["spec"].(map[string]any)
		spec["restartPolicy"] = "Never"
		app := spec["containers"].([]any)[0].(map[string]any)
		app["args"] = []any{"--url=" + p.appURL, "--interval=100ms", "--count=20"}
		meta := pod["metadata"].(map[string]any)
		delete(meta, "name")
		job := map[string]any{"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": name},
			"spec": map[string]any{"backoffLimit": 0, "template": map[string]any{"metadata": meta, "spec": spec}}}
		data, _ := json.Marshal(job)
		if _, _, err := whKubectl(data, "create", "-n", ns, "-f", "-"); err != nil {
			t.Fatal(err)
		}
		began := time.Now()
		wait := 90 * time.Second
		if !c.completes {
			wait = 20 * time.Second
		}
		succeeded := false
		for time.Since(began) < wait && !succeeded {
			out, _, _ := whKubectl(nil, "get", "job", name, "-n", ns, "-o", "jsonpath={.status.succeeded}")
			succeeded = strings.TrimSpace(out) == "1"
			time.Sleep(500 * time.Millisecond)
		}
		pods, _, _ := whKubectl(nil, "get", "pods", "-n", ns, "-l", "job-name="+name, "-o",
			`jsonpath={range .items[*]}{.metadata.name} {.status.phase} {range .status.initContainerStatuses[*]}{.name}={.state}{" "}{end}{range .status.containerStatuses[*]}{.name}={.state}{" "}{end}{"\n"}{end}`)
		t.Logf("%s: Job succeeded %v after %s; pods:\n%s", c.role, succeeded, time.Since(began).Round(100*time.Millisecond), pods)
		if succeeded != c.completes {
			events, _, _ := whKubectl(nil, "get", "events", "-n", ns, "-o", `jsonpath={range .items[*]}{.involvedObject.name} {.reason}: {.message}{"\n"}{end}`)
			t.Errorf("%s: the Job completed: %v, want %v; events:\n%s", c.role, succeeded, c.completes, events)
		}
		if !c.completes && !strings.Contains(pods, " Running ") {
			t.Errorf("%s: the control's pod is not running on its sidecar:\n%s", c.role, pods)
		}
		// The next case and the tests after it use the same sidecar port.
		if _, _, err := whKubectl(nil, "delete", "job", name, "-n", ns, "--cascade=foreground", "--grace-period=1", "--timeout=60s"); err != nil {
			t.Fatal(err)
		}
		_, _, _ = whKubectl(nil, "wait", "--for=delete", "pod", "-l", "job-name="+name, "-n", ns, "--timeout=60s")
	}
}
