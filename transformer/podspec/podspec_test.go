package podspec_test

import (
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/podspec"
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

func TestCheckNames(t *testing.T) {
	tests := []struct {
		name    string
		spec    string
		wantErr string // "" means valid
	}{
		{"valid", mixed, ""},
		{"empty lists", "containers: []\ninitContainers: []\n", ""},
		{"no lists", "restartPolicy: Always\n", ""},
		{"duplicate in containers", `containers:
- name: app # first
- name: linkerd-proxy
- name: app # second
`, `container name "app" is used twice in containers: container names must be unique`},
		{"duplicate in flow containers", "containers: [{name: a}, {name: a}]\n", `"a" is used twice in containers`},
		{"duplicate in initContainers", "initContainers: [{name: i}, {name: i}]\ncontainers: [{name: a}]\n", `"i" is used twice in initContainers`},
		{"duplicate across lists", `containers:
- name: linkerd-proxy
initContainers:
- name: linkerd-proxy # a native sidecar of the same name
`, `container name "linkerd-proxy" is used twice in initContainers and containers`},
		{"container without name", "containers: [{name: a}, {image: b}]\n", "containers[1] has no name"},
		{"container with empty name", "initContainers: [{name: \"\"}]\n", "initContainers[0] has no name"},
		{"container that is not a mapping", "containers: [app]\n", "containers[0] has no name"},
		{"containers not a list", "containers: {name: app}\n", "containers is not a list"},
		{"initContainers not a list", "initContainers: init\ncontainers: []\n", "initContainers is not a list"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := podspec.CheckNames(krmtest.Parse(t, tc.spec))
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.wantErr != "" && err == nil:
				t.Errorf("want error %q, got none", tc.wantErr)
			case tc.wantErr != "" && !strings.Contains(err.Error(), tc.wantErr):
				t.Errorf("error %q does not contain %q", err, tc.wantErr)
			}
		})
	}
}
