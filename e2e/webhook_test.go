//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/kustomize/kyaml/kio"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/e2e/internal/eventlog"
)

// whPolicy is the main webhook's policy: vault-agent first with a wait
// for its readiness and a 5s preStop; daprd as the catalog's dapr entry,
// whose startupProbe its injector does not write.
const whPolicy = `apiVersion: fn.sidecar-lifecycle.dev/v1alpha1
kind: SidecarLifecycle
metadata:
  name: webhook-e2e
spec:
  kubernetesVersion: "1.34"
  sidecars:
  - name: vault-agent
    preset: vault-agent
    waitForReady:
      command: ["/stand-in-sidecar", "wait", "--port=${PORT}", "--timeout=2m"]
    waitBeforeExit: 5s
  - name: daprd
    preset: dapr
`

// TestWebhook proves `sidecar-lifecycle webhook` on the real API server
// and kubelet: the API server calls it over TLS (a URL client config and
// the test CA's bundle) after two injectors, and the pods it admits are
// what `sidecar-lifecycle mutate` writes for the injected pods, run in
// that order on the kubelet, and agree with what render time predicts.
// The injectors are stand-ins (e2e/cmd/stand-in-vault-injector and
// stand-in-dapr-injector) that write what vault-k8s's and Dapr's injectors
// write, with the suite's stand-in images: vault-k8s and daprd do not
// build here, and each needs its control plane. Every webhook is
// registered with failurePolicy Ignore and a namespaceSelector that
// matches only this run's wh- namespaces, and removed when the test ends.
func TestWebhook(t *testing.T) {
	started := time.Now()
	e := &whEnv{dir: filepath.Join(suite.artifacts, "webhook")}
	if err := os.MkdirAll(e.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// daprd's public port (3501) serves on every address, as daprd's
	// does: the kubelet probes it on the pod's (the node's) address.
	e.sidecarPort, e.daprPort = suite.portBase+64, 3501
	e.newCA(t)
	e.policy = save(t, e.dir, "policy.yaml", []byte(strings.ReplaceAll(whPolicy, "${PORT}", strconv.Itoa(e.sidecarPort))))

	bin := t.TempDir()
	vaultInjector := buildProgram(t, bin, "stand-in-vault-injector")
	daprInjector := buildProgram(t, bin, "stand-in-dapr-injector")
	e.vault = e.start(t, "stand-in-vault-injector", freePort(t), func(p *whProcess) []string {
		return []string{vaultInjector, "--listen", "127.0.0.1:" + strconv.Itoa(p.port), "--cert-file", p.certFile, "--key-file", p.keyFile,
			"--image", suite.sidecarImage, "--agent-args", fmt.Sprintf(`["--port=%d","--ready-after=3s","--serve-after-term=3s"]`, e.sidecarPort),
			"--init-image", suite.appImage, "--init-args", `["--count=1","--url=tcp://127.0.0.1:1","--request-timeout=100ms"]`}
	})
	e.dapr = e.start(t, "stand-in-dapr-injector", freePort(t), func(p *whProcess) []string {
		return []string{daprInjector, "--listen", "127.0.0.1:" + strconv.Itoa(p.port), "--cert-file", p.certFile, "--key-file", p.keyFile,
			"--image", suite.sidecarImage, "--daprd-args", fmt.Sprintf(`["--host=0.0.0.0","--port=%d","--ready-after=3s"]`, e.daprPort)}
	})
	// The policy with Warn, and the catalog's defaults with Deny, the
	// second's flags as environment variables.
	e.main = e.start(t, "sidecar-lifecycle-webhook", freePort(t), func(p *whProcess) []string {
		return []string{suite.function, "webhook", "--config", e.policy, "--cert-file", p.certFile, "--key-file", p.keyFile,
			"--listen", "127.0.0.1:" + strconv.Itoa(p.port), "--metrics-listen", "127.0.0.1:" + strconv.Itoa(p.metrics), "--validation-actions", "Warn"}
	})
	e.deny = e.start(t, "sidecar-lifecycle-webhook-deny", freePort(t), func(p *whProcess) []string {
		p.env = []string{"SIDECAR_LIFECYCLE_CERT_FILE=" + p.certFile, "SIDECAR_LIFECYCLE_KEY_FILE=" + p.keyFile,
			"SIDECAR_LIFECYCLE_LISTEN=127.0.0.1:" + strconv.Itoa(p.port), "SIDECAR_LIFECYCLE_METRICS_LISTEN=127.0.0.1:" + strconv.Itoa(p.metrics),
			"SIDECAR_LIFECYCLE_VALIDATION_ACTIONS=Deny"}
		return []string{suite.function, "webhook"}
	})
	for _, p := range []*whProcess{e.vault, e.dapr} {
		e.waitServing(t, p, false)
	}
	e.waitServing(t, e.main, true)
	e.waitServing(t, e.deny, true)
	t.Logf("webhook processes serving after %s", time.Since(started).Round(100*time.Millisecond))

	e.createNamespaces(t)
	mutate, validate := "https://127.0.0.1:%d/mutate", "https://127.0.0.1:%d/validate"
	injected := []string{roleMain, roleReinvoke, roleInject, roleDefaults}
	// Configuration names set the order the API server calls them in:
	// 0 (sidecar-lifecycle before the injectors, reinvoke only), 1 (the
	// injectors), 2 (sidecar-lifecycle after them).
	e.registerMutating(t, "0-sidecar-lifecycle-first",
		webhook{name: "first.mutate.sidecar-lifecycle.dev", url: fmt.Sprintf(mutate, e.main.port), roles: []string{roleReinvoke}, reinvoke: true})
	e.registerMutating(t, "1-injectors",
		webhook{name: "vault.stand-in-injector.e2e.sidecar-lifecycle.dev", url: fmt.Sprintf(mutate, e.vault.port), roles: injected},
		webhook{name: "dapr.stand-in-injector.e2e.sidecar-lifecycle.dev", url: fmt.Sprintf(mutate, e.dapr.port), roles: injected})
	e.registerMutating(t, "2-sidecar-lifecycle",
		webhook{name: "mutate.sidecar-lifecycle.dev", url: fmt.Sprintf(mutate, e.main.port), roles: []string{roleMain}, reinvoke: true},
		webhook{name: "defaults.mutate.sidecar-lifecycle.dev", url: fmt.Sprintf(mutate, e.deny.port), roles: []string{roleDefaults}, reinvoke: true})
	e.registerValidating(t, "3-validate",
		webhook{name: "warn.validate.sidecar-lifecycle.dev", url: fmt.Sprintf(validate, e.main.port), roles: []string{roleWarn}},
		webhook{name: "deny.validate.sidecar-lifecycle.dev", url: fmt.Sprintf(validate, e.deny.port), roles: []string{roleDeny}})
	e.waitRegistered(t)
	t.Logf("namespaces and webhooks registered after %s", time.Since(started).Round(100*time.Millisecond))

	for _, c := range []struct {
		name string
		run  func(*testing.T, *whEnv)
	}{
		{"WebhookVaultOrdered", testWebhookVault},
		{"WebhookDaprNative", testWebhookDapr},
		{"WebhookControls", testWebhookControls},
		{"WebhookJob", testWebhookJob},
		{"WebhookNoPatch", testWebhookNoPatch},
		{"WebhookNamespaceFromInformer", testWebhookNamespace},
		{"WebhookAgreesWithRenderTime", testWebhookRenderTime},
		{"WebhookValidateWarn", testWebhookWarn},
		{"WebhookValidateDeny", testWebhookDeny},
		{"WebhookCertificateRotation", testWebhookCertRotation},
		{"WebhookAdmissionLatency", testWebhookAdmissionLatency},
		{"WebhookFailOpen", testWebhookFailOpen}, // stops the main webhook: last
	} {
		t.Run(c.name, func(t *testing.T) {
			began := time.Now()
			c.run(t, e)
			t.Logf("%s took %s", c.name, time.Since(began).Round(100*time.Millisecond))
		})
	}
}

// whPod is a test pod: the stand-in app, with the annotations of its
// injectors' switches; runnable ones use the node's network and name the
// node (the local cluster has no scheduler), the others never start.
type whPod struct {
	name        string
	annotations map[string]string
	appURL      string
	runnable    bool
	more        []corev1.Container
}

func (p whPod) manifest() map[string]any {
	url := p.appURL
	if url == "" {
		url = "http://127.0.0.1:1/none"
	}
	grace := int64(8)
	pod := corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: p.name, Annotations: p.annotations,
			Labels: map[string]string{"app.kubernetes.io/managed-by": managedBy, "app.kubernetes.io/name": p.name}},
		Spec: corev1.PodSpec{
			TerminationGracePeriodSeconds: &grace,
			Containers: append([]corev1.Container{{
				Name: "app", Image: suite.appImage, ImagePullPolicy: corev1.PullNever,
				Args: []string{"--url=" + url, "--drain=1s"},
			}}, p.more...),
		},
	}
	if p.runnable {
		pod.Spec.NodeName, pod.Spec.HostNetwork = suite.node, true
	}
	return toMap(pod)
}

func toMap(v any) map[string]any {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		panic(err)
	}
	return m
}

// vaultPod and daprPod are the stand-in injectors' pods; the app calls
// the sidecar they inject.
func (e *whEnv) vaultPod(name string) whPod {
	return whPod{name: name, runnable: true, appURL: fmt.Sprintf("http://127.0.0.1:%d/proxy", e.sidecarPort),
		annotations: map[string]string{"vault.hashicorp.com/agent-inject": "true", "vault.hashicorp.com/role": "app"}}
}

func (e *whEnv) daprPod(name string, native bool) whPod {
	a := map[string]string{"dapr.io/enabled": "true", "dapr.io/app-id": name}
	if native {
		// The policy's mode is ordered, which leaves a native sidecar
		// where it is; the pod asks for native mode.
		a["dapr.io/enable-native-sidecar"] = "true"
		a["sidecar-lifecycle.dev/mode"] = "native"
	}
	return whPod{name: name, runnable: true, appURL: fmt.Sprintf("http://127.0.0.1:%d/proxy", e.daprPort), annotations: a}
}

// whKubectl runs kubectl with stdin and returns stdout and stderr.
func whKubectl(stdin []byte, args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, suite.kubectl, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		err = fmt.Errorf("kubectl %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), stderr.String(), err
}

// admit has the API server admit the pod into the role's namespace with
// a server-side dry run (every webhook runs, nothing is stored) and
// returns the pod it would store.
func (e *whEnv) admit(t *testing.T, role string, pod map[string]any) map[string]any {
	t.Helper()
	data, _ := json.Marshal(pod)
	out, _, err := whKubectl(data, "create", "--dry-run=server", "-n", e.ns(role), "-o", "json", "-f", "-")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// clean keeps what a manifest of the pod holds: its name, labels,
// annotations and spec, in the role's namespace.
func (e *whEnv) clean(pod map[string]any, role string) map[string]any {
	meta, _ := pod["metadata"].(map[string]any)
	m := map[string]any{"name": meta["name"], "namespace": e.ns(role)}
	for _, k := range []string{"labels", "annotations"} {
		if v, ok := meta[k]; ok {
			m[k] = v
		}
	}
	return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": m, "spec": pod["spec"]}
}

// namespaceYAML is the role's Namespace as the cluster has it now.
func (e *whEnv) namespaceYAML(t *testing.T, role string) []byte {
	t.Helper()
	out, _, err := whKubectl(nil, "get", "namespace", e.ns(role), "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var ns map[string]any
	if err := json.Unmarshal([]byte(out), &ns); err != nil {
		t.Fatal(err)
	}
	meta := ns["metadata"].(map[string]any)
	keep := map[string]any{"name": meta["name"]}
	for _, k := range []string{"labels", "annotations"} {
		if v, ok := meta[k]; ok {
			keep[k] = v
		}
	}
	y, err := sigsyaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": keep})
	if err != nil {
		t.Fatal(err)
	}
	return y
}

// renderTime runs `sidecar-lifecycle VERB [--config policy]` over the
// role's Namespace and the pod, as render time sees them, and returns
// stdout, stderr and the exit code.
func (e *whEnv) renderTime(t *testing.T, verb, role string, withPolicy bool, pod map[string]any, extra ...string) (string, string, int) {
	t.Helper()
	dir := t.TempDir()
	podYAML, err := sigsyaml.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	nsFile := save(t, dir, "namespace.yaml", e.namespaceYAML(t, role))
	podFile := save(t, dir, "pod.yaml", podYAML)
	args := append([]string{verb}, extra...)
	if withPolicy {
		args = append(args, "--config", e.policy)
	}
	args = append(args, nsFile, podFile)
	cmd := exec.Command(suite.function, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// mutated is what `sidecar-lifecycle mutate` writes for the pod in the
// role's namespace, as the API server stores it (a dry run where no
// webhook runs fills the defaults in the same way).
func (e *whEnv) mutated(t *testing.T, role string, withPolicy bool, pod map[string]any) map[string]any {
	t.Helper()
	out, stderr, code := e.renderTime(t, "mutate", role, withPolicy, e.clean(pod, role))
	if code != 0 {
		t.Fatalf("mutate exited %d:\n%s", code, stderr)
	}
	nodes, err := kio.FromBytes([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if n.GetKind() != "Pod" {
			continue
		}
		s, err := n.String()
		if err != nil {
			t.Fatal(err)
		}
		data, err := sigsyaml.YAMLToJSON([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		return e.admit(t, rolePlain, e.clean(m, rolePlain))
	}
	t.Fatalf("no Pod in mutate's output:\n%s", out)
	return nil
}

// compared are the parts of an admitted pod the tests hold equal.
func compared(pod map[string]any) map[string]any {
	spec, _ := pod["spec"].(map[string]any)
	meta, _ := pod["metadata"].(map[string]any)
	return map[string]any{
		"containers": spec["containers"], "initContainers": spec["initContainers"],
		"terminationGracePeriodSeconds": spec["terminationGracePeriodSeconds"],
		"annotations":                   meta["annotations"], "labels": meta["labels"],
	}
}

// sameSpec fails the test when the two pods differ in compared.
func sameSpec(t *testing.T, what string, got, want map[string]any) bool {
	t.Helper()
	g, w := compared(got), compared(want)
	if reflect.DeepEqual(g, w) {
		return true
	}
	gj, _ := json.MarshalIndent(g, "", "  ")
	wj, _ := json.MarshalIndent(w, "", "  ")
	t.Errorf("%s differ:\ngot:\n%s\nwant:\n%s", what, gj, wj)
	return false
}

// typed decodes a pod map.
func typed(t *testing.T, pod map[string]any) *corev1.Pod {
	t.Helper()
	data, _ := json.Marshal(pod)
	var p corev1.Pod
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	return &p
}

func names(cs []corev1.Container) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

func find(cs []corev1.Container, name string) *corev1.Container {
	for i := range cs {
		if cs[i].Name == name {
			return &cs[i]
		}
	}
	return nil
}

// waitRegistered waits until the API server calls the registered webhooks.
func (e *whEnv) waitRegistered(t *testing.T) {
	t.Helper()
	pod := e.vaultPod("wh-registered").manifest()
	deadline := time.Now().Add(60 * time.Second)
	for {
		p := typed(t, e.admit(t, roleMain, pod))
		if len(p.Spec.Containers) > 0 && p.Spec.Containers[0].Name == "vault-agent" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the webhooks are not called 60s after registering: containers %v", names(p.Spec.Containers))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// runOnKubelet creates the pod in the role's namespace, waits until its
// app has sent requests and its sidecar is ready, and returns the sidecar's and the app's events.
func (e *whEnv) runOnKubelet(t *testing.T, role string, pod map[string]any, sidecar string) (*corev1.Pod, []eventlog.Event, []eventlog.Event) {
	t.Helper()
	ns := e.ns(role)
	name := typed(t, pod).Name
	data, _ := json.Marshal(pod)
	if _, _, err := whKubectl(data, "create", "-n", ns, "-f", "-"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _, _ = whKubectl(nil, "delete", "pod", name, "-n", ns, "--grace-period=1", "--wait=false", "--ignore-not-found")
	})
	logs := func(container string) []eventlog.Event {
		out, _, err := whKubectl(nil, "logs", "-n", ns, name, "-c", container)
		if err != nil {
			return nil
		}
		events, _ := eventlog.ParseAll(strings.NewReader(out))
		return events
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		app, side := logs("app"), logs(sidecar)
		if before, _ := requests(app, time.Time{}); len(before) >= 5 && first(side, "ready") != nil {
			out, _, err := whKubectl(nil, "get", "pod", "-n", ns, name, "-o", "json")
			if err != nil {
				t.Fatal(err)
			}
			var p corev1.Pod
			if err := json.Unmarshal([]byte(out), &p); err != nil {
				t.Fatal(err)
			}
			return &p, side, app
		}
		if time.Now().After(deadline) {
			out, _, _ := whKubectl(nil, "get", "pod", "-n", ns, name, "-o", "yaml")
			t.Fatalf("pod %s/%s: no 5 requests from the app or no ready %s in 3 minutes:\n%s", ns, name, sidecar, out)
		}
		time.Sleep(time.Second)
	}
}

// checkStartedFirst asserts, from the containers' own nanosecond logs,
// that the app started only after the sidecar was ready and that its
// first requests through it succeeded; and that the kubelet saw the
// sidecar start no later than the app.
func checkStartedFirst(t *testing.T, pod *corev1.Pod, sidecar string, side, app []eventlog.Event) {
	t.Helper()
	ready, start := first(side, "ready"), first(app, "start")
	if ready == nil || start == nil {
		t.Fatalf("no ready event in %s's log or no start in the app's:\n%s\n%s", sidecar, describeEvents(side, 20), describeEvents(app, 20))
	}
	if start.Time.Before(ready.Time) {
		t.Errorf("the app started %s before %s was ready", secs(ready.Time.Sub(start.Time)), sidecar)
	}
	before, _ := requests(app, time.Time{})
	if ok, failed := tally(before); failed > 0 || ok == 0 {
		t.Errorf("%d of %d requests through %s failed; first: %s", failed, len(before), sidecar, reason(firstFailure(before)))
	}
	s, a := status(pod, sidecar), status(pod, "app")
	if s == nil || a == nil || s.State.Running == nil || a.State.Running == nil {
		t.Fatalf("%s and app are not both running: %s", sidecar, podSummary(pod))
	}
	if a.State.Running.StartedAt.Before(&s.State.Running.StartedAt) {
		t.Errorf("the kubelet started the app at %s, before %s at %s", a.State.Running.StartedAt, sidecar, s.State.Running.StartedAt)
	}
	t.Logf("%s ready at %s; the app started %s later; first request %s", sidecar, ready.Time.Format(time.RFC3339Nano),
		secs(start.Time.Sub(ready.Time)), before[0].Fields["result"])
}
