package budget

import (
	"strings"
	"testing"
)

// TestLoadBalancerSources: the load balancer catalog reads, every source
// names a repository at a version, every fact cites one of them, and a
// fact whose source is not in sources, or an unknown field, does not read.
func TestLoadBalancerSources(t *testing.T) {
	f := LoadBalancers()
	for key, s := range f.Sources {
		if strings.Count(s.Repository, "/") != 1 || s.Version == "" {
			t.Errorf("sources.%s: %+v is not owner/name at a version", key, s)
		}
	}
	for field, source := range f.sourced() {
		if source == "" {
			t.Errorf("%s has no source", field)
		}
	}
	attributes, references := 0, 0
	for _, c := range f.Controllers {
		if c.Name == "" || c.Title == "" || (c.Attributes == nil && c.Reference == nil) {
			t.Errorf("controller %q: a name, a title and where its delay is read are required", c.Name)
		}
		if c.Attributes != nil && c.Attributes.Delay.Attribute != "" {
			attributes++
		}
		if c.Reference != nil && c.Reference.Object.Kind != "" {
			references++
		}
	}
	if attributes == 0 || references == 0 {
		t.Errorf("the catalog lacks its delays: %+v", f)
	}
	text := string(loadBalancersYAML)
	for _, bad := range []struct{ name, from, to string }{
		{"unknown source key", "source: elb ", "source: nowhere "},
		{"unknown field", "  service:\n    makes: NLB\n", "  service:\n    bogus: 1\n    makes: NLB\n"},
	} {
		if !strings.Contains(text, bad.from) {
			t.Fatalf("%s: the catalog has no %q", bad.name, bad.from)
		}
		if _, err := readLoadBalancers([]byte(strings.Replace(text, bad.from, bad.to, 1))); err == nil {
			t.Errorf("%s: read without an error", bad.name)
		}
	}
}
