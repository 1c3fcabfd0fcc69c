package deadline

import (
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// TestCuts: the deadline cuts what ends after it, not what fits; the
// pod's own shorter grace leaves it to the grace-period check; a
// critical pod gets the critical deadline of graceful node shutdown.
func TestCuts(t *testing.T) {
	classes := FromConfig(config.Nodes{Shutdown: config.NodeShutdown{GracePeriod: config.NewDuration(30e9), CriticalPodsGracePeriod: config.NewDuration(10e9)}})
	s := Shutdown{Grace: 60, Exits: []Exit{{Who: "the preStop of app", At: 25}, {Who: "the preStop of proxy", At: 15}}}
	cuts := Cuts(Placement{}, s, nil, classes)
	if len(cuts) != 1 || cuts[0].Effective != 20 || len(cuts[0].Cut) != 1 || cuts[0].Cut[0].At != 25 {
		t.Fatalf("cuts: %+v", cuts)
	}
	msg := cuts[0].Message()
	for _, want := range []string{"graceful node shutdown", "cut at 20s", "the preStop of app ends at 25s", "raise the kubelets' shutdownGracePeriod"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if cuts := Cuts(Placement{Critical: true}, s, nil, classes); len(cuts) != 0 {
		t.Errorf("a critical pod gets 30s, which its shutdown fits: %+v", cuts)
	}
	if cuts := Cuts(Placement{}, Shutdown{Grace: 15, Exits: s.Exits}, nil, classes); len(cuts) != 0 {
		t.Errorf("the pod's own grace is shorter: %+v", cuts)
	}
	if cuts := Cuts(Placement{}, Shutdown{Grace: 60, Exits: []Exit{{Who: "x", At: 20}}}, nil, classes); len(cuts) != 0 {
		t.Errorf("a shutdown that fits is cut: %+v", cuts)
	}
}
