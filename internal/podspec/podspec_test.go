package podspec_test

import (
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/podspec"
)

const mixed = `# a pod spec with both lists
initContainers:
- name: linkerd-init # the mesh's
  image: init
- name: migrate
containers: [{name: app, image: app}, {name: linkerd-proxy}] # flow style
`

func TestListAndNames(t *testing.T) {
	tests := []struct {
		name, spec, field string
		wantList          bool
		wantNames         []string
	}{
		{"block list", mixed, podspec.InitContainers, true, []string{"linkerd-init", "migrate"}},
		{"flow list", mixed, podspec.Containers, true, []string{"app", "linkerd-proxy"}},
		{"empty list", "containers: []\n", podspec.Containers, true, nil},
		{"absent", "containers: []\n", podspec.InitContainers, false, nil},
		{"null", "initContainers:\ncontainers: []\n", podspec.InitContainers, false, nil},
		{"not a list", "containers: {name: app}\n", podspec.Containers, false, nil},
		{"scalar", "containers: app\n", podspec.Containers, false, nil},
		{"container without name", "containers: [{image: x}, {name: b}]\n", podspec.Containers, true, []string{"", "b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := krmtest.Parse(t, tc.spec)
			if got := podspec.List(spec, tc.field); (got != nil) != tc.wantList {
				t.Errorf("List(%s) = %v, want a list: %v", tc.field, got, tc.wantList)
			}
			if got := podspec.Names(spec, tc.field); !reflect.DeepEqual(got, tc.wantNames) {
				t.Errorf("Names(%s) = %q, want %q", tc.field, got, tc.wantNames)
			}
		})
	}
}

func TestName(t *testing.T) {
	tests := []struct {
		node string
		want string
	}{
		{"name: app\nimage: x\n", "app"},
		{"image: x\nname: last\n", "last"},
		{"image: x\n", ""},
		{"app\n", ""},
		{"[name, app]\n", ""},
		{"{}\n", ""},
	}
	for _, tc := range tests {
		if got := podspec.Name(krmtest.Parse(t, tc.node).YNode()); got != tc.want {
			t.Errorf("Name(%q) = %q, want %q", tc.node, got, tc.want)
		}
	}
}

func TestFind(t *testing.T) {
	spec := krmtest.Parse(t, mixed)
	tests := []struct {
		field, name string
		wantImage   string // "" means not found
	}{
		{podspec.InitContainers, "linkerd-init", "init"},
		{podspec.Containers, "app", "app"},
		{podspec.Containers, "linkerd-proxy", "-"},
		{podspec.Containers, "linkerd-init", ""},
		{podspec.InitContainers, "app", ""},
		{podspec.Containers, "missing", ""},
		{"ephemeralContainers", "app", ""},
	}
	for _, tc := range tests {
		t.Run(tc.field+"/"+tc.name, func(t *testing.T) {
			c := podspec.Find(spec, tc.field, tc.name)
			if tc.wantImage == "" {
				if c != nil {
					t.Errorf("Find = %s, want nil", c.MustString())
				}
				return
			}
			if c == nil {
				t.Fatal("Find = nil")
			}
			if got := podspec.Name(c.YNode()); got != tc.name {
				t.Errorf("found %q", got)
			}
			image := "-"
			if n := c.Field("image"); n != nil {
				image = yaml.GetValue(n.Value)
			}
			if image != tc.wantImage {
				t.Errorf("image = %q, want %q", image, tc.wantImage)
			}
		})
	}

	// The found node is the one in the spec: an edit through it shows in the spec.
	c := podspec.Find(spec, podspec.Containers, "app")
	if err := c.PipeE(yaml.SetField("image", yaml.NewStringRNode("app:2"))); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(spec.MustString(), "{name: app, image: 'app:2'}") {
		t.Errorf("edit through Find is not in the spec:\n%s", spec.MustString())
	}
}

func TestAll(t *testing.T) {
	tests := []struct {
		spec string
		want []string
	}{
		{mixed, []string{"linkerd-init", "migrate", "app", "linkerd-proxy"}},
		{"containers: [{name: a}]\n", []string{"a"}},
		{"initContainers: [{name: i}]\n", []string{"i"}},
		{"containers: []\ninitContainers: []\n", nil},
		{"{}\n", nil},
	}
	for _, tc := range tests {
		var got []string
		for _, c := range podspec.All(krmtest.Parse(t, tc.spec)) {
			got = append(got, podspec.Name(c.YNode()))
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("All(%q) = %q, want %q", tc.spec, got, tc.want)
		}
	}
}
