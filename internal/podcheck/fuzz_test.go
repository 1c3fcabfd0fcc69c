package podcheck_test

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/podcheck"
)

// FuzzChecks: the checks never panic on any YAML, and every message is one
// line that starts with a field path.
func FuzzChecks(f *testing.F) {
	for _, seed := range []string{
		"spec: {template: {spec: {containers: [{name: a, lifecycle: {preStop: {sleep: {seconds: 5}}}}]}}}",
		"spec: {template: {metadata: {annotations: {\"a\\nb\": 1}}, spec: {terminationGracePeriodSeconds: \"\\e[31m\"}}}",
		"metadata: {labels: [x]}\nspec: {template: 5}",
		"spec: {template: {spec: {containers: &c [{name: *c}], initContainers: *c}}}",
		"spec: {template: {spec: {containers: [{name: a, startupProbe: {httpGet: {port: [1]}, grpc: {port: \"x\\ny\"}}}]}}}",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		rn, err := yaml.Parse(text)
		if err != nil || rn.YNode().Kind != yaml.MappingNode {
			return
		}
		errs := append(podcheck.PodSpec(rn, []string{"spec", "template", "spec"}),
			podcheck.Metadata(rn, []string{"spec", "template", "metadata"}, []string{"metadata"})...)
		for _, msg := range errs.Findings().Strings() {
			if strings.ContainsAny(msg, "\n\r\x1b") || !strings.HasPrefix(msg, "spec") && !strings.HasPrefix(msg, "metadata") {
				t.Errorf("message %q is not one line starting with a field path", msg)
			}
		}
	})
}
