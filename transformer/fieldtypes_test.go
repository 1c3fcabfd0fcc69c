package transformer_test

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer"
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
		{"grace float exponent", "terminationGracePeriodSeconds: 1e23\ncontainers: [{name: app}, " + sc + "]", grace + `found the number "1e23"`},
		{"grace fraction", "terminationGracePeriodSeconds: 30.5\ncontainers: [{name: app}, " + sc + "]", grace + `found the number "30.5"`},
		{"grace quoted", "terminationGracePeriodSeconds: \"30\"\ncontainers: [{name: app}, " + sc + "]", grace + `found the string "30"`},
		{"grace mapping", "terminationGracePeriodSeconds: {a: 1}\ncontainers: [{name: app}, " + sc + "]", grace + "found a mapping"},
		{"grace negative", "terminationGracePeriodSeconds: -5\ncontainers: [{name: app}, " + sc + "]", grace + `found the number "-5"`},
		{"grace hexadecimal", "terminationGracePeriodSeconds: 0x20\ncontainers: [{name: app}, " + sc + "]", grace + `found the number "0x20"`},
		{"grace leading zero", "terminationGracePeriodSeconds: 030\ncontainers: [{name: app}, " + sc + "]", grace + `found the number "030"`},
		{"grace beyond int64", "terminationGracePeriodSeconds: 99999999999999999999\ncontainers: [{name: app}, " + sc + "]", grace + `found the number "99999999999999999999"`},
		{"containers mapping", "containers: {app: {image: a}}", "spec.template.spec.containers: found a mapping"},
		{"initContainers scalar", "initContainers: oops\ncontainers: [{name: app}, " + sc + "]", `spec.template.spec.initContainers: found "oops"`},
		{"container scalar", "containers: [app, " + sc + "]", `spec.template.spec.containers[0]: found "app"`},
		{"container without name", "containers: [{image: a}, " + sc + "]", "spec.template.spec.containers[0].name: found nothing"},
		{"container name number", "containers: [{name: 5}, " + sc + "]", `spec.template.spec.containers[0].name: found the number "5"`},
		{"container name blank", "containers: [{name: ' '}, " + sc + "]", `spec.template.spec.containers[0].name: found " "`},
		{"lifecycle scalar", "containers: [{name: app}, {name: linkerd-proxy, lifecycle: 3}]", c1 + "lifecycle: found the number \"3\""},
		{"preStop scalar", "containers: [{name: app}, {name: linkerd-proxy, lifecycle: {preStop: x}}]", c1 + `lifecycle.preStop: found "x"`},
		{"postStart list", "containers: [{name: app}, {name: linkerd-proxy, lifecycle: {postStart: [1]}}]", c1 + "lifecycle.postStart: found a list"},
		{"exec command scalar", "containers: [{name: app}, {name: linkerd-proxy, lifecycle: {postStart: {exec: {command: /bin/x}}}}]", c1 + `lifecycle.postStart.exec.command: found "/bin/x"`},
		{"exec command number", "containers: [{name: app}, {name: linkerd-proxy, lifecycle: {preStop: {exec: {command: [sleep, 5]}}}}]", c1 + `lifecycle.preStop.exec.command[1]: found the number "5"`},
		{"sleep seconds fraction", "containers: [{name: app}, {name: linkerd-proxy, lifecycle: {preStop: {sleep: {seconds: 5.5}}}}]", c1 + `lifecycle.preStop.sleep.seconds: found the number "5.5"`},
		{"sleep seconds quoted", "containers: [{name: app}, {name: linkerd-proxy, lifecycle: {preStop: {sleep: {seconds: '5'}}}}]", c1 + `lifecycle.preStop.sleep.seconds: found the string "5"`},
		{"probe port out of range", "containers: [{name: app}, {name: linkerd-proxy, readinessProbe: {httpGet: {port: 70000}}}]", c1 + `readinessProbe.httpGet.port: found the number "70000"`},
		{"probe port bad name", "containers: [{name: app}, {name: linkerd-proxy, startupProbe: {tcpSocket: {port: Admin_Port}}}]", c1 + `startupProbe.tcpSocket.port: found "Admin_Port"`},
		{"grpc port name", "containers: [{name: app}, {name: linkerd-proxy, startupProbe: {grpc: {port: admin}}}]", c1 + `startupProbe.grpc.port: found "admin"`},
		{"restartPolicy mapping", "initContainers: [{name: init, restartPolicy: {always: true}}]\ncontainers: [{name: app}, " + sc + "]", "spec.template.spec.initContainers[0].restartPolicy: found a mapping"},
		{"args number", "containers: [{name: app}, {name: linkerd-proxy, args: [--port, 4191]}]", c1 + `args[1]: found the number "4191"`},
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
	out, results := transformer.New(mustConfig(t, cfg)).Transform(items)
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
