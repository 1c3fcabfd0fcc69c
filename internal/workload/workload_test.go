package workload_test

import (
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// resource builds a resource whose pod spec (if any) sits at specPath and
// holds one container named after the kind.
func resource(apiVersion, kind, specPath string) string {
	var b strings.Builder
	b.WriteString("apiVersion: " + apiVersion + "\nkind: " + kind + "\nmetadata:\n  name: web # the workload\n  namespace: shop\n")
	parts := strings.Split(specPath, "/")
	indent := ""
	for _, p := range parts {
		b.WriteString(indent + p + ":\n")
		indent += "  "
	}
	b.WriteString(indent + "containers:\n" + indent + "- name: " + strings.ToLower(kind) + "\n")
	return b.String()
}

func TestFind(t *testing.T) {
	tests := []struct {
		name        string
		apiVersion  string
		kind        string
		at          string // where the pod spec is written
		extra       []config.PodSpecPath
		wantFound   bool
		wantGroup   string
		wantVersion string
		wantPath    []string
	}{
		{name: "Pod", apiVersion: "v1", kind: "Pod", at: "spec", wantFound: true, wantVersion: "v1", wantPath: []string{"spec"}},
		{name: "Deployment", apiVersion: "apps/v1", kind: "Deployment", at: "spec/template/spec", wantFound: true, wantGroup: "apps", wantVersion: "v1", wantPath: []string{"spec", "template", "spec"}},
		{name: "StatefulSet", apiVersion: "apps/v1", kind: "StatefulSet", at: "spec/template/spec", wantFound: true, wantGroup: "apps", wantVersion: "v1", wantPath: []string{"spec", "template", "spec"}},
		{name: "DaemonSet", apiVersion: "apps/v1", kind: "DaemonSet", at: "spec/template/spec", wantFound: true, wantGroup: "apps", wantVersion: "v1", wantPath: []string{"spec", "template", "spec"}},
		{name: "ReplicaSet", apiVersion: "apps/v1", kind: "ReplicaSet", at: "spec/template/spec", wantFound: true, wantGroup: "apps", wantVersion: "v1", wantPath: []string{"spec", "template", "spec"}},
		{name: "ReplicationController", apiVersion: "v1", kind: "ReplicationController", at: "spec/template/spec", wantFound: true, wantVersion: "v1", wantPath: []string{"spec", "template", "spec"}},
		{name: "Job", apiVersion: "batch/v1", kind: "Job", at: "spec/template/spec", wantFound: true, wantGroup: "batch", wantVersion: "v1", wantPath: []string{"spec", "template", "spec"}},
		{name: "CronJob", apiVersion: "batch/v1", kind: "CronJob", at: "spec/jobTemplate/spec/template/spec", wantFound: true, wantGroup: "batch", wantVersion: "v1",
			wantPath: []string{"spec", "jobTemplate", "spec", "template", "spec"}},
		{name: "Argo Rollout", apiVersion: "argoproj.io/v1alpha1", kind: "Rollout", at: "spec/template/spec", wantFound: true, wantGroup: "argoproj.io", wantVersion: "v1alpha1", wantPath: []string{"spec", "template", "spec"}},
		{name: "OpenKruise CloneSet", apiVersion: "apps.kruise.io/v1alpha1", kind: "CloneSet", at: "spec/template/spec", wantFound: true, wantGroup: "apps.kruise.io", wantVersion: "v1alpha1", wantPath: []string{"spec", "template", "spec"}},
		{name: "unknown CRD", apiVersion: "example.com/v1", kind: "Widget", at: "spec/template/spec"},
		{name: "Service", apiVersion: "v1", kind: "Service", at: "spec"},
		{name: "Deployment of another group", apiVersion: "example.com/v1", kind: "Deployment", at: "spec/template/spec"},
		{name: "Pod in a group", apiVersion: "example.com/v1", kind: "Pod", at: "spec"},
		{name: "Rollout of another group", apiVersion: "example.com/v1", kind: "Rollout", at: "spec/template/spec"},
		{
			name: "extra kind", apiVersion: "example.com/v1", kind: "Widget", at: "spec/pod",
			extra:     []config.PodSpecPath{{Group: "example.com", Kind: "Widget", Path: "spec/pod"}},
			wantFound: true, wantGroup: "example.com", wantVersion: "v1", wantPath: []string{"spec", "pod"},
		},
		{
			name: "extra kind with matching version", apiVersion: "example.com/v2", kind: "Widget", at: "spec/template/spec",
			extra:     []config.PodSpecPath{{Group: "example.com", Version: "v2", Kind: "Widget", Path: "/spec/template/spec/"}},
			wantFound: true, wantGroup: "example.com", wantVersion: "v2", wantPath: []string{"spec", "template", "spec"},
		},
		{
			name: "extra kind with other version", apiVersion: "example.com/v1", kind: "Widget", at: "spec/template/spec",
			extra: []config.PodSpecPath{{Group: "example.com", Version: "v2", Kind: "Widget", Path: "spec/template/spec"}},
		},
		{
			name: "extra kind of other group", apiVersion: "other.io/v1", kind: "Widget", at: "spec/template/spec",
			extra: []config.PodSpecPath{{Group: "example.com", Kind: "Widget", Path: "spec/template/spec"}},
		},
		{
			name: "extra wins over built-in", apiVersion: "apps/v1", kind: "Deployment", at: "spec/custom",
			extra:     []config.PodSpecPath{{Group: "apps", Kind: "Deployment", Path: "spec/custom"}},
			wantFound: true, wantGroup: "apps", wantVersion: "v1", wantPath: []string{"spec", "custom"},
		},
		{
			name: "extra does not hide other built-ins", apiVersion: "batch/v1", kind: "Job", at: "spec/template/spec",
			extra:     []config.PodSpecPath{{Group: "example.com", Kind: "Widget", Path: "spec/pod"}},
			wantFound: true, wantGroup: "batch", wantVersion: "v1", wantPath: []string{"spec", "template", "spec"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			node := krmtest.Parse(t, resource(tc.apiVersion, tc.kind, tc.at))
			w, ok := workload.Find(node, tc.extra)
			if ok != tc.wantFound {
				t.Fatalf("Find found = %v, want %v", ok, tc.wantFound)
			}
			if !ok {
				if w != nil {
					t.Errorf("want no workload, got %+v", w)
				}
				return
			}
			if w.Group != tc.wantGroup || w.Version != tc.wantVersion || w.Kind != tc.kind {
				t.Errorf("GVK = %q %q %q, want %q %q %q", w.Group, w.Version, w.Kind, tc.wantGroup, tc.wantVersion, tc.kind)
			}
			if w.Name != "web" || w.Namespace != "shop" {
				t.Errorf("name/namespace = %q/%q, want web/shop", w.Name, w.Namespace)
			}
			if w.Node != node {
				t.Error("Node is not the resource node")
			}
			if !reflect.DeepEqual(w.SpecPath, tc.wantPath) {
				t.Errorf("SpecPath = %q, want %q", w.SpecPath, tc.wantPath)
			}
			spec, err := w.PodSpec()
			if err != nil || spec == nil {
				t.Fatalf("PodSpec() = %v, %v", spec, err)
			}
			if got := spec.MustString(); got != "containers:\n- name: "+strings.ToLower(tc.kind)+"\n" {
				t.Errorf("PodSpec() is not the pod spec:\n%s", got)
			}
		})
	}
}

func TestFindNotAResource(t *testing.T) {
	tests := map[string]*yaml.RNode{
		"nil":      nil,
		"scalar":   yaml.NewScalarRNode("Pod"),
		"list":     yaml.NewListRNode("a"),
		"no kind":  yaml.MustParse("apiVersion: v1\nspec: {containers: []}\n"),
		"empty":    yaml.NewMapRNode(nil),
		"kind nil": yaml.MustParse("apiVersion: v1\nkind: null\n"),
	}
	for name, node := range tests {
		t.Run(name, func(t *testing.T) {
			if w, ok := workload.Find(node, nil); ok || w != nil {
				t.Errorf("Find = %+v, %v; want nil, false", w, ok)
			}
		})
	}
}

func TestPodSpecAbsent(t *testing.T) {
	w, ok := workload.Find(krmtest.Parse(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  replicas: 1\n"), nil)
	if !ok {
		t.Fatal("a Deployment is a workload even without a template")
	}
	spec, err := w.PodSpec()
	if err != nil || spec != nil {
		t.Errorf("PodSpec() = %v, %v; want nil, nil", spec, err)
	}
}

func TestTemplateMetaPathAndIsJob(t *testing.T) {
	tests := []struct {
		apiVersion, kind, at string
		extra                []config.PodSpecPath
		wantMeta             []string
		wantJob              bool
	}{
		{"v1", "Pod", "spec", nil, []string{"metadata"}, false},
		{"apps/v1", "Deployment", "spec/template/spec", nil, []string{"spec", "template", "metadata"}, false},
		{"batch/v1", "Job", "spec/template/spec", nil, []string{"spec", "template", "metadata"}, true},
		{"batch/v1", "CronJob", "spec/jobTemplate/spec/template/spec", nil, []string{"spec", "jobTemplate", "spec", "template", "metadata"}, true},
		{"argoproj.io/v1alpha1", "Rollout", "spec/template/spec", nil, []string{"spec", "template", "metadata"}, false},
		{"example.com/v1", "Job", "spec/template/spec", []config.PodSpecPath{{Group: "example.com", Kind: "Job", Path: "spec/template/spec"}}, []string{"spec", "template", "metadata"}, false},
		{"example.com/v1", "Widget", "spec/pod", []config.PodSpecPath{{Group: "example.com", Kind: "Widget", Path: "spec/pod"}}, []string{"spec", "metadata"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.apiVersion+"/"+tc.kind, func(t *testing.T) {
			w, ok := workload.Find(krmtest.Parse(t, resource(tc.apiVersion, tc.kind, tc.at)), tc.extra)
			if !ok {
				t.Fatal("not found")
			}
			if got := w.TemplateMetaPath(); !reflect.DeepEqual(got, tc.wantMeta) {
				t.Errorf("TemplateMetaPath() = %q, want %q", got, tc.wantMeta)
			}
			// The returned path is a copy: changing it must not change SpecPath.
			before := append([]string(nil), w.SpecPath...)
			p := w.TemplateMetaPath()
			p[0] = "changed"
			if !reflect.DeepEqual(w.SpecPath, before) {
				t.Errorf("TemplateMetaPath shares SpecPath: %q", w.SpecPath)
			}
			if got := w.IsJob(); got != tc.wantJob {
				t.Errorf("IsJob() = %v, want %v", got, tc.wantJob)
			}
		})
	}
}

func TestAnnotation(t *testing.T) {
	deployment := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    sidecar-lifecycle.dev/mode: native # workload
    sidecar-lifecycle.dev/skip: "true"
spec:
  template:
    metadata:
      annotations:
        # the pod template's own choice
        sidecar-lifecycle.dev/mode: ordered
        config.linkerd.io/proxy-await: disabled
        sidecar-lifecycle.dev/wait-before-exit: ""
    spec:
      containers: [{name: app}]
`
	cronJob := `apiVersion: batch/v1
kind: CronJob
metadata:
  name: nightly
  annotations: {sidecar-lifecycle.dev/mode: auto}
spec:
  jobTemplate:
    metadata:
      annotations: {sidecar-lifecycle.dev/skip: "job template, not pod template"}
    spec:
      template:
        metadata:
          annotations: {sidecar-lifecycle.dev/app-drain-delay: 5s}
        spec:
          containers: [{name: app}]
`
	pod := `apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations: {sidecar-lifecycle.dev/mode: native}
spec:
  containers: [{name: app}]
`
	tests := []struct {
		name, resource, key string
		want                string
		wantOK              bool
	}{
		{"pod template wins over workload", deployment, "sidecar-lifecycle.dev/mode", "ordered", true},
		{"workload metadata when the template has none", deployment, "sidecar-lifecycle.dev/skip", "true", true},
		{"template only", deployment, "config.linkerd.io/proxy-await", "disabled", true},
		{"empty value is present", deployment, "sidecar-lifecycle.dev/wait-before-exit", "", true},
		{"absent", deployment, "sidecar-lifecycle.dev/app-drain-delay", "", false},
		{"CronJob pod template", cronJob, "sidecar-lifecycle.dev/app-drain-delay", "5s", true},
		{"CronJob workload", cronJob, "sidecar-lifecycle.dev/mode", "auto", true},
		{"CronJob job template is neither", cronJob, "sidecar-lifecycle.dev/skip", "", false},
		{"Pod metadata", pod, "sidecar-lifecycle.dev/mode", "native", true},
		{"Pod absent", pod, "sidecar-lifecycle.dev/skip", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, ok := workload.Find(krmtest.Parse(t, tc.resource), nil)
			if !ok {
				t.Fatal("not found")
			}
			got, ok := w.Annotation(tc.key)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("Annotation(%q) = %q, %v; want %q, %v", tc.key, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

// TestPodFoundOnce: the pod spec and the template's metadata are looked up
// once per workload and stay the nodes the edit works on; With reads a
// copy of the resource afresh; TemplateMeta keeps the metadata it adds.
func TestPodFoundOnce(t *testing.T) {
	node := krmtest.Parse(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, annotations: {a: own}}\nspec:\n  template:\n    spec:\n      containers: [{name: app}]\n")
	w, _ := workload.Find(node, nil)
	spec, _ := w.PodSpec()
	if meta, err := w.Meta(); err != nil || meta != nil {
		t.Fatalf("Meta() = %v, %v on a template without metadata", meta, err)
	}
	meta, err := w.TemplateMeta()
	if err != nil || meta == nil {
		t.Fatalf("TemplateMeta() = %v, %v", meta, err)
	}
	if again, _ := w.Meta(); again != meta {
		t.Error("Meta() after TemplateMeta() is not the metadata it added")
	}
	if err := meta.PipeE(yaml.SetField(yaml.AnnotationsField, yaml.NewMapRNode(&map[string]string{"a": "template"}))); err != nil {
		t.Fatal(err)
	}
	if v, _ := w.Annotation("a"); v != "template" {
		t.Errorf("Annotation(a) = %q, want the template's, set on the node Meta returned", v)
	}
	if again, _ := w.PodSpec(); again != spec {
		t.Error("PodSpec() looked the pod spec up again")
	}
	copied := w.With(yaml.MustParse(node.MustString()))
	if cs, _ := copied.PodSpec(); cs == nil || cs == spec || cs.MustString() != spec.MustString() {
		t.Errorf("With: the copy's pod spec is %v, want its own node equal to the original", cs)
	}
	if cm, _ := copied.Meta(); cm == meta {
		t.Error("With: the copy reads the original's metadata")
	}
}
