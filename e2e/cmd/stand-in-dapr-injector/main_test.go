package main

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func pod(annotations map[string]string, init ...corev1.Container) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Annotations: annotations},
		Spec: corev1.PodSpec{InitContainers: init, Containers: []corev1.Container{{Name: "app"}}}}
}

// TestInject: daprd last to containers, or with the native switch last to
// initContainers with restartPolicy Always and no startupProbe; nothing
// when disabled or already there.
func TestInject(t *testing.T) {
	ops, _ := inject(pod(map[string]string{"dapr.io/enabled": "True"}), "img", nil)
	text, _ := json.Marshal(ops)
	if !strings.Contains(string(text), `"path":"/spec/containers/-","value":{"name":"daprd"`) || strings.Contains(string(text), "restartPolicy") {
		t.Errorf("not native: %s", text)
	}
	if !strings.Contains(string(text), `"path":"/metadata/labels","value":{"dapr.io/app-id":"p","dapr.io/metrics-enabled":"true","dapr.io/sidecar-injected":"true"}`) {
		t.Errorf("labels: %s", text)
	}
	ops, _ = inject(pod(map[string]string{"dapr.io/enabled": "true", "dapr.io/enable-native-sidecar": "yes"}, corev1.Container{Name: "init"}), "img", nil)
	text, _ = json.Marshal(ops)
	if !strings.Contains(string(text), `"path":"/spec/initContainers/-","value":{"name":"daprd"`) ||
		!strings.Contains(string(text), `"restartPolicy":"Always"`) || strings.Contains(string(text), "startupProbe") {
		t.Errorf("native: %s", text)
	}
	for _, p := range []*corev1.Pod{pod(nil), pod(map[string]string{"dapr.io/enabled": "false"}),
		pod(map[string]string{"dapr.io/enabled": "true"}, corev1.Container{Name: "daprd"})} {
		if ops, _ := inject(p, "img", nil); len(ops) != 0 {
			t.Errorf("%v: patched %v", p.Annotations, ops)
		}
	}
}
