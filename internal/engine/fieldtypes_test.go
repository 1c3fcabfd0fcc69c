package engine

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/item"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
)

// TestWrongFieldTypes: a pod spec field the function reads or writes that
// has the wrong type or is out of range is an error result naming the field
// path and the value, and nothing is changed.
func TestWrongFieldTypes(t *testing.T) {
	const cfg = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec: {sidecars: [{preset: linkerd, waitBeforeExit: 30s}]}\n"
	const sc = "{name: linkerd-proxy}"
	const grace = "spec.template.spec.terminationGracePeriodSeconds: "
	const c1 = "spec.template.spec.containers[1]."
	for _, tc := range []struct {
		name, spec, want string
	}{
		{"grace float exponent", "terminationGracePeriodSeconds: 1e23\ncontainers: [{name: app}, " + sc + "]", grace + `found the float 1e23`},
		{"grace fraction", "terminationGracePeriodSeconds: 30.5\ncontainers: [{name: app}, " + sc + "]", grace + `found the float 30.5`},
		{"grace quoted", "terminationGracePeriodSeconds: \"30\"\ncontainers: [{name: app}, " + sc + "]", grace + `found the string "30"`},
		{"grace mapping", "terminationGracePeriodSeconds: {a: 1}\ncontainers: [{name: app}, " + sc + "]", grace + "found a mapping"},
		{"grace negative", "terminationGracePeriodSeconds: -5\ncontainers: [{name: app}, " + sc + "]", grace + `found the integer -5`},
		{"grace hexadecimal", "terminationGracePeriodSeconds: 0x20\ncontainers: [{name: app}, " + sc + "]", grace + `found the integer 0x20`},
		{"grace leading zero", "terminationGracePeriodSeconds: 030\ncontainers: [{name: app}, " + sc + "]", grace + `found the integer 030`},
		{"grace beyond int64", "terminationGracePeriodSeconds: 99999999999999999999\ncontainers: [{name: app}, " + sc + "]", grace + `found the integer 99999999999999999999, past the int64 maximum 9223372036854775807`},
		{"containers mapping", "containers: {app: {image: a}}", "spec.template.spec.containers: found a mapping"},
		{"initContainers scalar", "initContainers: oops\ncontainers: [{name: app}, " + sc + "]", `spec.template.spec.initContainers: found the string "oops"`},
		{"container scalar", "containers: [app, " + sc + "]", `spec.template.spec.containers[0]: found the string "app"`},
		{"container without name", "containers: [{image: a}, " + sc + "]", "spec.template.spec.containers[0].name: found nothing"},
		{"container name number", "containers: [{name: 5}, " + sc + "]", `spec.template.spec.containers[0].name: found the integer 5`},
		{"container name blank", "containers: [{name: ' '}, " + sc + "]", `spec.template.spec.containers[0].name: found the string " "`},
		{"lifecycle scalar", "containers: [{name: app}, {name: linkerd-proxy, lifecycle: 3}]", c1 + "lifecycle: found the integer 3"},
		{"preStop scalar", "containers: [{name: app}, {name: linkerd-proxy, lifecycle: {preStop: x}}]", c1 + `lifecycle.preStop: found the string "x"`},
		{"postStart list", "containers: [{name: app}, {name: linkerd-proxy, lifecycle: {postStart: [1]}}]", c1 + "lifecycle.postStart: found a list"},
		{"exec command scalar", "containers: [{name: app}, {name: linkerd-proxy, lifecycle: {postStart: {exec: {command: /bin/x}}}}]", c1 + `lifecycle.postStart.exec.command: found the string "/bin/x"`},
		{"exec command number", "containers: [{name: app}, {name: linkerd-proxy, lifecycle: {preStop: {exec: {command: [sleep, 5]}}}}]", c1 + `lifecycle.preStop.exec.command[1]: found the integer 5`},
		{"sleep seconds fraction", "containers: [{name: app}, {name: linkerd-proxy, lifecycle: {preStop: {sleep: {seconds: 5.5}}}}]", c1 + `lifecycle.preStop.sleep.seconds: found the float 5.5`},
		{"sleep seconds quoted", "containers: [{name: app}, {name: linkerd-proxy, lifecycle: {preStop: {sleep: {seconds: '5'}}}}]", c1 + `lifecycle.preStop.sleep.seconds: found the string "5"`},
		{"probe port out of range", "containers: [{name: app}, {name: linkerd-proxy, readinessProbe: {httpGet: {port: 70000}}}]", c1 + `readinessProbe.httpGet.port: found the integer 70000`},
		{"probe port bad name", "containers: [{name: app}, {name: linkerd-proxy, startupProbe: {tcpSocket: {port: Admin_Port}}}]", c1 + `startupProbe.tcpSocket.port: found the string "Admin_Port"`},
		{"grpc port name", "containers: [{name: app}, {name: linkerd-proxy, startupProbe: {grpc: {port: admin}}}]", c1 + `startupProbe.grpc.port: found the string "admin"`},
		{"restartPolicy mapping", "initContainers: [{name: init, restartPolicy: {always: true}}]\ncontainers: [{name: app}, " + sc + "]", "spec.template.spec.initContainers[0].restartPolicy: found a mapping"},
		{"args number", "containers: [{name: app}, {name: linkerd-proxy, args: [--port, 4191]}]", c1 + `args[1]: found the integer 4191`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := "      " + strings.ReplaceAll(tc.spec, "\n", "\n      ")
			in := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ns}\nspec:\n  template:\n    metadata: {labels: {app: d}}\n    spec:\n" + spec + "\n"
			checkFails(t, cfg, in, tc.want)
		})
	}
}

// checkFails runs the function on the items and checks that it fails with
// an error result containing want, and changes nothing.
func checkFails(t *testing.T, cfg, in, want string) {
	t.Helper()
	items, err := kio.FromBytes([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	before, _ := kio.StringAll(items)
	out, results := New(krmtest.Config(t, cfg)).Transform(items)
	var errs []string
	for _, r := range results {
		if r.Severity == "error" {
			errs = append(errs, r.Message)
		}
	}
	if !containsLine(errs, want) {
		t.Errorf("error results %q, want one starting %q", errs, want)
	}
	if after, _ := kio.StringAll(out); after != before {
		t.Errorf("the items changed:\n%s", after)
	}
}

func containsLine(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

// TestAnnotationValues: an annotation of the function with a value it does
// not know, or out of bounds, is an error naming the workload's field, and
// nothing is changed.
func TestAnnotationValues(t *testing.T) {
	const cfg = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec: {kubernetesVersion: \"1.28\", terminationGracePeriod: {margin: 1h}, sidecars: [{preset: linkerd, waitBeforeExit: 30s}]}\n"
	const tmpl = "spec.template.metadata.annotations"
	for _, tc := range []struct {
		name, workloadAnnotations, templateAnnotations, want string
	}{
		{"skip maybe", "", `sidecar-lifecycle.dev/skip: maybe`, tmpl + `[sidecar-lifecycle.dev/skip]: found the string "maybe"; want "true" or "false"`},
		{"skip True", `sidecar-lifecycle.dev/skip: "True"`, "", `metadata.annotations[sidecar-lifecycle.dev/skip]: found the string "True"; want "true" or "false"`},
		{"skip yes", "", `sidecar-lifecycle.dev/skip: "yes"`, tmpl + `[sidecar-lifecycle.dev/skip]: found the string "yes"; want "true" or "false"`},
		{"unknown mode", `sidecar-lifecycle.dev/mode: sidecar`, "", `metadata.annotations[sidecar-lifecycle.dev/mode]: found the string "sidecar"; want one of ordered, native, auto`},
		{"native on an old cluster", "", `sidecar-lifecycle.dev/mode: native`, tmpl + `[sidecar-lifecycle.dev/mode]: found the string "native"; want ordered or auto: native sidecars need kubernetesVersion >= 1.29, and spec.kubernetesVersion is 1.28`},
		{"wait-before-exit not a duration", "", `sidecar-lifecycle.dev/wait-before-exit: forever`, tmpl + `[sidecar-lifecycle.dev/wait-before-exit]: "forever" is not a duration`},
		{"wait-before-exit over the maximum", "", `sidecar-lifecycle.dev/wait-before-exit: 48h`, tmpl + `[sidecar-lifecycle.dev/wait-before-exit]: "48h" is longer than the maximum 24h`},
		{"wait-before-exit plus margin", "", `sidecar-lifecycle.dev/wait-before-exit: "82801"`, tmpl + `[sidecar-lifecycle.dev/wait-before-exit]: "82801" plus spec.terminationGracePeriod.margin 1h is 24h0m1s`},
		{"app-drain-delay over the maximum", `sidecar-lifecycle.dev/app-drain-delay: "9223372036"`, "", `metadata.annotations[sidecar-lifecycle.dev/app-drain-delay]: "9223372036" is longer than the maximum 24h: use a delay of at most 24h`},
		{"unknown key", "", `sidecar-lifecycle.dev/skipp: "true"`, tmpl + `[sidecar-lifecycle.dev/skipp]: found an annotation the function does not know; want one of sidecar-lifecycle.dev/skip, sidecar-lifecycle.dev/mode, sidecar-lifecycle.dev/wait-before-exit, sidecar-lifecycle.dev/app-drain-delay, sidecar-lifecycle.dev/config-hash`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  annotations: {" + tc.workloadAnnotations + "}\nspec:\n  template:\n    metadata:\n      annotations: {" + tc.templateAnnotations + "}\n    spec:\n      containers: [{name: app}, {name: linkerd-proxy}]\n"
			checkFails(t, cfg, in, tc.want)
		})
	}
}

// TestNamespaceSkipValue: a Namespace's skip annotation with a value the
// function does not know is an error on the Namespace.
func TestNamespaceSkipValue(t *testing.T) {
	const cfg = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec: {sidecars: [{preset: linkerd}]}\n"
	in := "apiVersion: v1\nkind: Namespace\nmetadata: {name: legacy, annotations: {sidecar-lifecycle.dev/skip: \"TRUE\"}}\n---\n" +
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: legacy}\nspec: {containers: [{name: app}, {name: linkerd-proxy}]}\n"
	checkFails(t, cfg, in, `metadata.annotations[sidecar-lifecycle.dev/skip]: found the string "TRUE"; want "true" or "false"`)
}

// TestSkipFalse: skip "false" is the same as no annotation, and another
// annotation whose value starts with the prefix is not the function's.
func TestSkipFalse(t *testing.T) {
	const cfg = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec: {sidecars: [{preset: linkerd}]}\n"
	items, err := kio.FromBytes([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p, annotations: {sidecar-lifecycle.dev/skip: \"false\", docs: sidecar-lifecycle.dev/other}}\nspec: {containers: [{name: app}, {name: linkerd-proxy}]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r := New(krmtest.Config(t, cfg)).Start().Edit(items[0]).Result; r.Outcome != item.OutcomeOrdered {
		t.Errorf("outcome %v, errors %q; want ordered", r.Outcome, r.Log.Errors)
	}
}
