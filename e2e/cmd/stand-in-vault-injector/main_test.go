package main

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func pod(annotations map[string]string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Annotations: annotations},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}}}
}

// TestInject: vault-agent last to containers and vault-agent-init to
// initContainers for agent-inject "true"; nothing when the switch is off
// or the pod is injected already; no sidecar with agent-pre-populate-only.
func TestInject(t *testing.T) {
	ops, err := inject(pod(map[string]string{annotationInject: "true"}), "sidecar:1", []string{"--port=1"}, "init:1", nil)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := json.Marshal(ops)
	for _, want := range []string{
		`{"op":"add","path":"/spec/containers/-","value":{"name":"vault-agent","image":"sidecar:1","args":["--port=1"]`,
		`{"op":"add","path":"/spec/initContainers","value":[{"name":"vault-agent-init","image":"init:1"`,
		`"lifecycle":{}`, `"runAsUser":100`, `{"name":"home-sidecar","mountPath":"/home/vault"}`,
		`{"op":"add","path":"/metadata/annotations/vault.hashicorp.com~1agent-inject-status","value":"injected"}`,
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the patch lacks %s:\n%s", want, text)
		}
	}
	for _, a := range []map[string]string{nil, {annotationInject: "false"}, {annotationInject: "true", annotationStatus: "injected"}} {
		if ops, _ := inject(pod(a), "s", nil, "i", nil); len(ops) != 0 {
			t.Errorf("%v: patched %v", a, ops)
		}
	}
	ops, _ = inject(pod(map[string]string{annotationInject: "true", annotationPreOnly: "true"}), "s", nil, "i", nil)
	if text, _ := json.Marshal(ops); strings.Contains(string(text), `"vault-agent"`) || !strings.Contains(string(text), "vault-agent-init") {
		t.Errorf("agent-pre-populate-only: %s", text)
	}
}
