package deadline

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// TestFactsSources: the data reads, every source is a repository at a
// version or a page, every fact cites sources of it, and a fact citing an
// unknown source, or an unknown field, does not read.
func TestFactsSources(t *testing.T) {
	f := Data()
	for key, s := range f.Sources {
		if (s.Page == "") == (s.Repository == "") || (s.Repository != "" && (strings.Count(s.Repository, "/") != 1 || s.Version == "")) ||
			(s.Page != "" && !strings.HasPrefix(s.Page, "https://")) {
			t.Errorf("sources.%s: %+v is neither owner/name at a version nor a page", key, s)
		}
	}
	for field, source := range f.sourced() {
		if source == "" {
			t.Errorf("%s has no source", field)
		}
	}
	for _, p := range f.Providers {
		if p.Deadline.Seconds <= 0 || len(p.NodeLabels.Labels) == 0 || p.Title == "" || p.ProviderID == "" {
			t.Errorf("provider %q: a title, a deadline, labels and a providerID prefix are required", p.Name)
		}
	}
	if f.Autoscaler.Default != 600 || f.SidecarTail.Seconds != 2 {
		t.Errorf("autoscaler default %d, sidecar tail %d; want 600 and 2", f.Autoscaler.Default, f.SidecarTail.Seconds)
	}
	text := string(factsYAML)
	for _, bad := range []struct{ name, from, to string }{
		{"unknown source key", "source: karpenter website", "source: nowhere website"},
		{"unknown field", "- name: aws-spot\n", "- name: aws-spot\n  bogus: 1\n"},
	} {
		if !strings.Contains(text, bad.from) {
			t.Fatalf("%s: the data has no %q", bad.name, bad.from)
		}
		if _, err := readFacts([]byte(strings.Replace(text, bad.from, bad.to, 1))); err == nil {
			t.Errorf("%s: read without an error", bad.name)
		}
	}
}

func parse(t *testing.T, s string) *yaml.RNode {
	t.Helper()
	n, err := yaml.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestCanLand: a pod may land on a class unless its nodeSelector, every
// term of its required node affinity or an untolerated taint keeps it
// off; a label a partial class does not list may be anything, one a
// Node does not carry is absent.
func TestCanLand(t *testing.T) {
	spot := FromConfig(config.Nodes{Classes: []config.NodeClass{{Name: "spot", Provider: "aws-spot"}}})[0]
	azure := FromConfig(config.Nodes{Classes: []config.NodeClass{{Name: "az", Provider: "azure-spot"}}})[0]
	node, ok := ReadNode(parse(t, `apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-0-1
  labels: {karpenter.sh/capacity-type: spot, kubernetes.io/os: linux}
spec: {providerID: "aws:///eu-west-1a/i-0abc"}
`))
	if !ok || node.Deadline.Seconds != 120 || node.Nodes[0] != "ip-10-0-0-1" {
		t.Fatalf("ReadNode: %+v, %v", node, ok)
	}
	if _, ok := ReadNode(parse(t, "apiVersion: v1\nkind: Node\nmetadata: {name: n, labels: {karpenter.sh/capacity-type: spot}}\nspec: {providerID: \"gce://p/z/n\"}\n")); ok {
		t.Error("a Node whose providerID is another provider's is read as aws-spot")
	}
	for _, tc := range []struct {
		name  string
		spec  string
		class Class
		want  bool
	}{
		{"no placement", "{}", spot, true},
		{"other label, partial class", "{nodeSelector: {kubernetes.io/os: linux}}", spot, true},
		{"pinned on-demand", "{nodeSelector: {karpenter.sh/capacity-type: on-demand}}", spot, false},
		{"pinned on-demand, Node", "{nodeSelector: {karpenter.sh/capacity-type: on-demand}}", node, false},
		{"label the Node lacks", "{nodeSelector: {gpu: \"true\"}}", node, false},
		{"affinity NotIn spot", "{affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: karpenter.sh/capacity-type, operator: NotIn, values: [spot]}]}]}}}}", spot, false},
		{"affinity, one term of two", "{affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]}, {matchExpressions: [{key: karpenter.sh/capacity-type, operator: Exists}]}]}}}}", spot, true},
		{"taint not tolerated", "{}", azure, false},
		{"taint tolerated", "{tolerations: [{key: kubernetes.azure.com/scalesetpriority, operator: Equal, value: spot, effect: NoSchedule}]}", azure, true},
		{"every taint tolerated", "{tolerations: [{operator: Exists}]}", azure, true},
		{"other effect", "{tolerations: [{key: kubernetes.azure.com/scalesetpriority, operator: Exists, effect: NoExecute}]}", azure, false},
	} {
		if got := ReadPlacement(parse(t, tc.spec)).CanLand(tc.class); got != tc.want {
			t.Errorf("%s: CanLand = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestReadNodePool: a NodePool's terminationGracePeriod is a class of its
// own, and spot in its requirements adds the spot notice; its nodes
// carry its name and template labels.
func TestReadNodePool(t *testing.T) {
	np := parse(t, `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: spot-pool}
spec:
  template:
    metadata: {labels: {team: web}}
    spec:
      terminationGracePeriod: 1m30s
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
      taints: [{key: dedicated, value: web, effect: NoSchedule}]
`)
	if !IsNodePool(np) {
		t.Fatal("not a NodePool")
	}
	classes := ReadNodePool(np)
	if len(classes) != 2 || classes[0].Deadline.Seconds != 90 || classes[1].Deadline.Seconds != 120 || classes[0].Deadline.Raise == "" {
		t.Fatalf("classes: %+v", classes)
	}
	p := ReadPlacement(parse(t, "{nodeSelector: {karpenter.sh/nodepool: spot-pool}, tolerations: [{key: dedicated, operator: Exists}]}"))
	if !p.CanLand(classes[0]) || ReadPlacement(parse(t, "{nodeSelector: {karpenter.sh/nodepool: other}}")).CanLand(classes[0]) {
		t.Error("placement by the NodePool's name label")
	}
}

// TestReadAutoscaler: the flag in either form, else the default.
func TestReadAutoscaler(t *testing.T) {
	for spec, want := range map[string]int64{
		"{containers: [{name: ca, image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.34.0, command: [./cluster-autoscaler, --max-graceful-termination-sec=45]}]}": 45,
		"{containers: [{name: ca, image: registry.k8s.io/autoscaling/cluster-autoscaler@sha256:abc, args: [--max-graceful-termination-sec, \"90\"]}]}":                  90,
		"{containers: [{name: ca, image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.34.0}]}":                                                                     600,
	} {
		c, ok := ReadAutoscaler(parse(t, spec))
		if !ok || c.Deadline.Seconds != want || !c.Every {
			t.Errorf("%s: %+v, %v; want %ds", spec, c, ok, want)
		}
	}
	if _, ok := ReadAutoscaler(parse(t, "{containers: [{name: app, image: example.com/app}]}")); ok {
		t.Error("an application read as the cluster-autoscaler")
	}
}

// TestCheckConfig: a provider the data does not name is a config error
// naming the field and the providers; a known one, or none, is not.
func TestCheckConfig(t *testing.T) {
	err := CheckConfig(config.Nodes{Classes: []config.NodeClass{{Name: "a", Provider: "aws-spot"}, {Name: "b", Provider: "gcp-spot"}}})
	errs, ok := err.(config.Errors)
	if !ok || len(errs) != 1 || errs[0].Path != "spec.nodes.classes[1].provider" || !strings.Contains(errs[0].Message, "aws-spot, gke-spot") {
		t.Errorf("CheckConfig: %v", err)
	}
	if err := CheckConfig(config.Nodes{Classes: []config.NodeClass{{Name: "a", Deadline: config.NewDuration(30e9)}}}); err != nil {
		t.Errorf("a class with a deadline: %v", err)
	}
}
