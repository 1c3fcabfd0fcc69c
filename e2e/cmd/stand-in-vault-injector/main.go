// Command stand-in-vault-injector is an admission webhook that injects the
// way HashiCorp's Vault Agent Injector (vault-k8s v1.7.6, commit fbc5b1f0)
// does, for the e2e tests: vault-k8s does not build here, and its agent
// needs a Vault server. For a pod annotated
// vault.hashicorp.com/agent-inject: "true" and not yet
// vault.hashicorp.com/agent-inject-status: injected (agent.go#ShouldInject),
// it appends the init container vault-agent-init to initContainers
// (agent-pre-populate, on by default) and the sidecar vault-agent LAST to
// containers (agent.go#Patch), with the names, volumes, mounts, environment,
// empty lifecycle and security context of container_sidecar.go and
// container_init_sidecar.go, and sets the status annotation. Only the
// images and their arguments differ: vault-agent runs --image (the suite's
// stand-in sidecar) with --agent-args, vault-agent-init runs --init-image
// with --init-args; both with imagePullPolicy Never, and with small
// resource requests so the shared one-node test cluster admits them.
//
//	stand-in-vault-injector --cert-file F --key-file F --image IMG --agent-args JSON --init-image IMG --init-args JSON [--listen ADDR]
package main

import (
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/e2e/internal/standin"
)

const (
	annotationInject      = "vault.hashicorp.com/agent-inject"
	annotationStatus      = "vault.hashicorp.com/agent-inject-status"
	annotationPrePopulate = "vault.hashicorp.com/agent-pre-populate"
	annotationPreOnly     = "vault.hashicorp.com/agent-pre-populate-only"
)

func main() {
	agentArgs := flag.String("agent-args", "[]", "JSON list: the vault-agent container's args")
	initImage := flag.String("init-image", "", "the vault-agent-init container's image")
	initArgs := flag.String("init-args", "[]", "JSON list: the vault-agent-init container's args")
	standin.Main("stand-in-vault-injector", func(f standin.Flags) standin.Injector {
		var agent, init []string
		if err := json.Unmarshal([]byte(*agentArgs), &agent); err != nil {
			panic(fmt.Sprintf("--agent-args: %v", err))
		}
		if err := json.Unmarshal([]byte(*initArgs), &init); err != nil {
			panic(fmt.Sprintf("--init-args: %v", err))
		}
		return func(pod *corev1.Pod) ([]standin.Op, error) {
			return inject(pod, f.Image, agent, *initImage, init)
		}
	})
}

// inject returns vault-k8s's patch for the pod, or none.
func inject(pod *corev1.Pod, image string, agentArgs []string, initImage string, initArgs []string) ([]standin.Op, error) {
	a := pod.Annotations
	if on, _ := strconv.ParseBool(a[annotationInject]); !on {
		return nil, nil
	}
	if a[annotationStatus] == "injected" {
		return nil, nil
	}
	prePopulate, preOnly := true, false
	if v, ok := a[annotationPrePopulate]; ok {
		prePopulate, _ = strconv.ParseBool(v)
	}
	if v, ok := a[annotationPreOnly]; ok {
		preOnly, _ = strconv.ParseBool(v)
	}
	var ops []standin.Op
	vols := len(pod.Spec.Volumes)
	addVolume := func(name string) {
		v := corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}}
		if vols == 0 {
			ops = append(ops, standin.Op{Op: "add", Path: "/spec/volumes", Value: []corev1.Volume{v}})
		} else {
			ops = append(ops, standin.Op{Op: "add", Path: "/spec/volumes/-", Value: v})
		}
		vols++
	}
	// agent.go#Patch: the init volume, then the sidecar's.
	if prePopulate {
		addVolume("home-init")
		ops = append(ops, standin.AddContainer("/spec/initContainers", len(pod.Spec.InitContainers),
			container("vault-agent-init", initImage, initArgs, "home-init", false))...)
	}
	if !preOnly {
		addVolume("home-sidecar")
		ops = append(ops, standin.AddContainer("/spec/containers", len(pod.Spec.Containers),
			container("vault-agent", image, agentArgs, "home-sidecar", true))...)
	}
	ops = append(ops, standin.SetKeys("/metadata/annotations", a, annotationStatus, "injected")...)
	return ops, nil
}

// container is vault-k8s's ContainerSidecar (sidecar) or
// ContainerInitSidecar, with the stand-in's image and args.
func container(name, image string, args []string, home string, sidecar bool) corev1.Container {
	config := base64.StdEncoding.EncodeToString([]byte(`{"auto_auth":{"method":{"type":"kubernetes"}},"exit_after_auth":` + strconv.FormatBool(!sidecar) + `}`))
	c := corev1.Container{
		Name:            name,
		Image:           image,
		ImagePullPolicy: corev1.PullNever,
		Args:            args,
		Env: []corev1.EnvVar{
			{Name: "VAULT_LOG_LEVEL", Value: "info"},
			{Name: "VAULT_LOG_FORMAT", Value: "standard"},
			{Name: "VAULT_CONFIG", Value: config},
		},
		Resources: corev1.ResourceRequirements{
			Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi")},
		},
		VolumeMounts: []corev1.VolumeMount{{Name: home, MountPath: "/home/vault"}},
		SecurityContext: &corev1.SecurityContext{
			RunAsUser:                ptr(int64(100)),
			RunAsGroup:               ptr(int64(1000)),
			RunAsNonRoot:             ptr(true),
			ReadOnlyRootFilesystem:   ptr(true),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			AllowPrivilegeEscalation: ptr(false),
		},
	}
	if sidecar {
		// createLifecycle: an empty lifecycle unless agent-revoke-on-shutdown.
		c.Lifecycle = &corev1.Lifecycle{}
	}
	return c
}

func ptr[T any](v T) *T { return &v }
