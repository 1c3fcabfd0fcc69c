package ordered_test

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/ordered"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/podspec"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

func moveFirst(names ...string) func(*report.Log) kio.Filter {
	return func(log *report.Log) kio.Filter { return ordered.MoveFirst{Names: names, Log: log} }
}

func TestMoveFirst(t *testing.T) {
	tests := []filterCase{
		{
			name: "comments move with the container",
			spec: `# the pod spec
containers:
# the application
- name: app # serves traffic
  image: app:1
  # end of app
# the mesh proxy
- name: linkerd-proxy # injected by hand
  image: proxy:1
  # end of proxy
initContainers:
- name: linkerd-init # runs first anyway
`,
			filter: moveFirst("linkerd-proxy"),
			want: `# the pod spec
containers:
# the mesh proxy
- name: linkerd-proxy # injected by hand
  image: proxy:1
  # end of proxy
# the application
- name: app # serves traffic
  image: app:1
  # end of app
initContainers:
- name: linkerd-init # runs first anyway
`,
			changes: []string{"moved linkerd-proxy to the front of containers"},
		},
		{
			name: "the first container's head comment stays with it",
			spec: `containers:
# app: keep this above app
- name: app
- name: istio-proxy
`,
			filter: moveFirst("istio-proxy"),
			want: `containers:
- name: istio-proxy
# app: keep this above app
- name: app
`,
			changes: []string{"moved istio-proxy to the front of containers"},
		},
		{
			name:    "flow-style list",
			spec:    "containers: [{name: a}, {name: b}, {name: c}] # flow\n",
			filter:  moveFirst("c", "a"),
			want:    "containers: [{name: c}, {name: a}, {name: b}] # flow\n",
			changes: []string{"moved c, a to the front of containers"},
		},
		{
			name:    "sidecars in config order, others keep their order",
			spec:    "containers:\n- name: app\n- name: cloud-sql-proxy\n- name: worker\n- name: linkerd-proxy\n",
			filter:  moveFirst("linkerd-proxy", "cloud-sql-proxy"),
			want:    "containers:\n- name: linkerd-proxy\n- name: cloud-sql-proxy\n- name: app\n- name: worker\n",
			changes: []string{"moved linkerd-proxy, cloud-sql-proxy to the front of containers"},
		},
		{
			name:      "already first: bytes identical, nothing logged",
			spec:      "containers:\n# proxy first\n- name: linkerd-proxy # ok\n  image: proxy\n- name: app\n",
			filter:    moveFirst("linkerd-proxy"),
			unchanged: true,
		},
		{
			name:      "several already in order",
			spec:      "containers: [{name: a}, {name: b}, {name: app}]\n",
			filter:    moveFirst("a", "b"),
			unchanged: true,
		},
		{
			name:    "two sidecars in the wrong order are swapped",
			spec:    "containers: [{name: b}, {name: a}, {name: app}]\n",
			filter:  moveFirst("a", "b"),
			want:    "containers: [{name: a}, {name: b}, {name: app}]\n",
			changes: []string{"moved a, b to the front of containers"},
		},
		{
			name:      "sidecar absent",
			spec:      "containers:\n- name: app\n- name: worker\n",
			filter:    moveFirst("linkerd-proxy"),
			unchanged: true,
		},
		{
			name:      "empty list",
			spec:      "containers: []\ninitContainers: [{name: linkerd-proxy}]\n",
			filter:    moveFirst("linkerd-proxy"),
			unchanged: true,
		},
		{
			name:      "no containers field",
			spec:      "restartPolicy: Never\n",
			filter:    moveFirst("linkerd-proxy"),
			unchanged: true,
		},
		{
			name:      "containers not a list",
			spec:      "containers: {name: linkerd-proxy}\n",
			filter:    moveFirst("linkerd-proxy"),
			unchanged: true,
		},
		{
			name:      "no names",
			spec:      "containers: [{name: b}, {name: a}]\n",
			filter:    moveFirst(),
			unchanged: true,
		},
		{
			name: "initContainers are not touched",
			spec: `initContainers:
- name: migrate # user's init
- name: istio-proxy # a native sidecar
containers:
- name: app
- name: linkerd-proxy
`,
			filter: moveFirst("istio-proxy", "linkerd-proxy", "migrate"),
			want: `initContainers:
- name: migrate # user's init
- name: istio-proxy # a native sidecar
containers:
- name: linkerd-proxy
- name: app
`,
			changes: []string{"moved linkerd-proxy to the front of containers"},
		},
		{
			name:    "a name given twice moves its container once",
			spec:    "containers: [{name: app}, {name: s}]\n",
			filter:  moveFirst("s", "s"),
			want:    "containers: [{name: s}, {name: app}]\n",
			changes: []string{"moved s to the front of containers"},
		},
		{
			name: "a duplicate name moves once and nothing is lost",
			spec: "containers:\n- name: app\n- name: s # first\n- name: s # second\n",
			// podspec.CheckNames rejects such a pod before the filters run;
			// the filter itself must still not drop or duplicate a node.
			filter:  moveFirst("s"),
			want:    "containers:\n- name: s # first\n- name: app\n- name: s # second\n",
			changes: []string{"moved s to the front of containers"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, tc.run)
	}
}

func TestMoveFirstEveryNode(t *testing.T) {
	specs := []*yaml.RNode{
		yaml.MustParse("containers: [{name: app}, {name: s}]\n"),
		yaml.MustParse("containers: [{name: s}, {name: app}]\n"),
		yaml.MustParse("containers: [{name: x}, {name: y}, {name: s}]\n"),
	}
	log := &report.Log{}
	out, err := ordered.MoveFirst{Names: []string{"s"}, Log: log}.Filter(specs)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(specs) {
		t.Fatalf("got %d nodes, want %d", len(out), len(specs))
	}
	want := [][]string{{"s", "app"}, {"s", "app"}, {"s", "x", "y"}}
	for i, spec := range out {
		got := podspec.Names(spec, podspec.Containers)
		if len(got) != len(want[i]) {
			t.Errorf("spec %d: names %q, want %q", i, got, want[i])
			continue
		}
		for j := range got {
			if got[j] != want[i][j] {
				t.Errorf("spec %d: names %q, want %q", i, got, want[i])
				break
			}
		}
	}
	if len(log.Changes) != 2 {
		t.Errorf("changes = %q, want one per moved spec", log.Changes)
	}
}

func TestMoveFirstIdempotent(t *testing.T) {
	spec := krmtest.Parse(t, "containers:\n# app\n- name: app\n# proxy\n- name: linkerd-proxy # line\n")
	krmtest.CheckFilterIdempotent(t, spec, func(log *report.Log) kio.Filter {
		return ordered.MoveFirst{Names: []string{"linkerd-proxy"}, Log: log}
	})
}
