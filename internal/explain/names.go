package explain

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// cronJobNameMax is the longest CronJob name the API server accepts: its
// Jobs are named after it with an 11-character suffix, and must fit a
// 63-character label.
const cronJobNameMax = validation.DNS1035LabelMaxLength - 11

// nameNotes returns one note for each name of the workload that the API
// server would reject: its name (an RFC 1123 subdomain, as every
// pod-bearing kind requires; a CronJob's of at most 52 characters), its
// namespace and its containers' names (RFC 1123 labels). An absent name
// or namespace is not checked: generateName and the current namespace
// stand for them.
func nameNotes(node *yaml.RNode, pod budget.Pod) []string {
	var notes []string
	reject := func(what, name string, problems []string) {
		if len(problems) > 0 {
			notes = append(notes, fmt.Sprintf("the API server rejects %s %s: %s", what, report.Quote(name), problems[0]))
		}
	}
	if name := node.GetName(); name != "" {
		problems := validation.IsDNS1123Subdomain(name)
		if node.GetKind() == "CronJob" && len(name) > cronJobNameMax {
			problems = append(problems, fmt.Sprintf("a CronJob's name must be no more than %d characters", cronJobNameMax))
		}
		reject("the name", name, problems)
	}
	if ns := node.GetNamespace(); ns != "" {
		reject("the namespace", ns, validation.IsDNS1123Label(ns))
	}
	for _, c := range pod.Init {
		reject("the init container name", c.Name, validation.IsDNS1123Label(c.Name))
	}
	for _, c := range pod.Containers {
		reject("the container name", c.Name, validation.IsDNS1123Label(c.Name))
	}
	return notes
}
