package driver_test

import (
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
)

// TestAnchorsAcrossItems: an anchor defined in one item and aliased in a
// later one (the streaming path parses the items from the one to the
// other together: see aliasGroup). Whichever item the function edits, the
// output is strict YAML, every item means what it meant plus the edits,
// both paths agree, and a second run changes nothing.
func TestAnchorsAcrossItems(t *testing.T) {
	const head = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
	pod := func(name, containers string) string {
		return "- apiVersion: v1\n  kind: Pod\n  metadata: {name: " + name + "}\n  spec:\n    containers:\n" + containers
	}
	edited := pod("web", "    - name: app\n      env: &env\n      - {name: REGION, value: eu}\n      resources: &res {requests: {cpu: 10m}}\n"+
		"    - name: linkerd-proxy\n      env: *env\n")
	for _, tc := range []struct {
		name, items string
		want        []string // in the output
	}{
		{
			name:  "anchor in an edited item, alias in a later one",
			items: edited + pod("other", "    - name: other\n      env: *env\n      resources: *res\n"),
			want:  []string{"- name: other\n      env:\n      - {name: REGION, value: eu}\n      resources: {requests: {cpu: 10m}}"},
		},
		{
			name:  "anchor in an untouched item, alias in an edited one",
			items: pod("base", "    - name: base\n      env: &shared\n      - {name: A, value: \"1\"}\n") + pod("web", "    - name: app\n    - name: linkerd-proxy\n      env: *shared\n"),
			want:  []string{"env: &shared", "- name: linkerd-proxy\n      env:\n      - {name: A, value: \"1\"}"},
		},
		{
			name: "a name an edited item takes over",
			items: pod("first", "    - name: first\n      resources: &res {requests: {cpu: 1m}}\n") + edited +
				pod("last", "    - name: last\n      resources: *res\n"),
			want: []string{"resources: &res {requests: {cpu: 1m}}", "- name: last\n      resources: {requests: {cpu: 10m}}"},
		},
		{
			name: "a sidecar container aliased from another workload",
			items: pod("first", "    - name: app\n    - &proxy\n      name: linkerd-proxy\n      image: proxy:2\n") +
				pod("second", "    - name: app\n    - *proxy\n"),
			want: []string{"metadata: {name: second}\n  spec:\n    ", "- name: linkerd-proxy\n      image: proxy:2\n"},
		},
		{
			name: "anchor in an edited entry of a List that keeps another anchor, alias in a later item",
			items: "- apiVersion: v1\n  kind: List\n  metadata: {name: live, labels: &live {from: kubectl}}\n  items:\n" +
				"  " + strings.ReplaceAll(strings.TrimSuffix(edited, "\n"), "\n", "\n  ") + "\n" +
				"  - {apiVersion: v1, kind: ConfigMap, metadata: {name: c, labels: *live}}\n" +
				pod("other", "    - name: other\n      env: *env\n      resources: *res\n"),
			want: []string{"labels: &live {from: kubectl}", "- name: other\n      env:\n      - {name: REGION, value: eu}\n      resources: {requests: {cpu: 10m}}"},
		},
		{
			name:  "merge key of another item's anchor",
			items: edited + pod("merged", "    - <<: {name: merged}\n      resources: {<<: *res, limits: {cpu: 1}}\n"),
			want:  []string{"resources: {!!merge <<: {requests: {cpu: 10m}}, limits: {cpu: 1}}"},
		},
	} {
		for _, mode := range []string{"ordered", "native"} {
			t.Run(tc.name+"/"+mode, func(t *testing.T) {
				in := []byte(head + tc.items + "functionConfig:\n  apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\n  kind: SidecarLifecycle\n" +
					"  metadata: {name: c}\n  spec: {mode: " + mode + ", sidecars: [{preset: linkerd, ifAbsent: skip}]}\n")
				out, err := run(t, in)
				if err != nil {
					t.Fatalf("run: %v\n%s", err, out)
				}
				if err := krmtest.Strict(out); err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
				for _, w := range tc.want {
					if !strings.Contains(string(out), w) {
						t.Errorf("output lacks %q:\n%s", w, out)
					}
				}
				for _, e := range krmtest.Check(in, out) {
					t.Error(e)
				}
				if streamed, problem := compareRuns(in); !streamed || problem != "" {
					t.Errorf("streamed %v: %s", streamed, problem)
				}
				checkIdempotent(t, out)
			})
		}
	}
}

// TestShapeSeeds runs the fuzz seeds of YAML shapes on their own: each run
// that succeeds writes strict YAML, keeps the invariants and is a fixed
// point; both paths agree; a duplicate key fails.
func TestShapeSeeds(t *testing.T) {
	for i, seed := range shapeSeeds {
		in := []byte(seed)
		out, err := run(t, in)
		if strings.Contains(seed, "terminationGracePeriodSeconds: 2") != (err != nil) {
			t.Errorf("seed %d: run error %v", i, err)
		}
		if err == nil {
			if err := krmtest.Strict(out); err != nil {
				t.Errorf("seed %d: %v", i, err)
			}
			checkIdempotent(t, out)
		}
		for _, e := range krmtest.Check(in, out) {
			t.Errorf("seed %d: %v", i, e)
		}
		if _, problem := compareRuns(in); problem != "" {
			t.Errorf("seed %d: %s", i, problem)
		}
	}
}

// TestAliasesExpandingTooFar: an item whose aliases would expand to far
// more than its size is an error, not a hang, whether or not the function
// edits it: a strict YAML reader rejects it too.
func TestAliasesExpandingTooFar(t *testing.T) {
	laughs := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i, prev := 'b', 'a'; i <= 'i'; i, prev = i+1, i {
		laughs += string(i) + ": &" + string(i) + " [" + strings.Repeat("*"+string(prev)+", ", 9) + "*" + string(prev) + "]\n"
	}
	indent := func(s, by string) string {
		return by + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+by) + "\n"
	}
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: app}, {name: linkerd-proxy}]\n  laughs:\n" + indent(laughs, "    ")
	configMap := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n" + indent(laughs, "  ")
	for name, items := range map[string]string{"workload": pod, "not a workload": configMap} {
		t.Run(name, func(t *testing.T) {
			rl := []byte("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- " + indent(items, "  ")[2:])
			out, err := run(t, rl)
			if err == nil {
				t.Fatal("run succeeded, want error results")
			}
			if !strings.Contains(string(out), "expand to more than ten times its size") {
				t.Errorf("no error result about the expansion:\n%.2000s", out)
			}
			for _, e := range krmtest.Check(rl, out) {
				t.Error(e)
			}
		})
	}
}
