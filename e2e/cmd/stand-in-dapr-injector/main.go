// Command stand-in-dapr-injector is an admission webhook that injects the
// way Dapr's sidecar injector (dapr/dapr v1.18.3, pkg/injector) does, for
// the e2e tests: daprd does not build here, and it needs Dapr's control
// plane. For a pod annotated dapr.io/enabled: "true" (compared
// case-insensitively, service/handler.go#podHasDaprEnabled) that has no
// daprd container yet, it appends daprd (patcher/sidecar_container.go
// #getSidecarContainer: its ports, environment, security context, and
// readiness and liveness probes on /v1.0/healthz :3501, no startupProbe);
// with dapr.io/enable-native-sidecar truthy (dapr/kit IsTruthy; the chart's
// default is off) last to initContainers with restartPolicy: Always, else
// last to containers; and sets the labels dapr.io/sidecar-injected,
// dapr.io/app-id and dapr.io/metrics-enabled (sidecar_patcher.go#GetPatch).
// Only the image and its arguments differ: --image (the suite's stand-in
// sidecar) with --daprd-args, and imagePullPolicy Never.
//
//	stand-in-dapr-injector --cert-file F --key-file F --image IMG --daprd-args JSON [--listen ADDR]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/e2e/internal/standin"
)

func main() {
	daprdArgs := flag.String("daprd-args", "[]", "JSON list: the daprd container's args")
	standin.Main("stand-in-dapr-injector", func(f standin.Flags) standin.Injector {
		var args []string
		if err := json.Unmarshal([]byte(*daprdArgs), &args); err != nil {
			panic(fmt.Sprintf("--daprd-args: %v", err))
		}
		return func(pod *corev1.Pod) ([]standin.Op, error) { return inject(pod, f.Image, args) }
	})
}

// inject returns the Dapr injector's patch for the pod, or none.
func inject(pod *corev1.Pod, image string, args []string) ([]standin.Op, error) {
	if !strings.EqualFold(pod.Annotations["dapr.io/enabled"], "true") {
		return nil, nil
	}
	for _, c := range append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
		if c.Name == "daprd" {
			return nil, nil
		}
	}
	appID := pod.Annotations["dapr.io/app-id"]
	if appID == "" {
		appID = pod.Name
	}
	var ops []standin.Op
	ops = append(ops, standin.SetKeys("/metadata/labels", pod.Labels,
		"dapr.io/sidecar-injected", "true", "dapr.io/app-id", appID, "dapr.io/metrics-enabled", "true")...)
	c := daprd(image, args)
	if truthy(pod.Annotations["dapr.io/enable-native-sidecar"]) {
		always := corev1.ContainerRestartPolicyAlways
		c.RestartPolicy = &always
		ops = append(ops, standin.AddContainer("/spec/initContainers", len(pod.Spec.InitContainers), c)...)
	} else {
		ops = append(ops, standin.AddContainer("/spec/containers", len(pod.Spec.Containers), c)...)
	}
	return ops, nil
}

// truthy is dapr/kit's utils.IsTruthy.
func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "y", "yes", "true", "t", "on", "1":
		return true
	}
	return false
}

// daprd is getSidecarContainer's container with the chart's defaults.
func daprd(image string, args []string) corev1.Container {
	healthz := func(path string) corev1.ProbeHandler {
		return corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(3501)}}
	}
	return corev1.Container{
		Name:            "daprd",
		Image:           image,
		ImagePullPolicy: corev1.PullNever,
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr(false),
			RunAsNonRoot:             ptr(true),
			ReadOnlyRootFilesystem:   ptr(true),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			RunAsUser:                ptr(int64(65532)),
		},
		Ports: []corev1.ContainerPort{
			{ContainerPort: 3500, Name: "dapr-http"},
			{ContainerPort: 50001, Name: "dapr-grpc"},
			{ContainerPort: 50002, Name: "dapr-internal"},
			{ContainerPort: 9090, Name: "dapr-metrics"},
		},
		Args: args,
		Env: []corev1.EnvVar{
			{Name: "NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
			{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
		},
		ReadinessProbe: &corev1.Probe{ProbeHandler: healthz("/v1.0/healthz"),
			InitialDelaySeconds: 1, TimeoutSeconds: 1, PeriodSeconds: 1, FailureThreshold: 5},
		LivenessProbe: &corev1.Probe{ProbeHandler: healthz("/v1.0/healthz"),
			InitialDelaySeconds: 180, TimeoutSeconds: 3, PeriodSeconds: 10, FailureThreshold: 5},
	}
}

func ptr[T any](v T) *T { return &v }
