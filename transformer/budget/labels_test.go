package budget

import "testing"

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
