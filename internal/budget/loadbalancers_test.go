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
	if f.AWS.DeregistrationDelay.Default != 300 || f.AWS.DeregistrationDelay.Attribute == "" || f.GKE.BackendConfig.Kind == "" {
		t.Errorf("the catalog lacks its delays: %+v", f)
	}
	text := string(loadBalancersYAML)
	for _, bad := range []struct{ name, from, to string }{
		{"unknown source key", "source: elb ", "source: nowhere "},
		{"unknown field", "  nlbClass:\n", "  bogus: 1\n  nlbClass:\n"},
	} {
		if !strings.Contains(text, bad.from) {
			t.Fatalf("%s: the catalog has no %q", bad.name, bad.from)
		}
		if _, err := readLoadBalancers([]byte(strings.Replace(text, bad.from, bad.to, 1))); err == nil {
			t.Errorf("%s: read without an error", bad.name)
		}
	}
}
