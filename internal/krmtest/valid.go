package krmtest

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// typed returns an empty k8s.io/api object for the built-in workload kinds.
func typed(apiVersion, kind string) (any, bool) {
	switch apiVersion + "/" + kind {
	case "v1/Pod":
		return &corev1.Pod{}, true
	case "v1/ReplicationController":
		return &corev1.ReplicationController{}, true
	case "apps/v1/Deployment":
		return &appsv1.Deployment{}, true
	case "apps/v1/StatefulSet":
		return &appsv1.StatefulSet{}, true
	case "apps/v1/DaemonSet":
		return &appsv1.DaemonSet{}, true
	case "apps/v1/ReplicaSet":
		return &appsv1.ReplicaSet{}, true
	case "batch/v1/Job":
		return &batchv1.Job{}, true
	case "batch/v1/CronJob":
		return &batchv1.CronJob{}, true
	}
	return nil, false
}

// podSpecOf returns the pod spec of a decoded built-in workload.
func podSpecOf(obj any) *corev1.PodSpec {
	switch o := obj.(type) {
	case *corev1.Pod:
		return &o.Spec
	case *corev1.ReplicationController:
		if o.Spec.Template != nil {
			return &o.Spec.Template.Spec
		}
	case *appsv1.Deployment:
		return &o.Spec.Template.Spec
	case *appsv1.StatefulSet:
		return &o.Spec.Template.Spec
	case *appsv1.DaemonSet:
		return &o.Spec.Template.Spec
	case *appsv1.ReplicaSet:
		return &o.Spec.Template.Spec
	case *batchv1.Job:
		return &o.Spec.Template.Spec
	case *batchv1.CronJob:
		return &o.Spec.JobTemplate.Spec.Template.Spec
	}
	return nil
}

// Valid decodes a built-in workload strictly into its k8s.io/api type and
// checks the API server's rules a test can check without a server: unique
// container names across containers and initContainers, preStop sleep
// seconds within 1 and the grace period, probes and lifecycle hooks on init
// containers only with restartPolicy Always, a startupProbe's
// successThreshold 1. Other kinds pass.
func Valid(node *yaml.RNode) error {
	obj, ok := typed(node.GetApiVersion(), node.GetKind())
	if !ok {
		return nil
	}
	js, err := node.MarshalJSON()
	if err != nil {
		return err
	}
	strict, err := sigsjson.UnmarshalStrict(js, obj, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	if err != nil {
		return fmt.Errorf("decoding %s: %w", node.GetKind(), err)
	}
	if len(strict) > 0 {
		return fmt.Errorf("decoding %s strictly: %v", node.GetKind(), strict)
	}
	spec := podSpecOf(obj)
	if spec == nil {
		return nil
	}
	return validPodSpec(spec)
}

func validPodSpec(spec *corev1.PodSpec) error {
	grace := int64(30)
	if spec.TerminationGracePeriodSeconds != nil {
		grace = *spec.TerminationGracePeriodSeconds
	}
	names := map[string]bool{}
	check := func(c corev1.Container, init bool) error {
		if names[c.Name] {
			return fmt.Errorf("container name %q is not unique", c.Name)
		}
		names[c.Name] = true
		always := c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
		if init && !always && (c.Lifecycle != nil || c.StartupProbe != nil || c.ReadinessProbe != nil || c.LivenessProbe != nil) {
			return fmt.Errorf("init container %q has probes or lifecycle hooks but no restartPolicy: Always", c.Name)
		}
		if !init && c.RestartPolicy != nil {
			return fmt.Errorf("container %q has a restartPolicy, which only init containers may have", c.Name)
		}
		if c.StartupProbe != nil && c.StartupProbe.SuccessThreshold > 1 {
			return fmt.Errorf("container %q has a startupProbe with successThreshold %d, want 1", c.Name, c.StartupProbe.SuccessThreshold)
		}
		if c.Lifecycle == nil {
			return nil
		}
		for name, h := range map[string]*corev1.LifecycleHandler{"postStart": c.Lifecycle.PostStart, "preStop": c.Lifecycle.PreStop} {
			if h == nil {
				continue
			}
			handlers := 0
			for _, set := range []bool{h.Exec != nil, h.HTTPGet != nil, h.TCPSocket != nil, h.Sleep != nil} {
				if set {
					handlers++
				}
			}
			if handlers != 1 {
				return fmt.Errorf("container %q %s has %d handlers, want 1", c.Name, name, handlers)
			}
			if h.Exec != nil && len(h.Exec.Command) == 0 {
				return fmt.Errorf("container %q %s exec has no command", c.Name, name)
			}
			if h.Sleep != nil && (h.Sleep.Seconds < 1 || h.Sleep.Seconds > grace) {
				return fmt.Errorf("container %q %s sleeps %ds, outside 1..terminationGracePeriodSeconds (%d)", c.Name, name, h.Sleep.Seconds, grace)
			}
		}
		return nil
	}
	for _, c := range spec.InitContainers {
		if err := check(c, true); err != nil {
			return err
		}
	}
	for _, c := range spec.Containers {
		if err := check(c, false); err != nil {
			return err
		}
	}
	return nil
}
