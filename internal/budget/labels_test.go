package budget

import (
	"slices"
	"testing"

	"github.com/kptdev/krm-functions-sdk/go/fn"
)

// TestPackedLabels: a workload's labels, once the Collector has packed them,
// match a selector as the map did: every key and value, no prefix taken for
// a key, and a label with a zero byte keeps its map.
func TestPackedLabels(t *testing.T) {
	labels := map[string]string{"app": "api", "ab": "x", "app.kubernetes.io/name": "", "tier": "web"}
	selectors := []map[string]string{
		{"app": "api"}, {"app": "ap"}, {"a": "x"}, {"ab": "x", "tier": "web"}, {"app.kubernetes.io/name": ""},
		{"tier": "web", "missing": ""}, {"app": "api\x00"}, {},
	}
	var c Collector
	w := &Workload{Labels: labels}
	c.Add(Fact{Workload: w})
	if w.Labels != nil || w.labels == "" {
		t.Fatalf("the Collector kept the map (%v) or packed nothing (%q)", w.Labels, w.labels)
	}
	for _, sel := range selectors {
		want := true
		for k, v := range sel {
			if got, ok := labels[k]; !ok || got != v {
				want = false
			}
		}
		if got := w.matches(sel); got != want {
			t.Errorf("selector %q: matches %v, the map %v", sel, got, want)
		}
	}
	zero := &Workload{Labels: map[string]string{"a\x00b": "c"}}
	c.Add(Fact{Workload: zero})
	if zero.Labels == nil || !zero.matches(map[string]string{"a\x00b": "c"}) || zero.matches(map[string]string{"a": "b"}) {
		t.Errorf("a label with a zero byte: map %v, packed %q", zero.Labels, zero.labels)
	}
}

// TestRoutesStayInNamespace: a Service's selector picks the workloads of
// its own namespace only, in the order they came.
func TestRoutesStayInNamespace(t *testing.T) {
	ref := func(kind, ns, name string) Ref {
		return Ref{Resource: &fn.ResourceRef{Kind: kind, Namespace: ns, Name: name}}
	}
	var c Collector
	c.Add(Fact{Workload: &Workload{Ref: ref("Deployment", "shop", "api"), Labels: map[string]string{"app": "api"}}})
	c.Add(Fact{Workload: &Workload{Ref: ref("Deployment", "bank", "api"), Labels: map[string]string{"app": "api"}}})
	c.Add(Fact{Workload: &Workload{Ref: ref("Deployment", "shop", "api-2"), Labels: map[string]string{"app": "api", "v": "2"}}})
	c.Add(Fact{Service: &Service{Ref: ref("Service", "shop", "api"), Selector: map[string]string{"app": "api"}, Controller: &LoadBalancers().Controllers[0], Serves: true}})
	var got []string
	for _, r := range c.Routes() {
		got = append(got, r.Workload.Resource.Namespace+"/"+r.Workload.Resource.Name)
	}
	if want := []string{"shop/api", "shop/api-2"}; !slices.Equal(got, want) {
		t.Errorf("the Service routes to %v, want %v", got, want)
	}
}
