package podcheck_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/podcheck"
)

// pod wraps a pod spec, written at the left margin, into a Pod.
func pod(spec string) string {
	return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  " + strings.ReplaceAll(strings.TrimRight(spec, "\n"), "\n", "\n  ") + "\n"
}

func TestPodSpec(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		want       []string
	}{
		{"valid", `# comments and both lists
terminationGracePeriodSeconds: 0
initContainers:
- name: linkerd-init
  restartPolicy: Always
  command: [/init, "5"]
containers:
- name: app
  args: []
  lifecycle:
    preStop: {sleep: {seconds: 5}}
    postStart: {exec: {command: [/bin/wait, --timeout=5s]}}
  readinessProbe: {httpGet: {port: http}}
  startupProbe: {tcpSocket: {port: 8080}, grpc: {port: 65535}}
`, nil},
		{"null and empty fields are unset", "terminationGracePeriodSeconds: ~\ninitContainers:\ncontainers: [{name: a, lifecycle: {preStop: null}, command: ~}]\n", nil},
		{"no lists", "restartPolicy: Always\n", nil},
		{"an alias is read as its anchor", "terminationGracePeriodSeconds: &g 30\ncontainers: [{name: a, lifecycle: &l {preStop: {sleep: {seconds: *g}}}}, {name: b, lifecycle: *l}]\n", nil},
		{"grace period and sleep beyond int64", "terminationGracePeriodSeconds: 9223372036854775808\ncontainers: [{name: a, lifecycle: {preStop: {sleep: {seconds: 9223372036854775807}}}}]\n", []string{
			`spec.terminationGracePeriodSeconds: found the integer 9223372036854775808, past the int64 maximum 9223372036854775807; want a non-negative whole number of seconds written in decimal, such as 30`,
		}},
		{"sleep seconds past 64 bits, which yaml.v3 reads as a float", "containers: [{name: a, lifecycle: {preStop: {sleep: {seconds: 99999999999999999999}}}}]\n", []string{
			`spec.containers[0].lifecycle.preStop.sleep.seconds: found the integer 99999999999999999999, past the int64 maximum 9223372036854775807; want a non-negative whole number of seconds written in decimal, such as 5`,
		}},
		{"negative and quoted past int64", "terminationGracePeriodSeconds: -5\ncontainers: [{name: a, lifecycle: {preStop: {sleep: {seconds: '9223372036854775808'}}}}]\n", []string{
			`spec.terminationGracePeriodSeconds: found the integer -5; want a non-negative whole number of seconds written in decimal, such as 30`,
			`spec.containers[0].lifecycle.preStop.sleep.seconds: found the string "9223372036854775808"; want a non-negative whole number of seconds written in decimal, such as 5`,
		}},
		{"quoted grace period", "terminationGracePeriodSeconds: '30'\n", []string{
			`spec.terminationGracePeriodSeconds: found the string "30"; want a non-negative whole number of seconds written in decimal, such as 30: remove the quotes`,
		}},
		{"duplicate in containers", "containers:\n- name: app # first\n- name: linkerd-proxy\n- name: app # second\n", []string{
			`spec.containers[2].name: found the string "app"; want unique container names: spec.containers[0].name has the same name; rename one`,
		}},
		{"duplicate across lists", "containers: [{name: linkerd-proxy}]\ninitContainers: [{name: linkerd-proxy}]\n", []string{
			`spec.containers[0].name: found the string "linkerd-proxy"; want unique container names: spec.initContainers[0].name has the same name; rename one`,
		}},
		{"names", "initContainers: [{name: \"\"}, {image: b}, {name: true}]\ncontainers: [app, ~]\n", []string{
			`spec.initContainers[0].name: found the string ""; want a container name that is not blank`,
			`spec.initContainers[1].name: found nothing; want a container name: give the container one`,
			`spec.initContainers[2].name: found the boolean true; want a container name: quote it ("true")`,
			`spec.containers[0]: found the string "app"; want a container: a mapping with a name`,
			`spec.containers[1]: found null; want a container: a mapping with a name`,
		}},
		{"lists", "containers: {name: app}\ninitContainers: init\n", []string{
			`spec.initContainers: found the string "init"; want a list of containers`,
			`spec.containers: found a mapping of 1 key; want a list of containers`,
		}},
		{"hooks", "containers:\n- name: a\n  lifecycle: {postStart: {exec: [x]}, preStop: {sleep: 5}}\n- name: b\n  lifecycle: {preStop: {exec: {command: [sh, -c, {x: 1}]}, sleep: {seconds: -1}}}\n", []string{
			`spec.containers[0].lifecycle.postStart.exec: found a list of 1 entry; want a mapping with a command`,
			`spec.containers[0].lifecycle.preStop.sleep: found the integer 5; want a mapping with seconds`,
			`spec.containers[1].lifecycle.preStop.exec.command[2]: found a mapping of 1 key; want a string`,
			`spec.containers[1].lifecycle.preStop.sleep.seconds: found the integer -1; want a non-negative whole number of seconds written in decimal, such as 5`,
		}},
		{"probes", "containers:\n- name: a\n  startupProbe: {httpGet: {port: 0}, tcpSocket: {port: \"8080\"}, grpc: {port: 9090.0}}\n  readinessProbe: [x]\n- name: b\n  readinessProbe: {httpGet: {port: -http}, tcpSocket: 5}\n", []string{
			`spec.containers[0].startupProbe.httpGet.port: found the integer 0; want a port number from 1 to 65535, or a port name of at most 15 lowercase letters, digits and hyphens`,
			`spec.containers[0].startupProbe.tcpSocket.port: found the string "8080"; want a port number from 1 to 65535, or a port name of at most 15 lowercase letters, digits and hyphens: remove the quotes`,
			`spec.containers[0].startupProbe.grpc.port: found the float 9090.0; want a port number from 1 to 65535`,
			`spec.containers[0].readinessProbe: found a list of 1 entry; want a mapping`,
			`spec.containers[1].readinessProbe.httpGet.port: found the string "-http"; want a port number from 1 to 65535, or a port name of at most 15 lowercase letters, digits and hyphens`,
			`spec.containers[1].readinessProbe.tcpSocket: found the integer 5; want a mapping with a port`,
		}},
		{"restartPolicy and command", "initContainers: [{name: i, restartPolicy: [Always], command: sleep, args: [1, on]}]\n", []string{
			`spec.initContainers[0].restartPolicy: found a list of 1 entry; want a string, such as Always`,
			`spec.initContainers[0].command: found the string "sleep"; want a list of strings, such as [/bin/sleep, "5"]`,
			`spec.initContainers[0].args[0]: found the integer 1; want a string: quote it ("1")`,
		}},
		{"long values are shortened and escaped", "containers: [{name: a, lifecycle: \"\\e[31m" + strings.Repeat("x", 60) + "\"}]\n", []string{
			`spec.containers[0].lifecycle: found the string "\x1b[31m` + strings.Repeat("x", 55) + `"…; want a mapping with postStart and preStop hooks`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := podcheck.PodSpec(krmtest.Parse(t, pod(tc.spec)), []string{"spec"}).Findings().Strings()
			if len(got) == 0 {
				got = nil
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestPodSpecPath(t *testing.T) {
	for _, tc := range []struct {
		name, resource string
		want           []string
	}{
		{"absent pod spec", "spec: {replicas: 1}\n", nil},
		{"null pod spec", "spec: {template: {spec: null}}\n", nil},
		{"scalar template", "spec: {template: nginx}\n", []string{`spec.template: found the string "nginx"; want a mapping`}},
		{"scalar pod spec", "spec: {template: {spec: 5}}\n", []string{`spec.template.spec: found the integer 5; want a mapping: the pod spec`}},
		{"list pod spec", "spec: {template: {spec: [a]}}\n", []string{`spec.template.spec: found a list of 1 entry; want a mapping: the pod spec`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rn := krmtest.Parse(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n"+tc.resource)
			got := podcheck.PodSpec(rn, []string{"spec", "template", "spec"}).Findings().Strings()
			if len(got) == 0 {
				got = nil
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestMetadata(t *testing.T) {
	paths := [][]string{{"spec", "template", "metadata"}, {"metadata"}}
	for _, tc := range []struct {
		name, resource string
		want           []string
	}{
		{"valid", "metadata: {name: d, labels: {a: b}, annotations: {sidecar-lifecycle.dev/skip: \"true\"}}\nspec: {template: {metadata: {annotations: {x: \"1\"}}}}\n", nil},
		{"absent and null", "metadata: {name: d, annotations: ~}\nspec: {template: {metadata: null}}\n", nil},
		{"template left to PodSpec", "metadata: {name: d}\nspec: {template: 5}\n", nil},
		{"values", "metadata: {name: d, annotations: {sidecar-lifecycle.dev/skip: true, b: 5, c: ~, d: [x]}}\n", []string{
			`metadata.annotations[sidecar-lifecycle.dev/skip]: found the boolean true; want a string: quote it ("true")`,
			`metadata.annotations[b]: found the integer 5; want a string: quote it ("5")`,
			`metadata.annotations[c]: found null; want a string: give it a value or remove it`,
			`metadata.annotations[d]: found a list of 1 entry; want a string`,
		}},
		{"keys", "metadata: {name: d, labels: {1: a, \"a\\nb\": x}}\n", []string{
			`metadata.labels: found the integer 1; want string keys: quote it ("1")`,
		}},
		{"key with a newline is quoted", "metadata: {name: d, labels: {\"a\\nb\": 1}}\n", []string{
			`metadata.labels["a\nb"]: found the integer 1; want a string: quote it ("1")`,
		}},
		{"template", "metadata: {name: d}\nspec: {template: {metadata: {labels: [a], annotations: x}}}\n", []string{
			`spec.template.metadata.labels: found a list of 1 entry; want a mapping of strings to strings`,
			`spec.template.metadata.annotations: found the string "x"; want a mapping of strings to strings`,
		}},
		{"scalar metadata", "metadata: d\nspec: {template: {metadata: [x]}}\n", []string{
			`spec.template.metadata: found a list of 1 entry; want a mapping`,
			`metadata: found the string "d"; want a mapping`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rn := krmtest.Parse(t, "apiVersion: apps/v1\nkind: Deployment\n"+tc.resource)
			got := podcheck.Metadata(rn, paths...).Findings().Strings()
			if len(got) == 0 {
				got = nil
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestMetadataOfPodIsCheckedOnce(t *testing.T) {
	rn := krmtest.Parse(t, "apiVersion: v1\nkind: Pod\nmetadata: {name: p, annotations: {a: 1}}\n")
	got := podcheck.Metadata(rn, []string{"metadata"}, []string{"metadata"}).Findings().Strings()
	if len(got) != 1 {
		t.Errorf("got %q, want one error", got)
	}
}
