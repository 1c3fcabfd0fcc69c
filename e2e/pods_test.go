//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/e2e/internal/eventlog"
)

// createPod creates the pod in the manifest file and registers its removal.
func createPod(t *testing.T, name, file string) {
	t.Helper()
	ctx := context.Background()
	if _, err := kubectl(ctx, "create", "-n", suite.namespace, "-f", file); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { forceDelete(context.Background(), name) })
}

// forceDelete removes the pod now: its finalizer, then the object.
func forceDelete(ctx context.Context, name string) {
	_, _ = kubectl(ctx, "patch", "pod", name, "-n", suite.namespace, "--type=json", "-p", `[{"op":"remove","path":"/metadata/finalizers"}]`)
	_, _ = kubectl(ctx, "delete", "pod", name, "-n", suite.namespace, "--ignore-not-found", "--wait=false", "--grace-period=1")
}

// getPod reads the pod's current object.
func getPod(ctx context.Context, name string) (*corev1.Pod, error) {
	out, err := kubectl(ctx, "get", "pod", name, "-n", suite.namespace, "-o", "json")
	if err != nil {
		return nil, err
	}
	var pod corev1.Pod
	if err := json.Unmarshal([]byte(out), &pod); err != nil {
		return nil, fmt.Errorf("decoding pod %s: %w", name, err)
	}
	return &pod, nil
}

// waitPod polls the pod until done returns true, or fails the test after
// timeout with the last status.
func waitPod(t *testing.T, name string, timeout time.Duration, what string, done func(*corev1.Pod) bool) *corev1.Pod {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last *corev1.Pod
	var lastErr error
	for time.Now().Before(deadline) {
		pod, err := getPod(context.Background(), name)
		if err == nil && done(pod) {
			return pod
		}
		last, lastErr = pod, err
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("pod %s: not %s after %s; last error %v; last status:\n%s", name, what, timeout, lastErr, podSummary(last))
	return nil
}

// status returns the status of the named container, init or regular.
func status(pod *corev1.Pod, container string) *corev1.ContainerStatus {
	for _, list := range [][]corev1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
		for i := range list {
			if list[i].Name == container {
				return &list[i]
			}
		}
	}
	return nil
}

// allTerminated reports whether every container of the pod has terminated.
func allTerminated(pod *corev1.Pod) bool {
	n := 0
	for _, list := range [][]corev1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
		for _, s := range list {
			if s.State.Terminated == nil {
				return false
			}
			n++
		}
	}
	return n == len(pod.Spec.InitContainers)+len(pod.Spec.Containers)
}

// podSummary is a few lines on the pod's phase and containers, for messages.
func podSummary(pod *corev1.Pod) string {
	if pod == nil {
		return "(no pod)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "phase %s", pod.Status.Phase)
	for _, list := range [][]corev1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
		for _, s := range list {
			fmt.Fprintf(&b, "\n  %s: restarts %d, %s", s.Name, s.RestartCount, stateString(s.State))
		}
	}
	return b.String()
}

func stateString(s corev1.ContainerState) string {
	switch {
	case s.Running != nil:
		return "running since " + s.Running.StartedAt.UTC().Format(time.TimeOnly)
	case s.Terminated != nil:
		return fmt.Sprintf("terminated %s, exit code %d (%s)", s.Terminated.FinishedAt.UTC().Format(time.TimeOnly), s.Terminated.ExitCode, s.Terminated.Reason)
	case s.Waiting != nil:
		return "waiting: " + s.Waiting.Reason + " " + s.Waiting.Message
	}
	return "no state"
}

// follower streams one container's log from its start to its exit, so the
// log outlives the container and the deleted pod.
type follower struct {
	container string
	mu        sync.Mutex
	buf       bytes.Buffer
	err       error
	done      chan struct{}
}

// follow starts streaming the container's log; it retries until the
// container has started, for at most timeout.
func follow(ctx context.Context, pod, container string, timeout time.Duration) *follower {
	return followIn(ctx, suite.namespace, pod, container, timeout)
}

// followIn is follow for a pod in the namespace ns.
func followIn(ctx context.Context, ns, pod, container string, timeout time.Duration) *follower {
	f := &follower{container: container, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		deadline := time.Now().Add(timeout)
		for {
			var stderr bytes.Buffer
			cmd := exec.CommandContext(ctx, suite.kubectl, "logs", "-f", pod, "-c", container, "-n", ns)
			cmd.Stdout, cmd.Stderr = lockedWriter{f}, &stderr
			err := cmd.Run()
			if err == nil {
				return
			}
			f.mu.Lock()
			started := f.buf.Len() > 0
			f.err = fmt.Errorf("kubectl logs -f %s -c %s: %w: %s", pod, container, err, strings.TrimSpace(stderr.String()))
			f.mu.Unlock()
			// Before the container starts kubectl fails without output: retry.
			if started || time.Now().After(deadline) || ctx.Err() != nil {
				return
			}
			time.Sleep(300 * time.Millisecond)
		}
	}()
	return f
}

type lockedWriter struct{ f *follower }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.f.mu.Lock()
	defer w.f.mu.Unlock()
	return w.f.buf.Write(p)
}

// text returns the complete lines streamed so far.
func (f *follower) text() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.buf.String()
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[:i+1]
	}
	return ""
}

// events parses the complete lines streamed so far.
func (f *follower) events(t *testing.T) []eventlog.Event {
	t.Helper()
	events, err := eventlog.ParseAll(strings.NewReader(f.text()))
	if err != nil {
		t.Fatalf("log of %s: %v", f.container, err)
	}
	return events
}

// wait waits for the stream to end (the container exited), at most timeout.
func (f *follower) wait(t *testing.T, timeout time.Duration) {
	t.Helper()
	select {
	case <-f.done:
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.err != nil && f.buf.Len() == 0 {
			t.Fatalf("no log from %s: %v", f.container, f.err)
		}
	case <-time.After(timeout):
		t.Fatalf("the log of %s had not ended after %s", f.container, timeout)
	}
}
