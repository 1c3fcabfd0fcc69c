package engine

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
)

// TestMessagesOfferWhatWorks: warnings and errors state what is true of the
// workload and offer only fixes that work at the configured version.
func TestMessagesOfferWhatWorks(t *testing.T) {
	const header = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\n"
	for _, tc := range []struct {
		name, cfg, in string
		want          string
		wantNot       string
	}{
		{"a plain init container is not called a native sidecar",
			header + "spec: {sidecars: [{preset: linkerd}]}\n",
			"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {initContainers: [{name: linkerd-proxy}], containers: [{name: app}]}\n",
			"linkerd-proxy is an init container without restartPolicy Always, which must exit before the application starts: ordered mode leaves it there; " +
				"move it to containers, or use mode native (kubernetesVersion 1.29 or newer)",
			"native sidecar (an init"},
		{"a native sidecar is called one",
			header + "spec: {sidecars: [{preset: linkerd}]}\n",
			"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {initContainers: [{name: linkerd-proxy, restartPolicy: Always}], containers: [{name: app}]}\n",
			"linkerd-proxy is a native sidecar (an init container with restartPolicy Always); ordered mode leaves it there", ""},
		{"a Job below 1.29 is told native mode needs 1.29",
			header + "spec: {kubernetesVersion: \"1.28\", sidecars: [{preset: linkerd}]}\n",
			"apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {template: {spec: {restartPolicy: Never, containers: [{name: app}, {name: linkerd-proxy}]}}}\n",
			"Job in ordered mode: a sidecar that never exits keeps the Job running; mode native lets it complete (kubernetesVersion 1.29 or newer)", ""},
		{"a Job at 1.30 is not told about versions",
			header + "spec: {sidecars: [{preset: linkerd}]}\n",
			"apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {template: {spec: {restartPolicy: Never, containers: [{name: app}, {name: linkerd-proxy}]}}}\n",
			"keeps the Job running; mode native lets it complete", "kubernetesVersion"},
		{"ifAbsent fail without mesh annotations offers skip only",
			header + "spec: {sidecars: [{name: vault-agent, ifAbsent: fail}]}\n",
			"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: app}]}\n",
			`sidecar container vault-agent is not in the pod (ifAbsent: fail): add it, leave the workload out (targets, or the annotation sidecar-lifecycle.dev/skip: "true"), or set ifAbsent to skip`,
			"skip or annotate"},
		{"an exit delay written at run time where the image has no sleep says so",
			header + "spec: {kubernetesVersion: \"1.28\", sidecars: [{preset: cloud-sql-proxy}]}\n",
			"apiVersion: v1\nkind: Pod\nmetadata: {name: p, annotations: {sidecar-lifecycle.dev/wait-before-exit: 30s}}\nspec: {containers: [{name: app}, {name: cloud-sql-proxy, image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.0, args: [--health-check, --http-port=9090, p:r:i]}]}\n",
			"cloud-sql-proxy: waitBeforeExit 30s: the cloud-sql-proxy image has no sleep binary and kubernetesVersion 1.28 has no sleep action: set kubernetesVersion to 1.30 or newer (the lifecycle sleep action), " +
				"give sleepCommand (a sleep binary the image has), or drop waitBeforeExit and give the proxy its own",
			"mode native"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items, err := kio.FromBytes([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			_, results := New(krmtest.Config(t, tc.cfg)).Transform(items)
			var messages []string
			for _, r := range results {
				messages = append(messages, r.Message)
			}
			all := strings.Join(messages, "\n")
			if !strings.Contains(all, tc.want) {
				t.Errorf("results %q, want one containing %q", messages, tc.want)
			}
			if tc.wantNot != "" && strings.Contains(all, tc.wantNot) {
				t.Errorf("results %q contain %q", messages, tc.wantNot)
			}
		})
	}
}
