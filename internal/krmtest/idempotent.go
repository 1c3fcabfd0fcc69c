package krmtest

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// CheckFilterIdempotent applies the filter made by newFilter to node twice:
// the second run must leave the node as the first left it and log nothing.
func CheckFilterIdempotent(t testing.TB, node *yaml.RNode, newFilter func(*report.Log) kio.Filter) {
	t.Helper()
	if _, err := newFilter(&report.Log{}).Filter([]*yaml.RNode{node}); err != nil {
		t.Fatal(err)
	}
	once := node.MustString()
	var second report.Log
	if _, err := newFilter(&second).Filter([]*yaml.RNode{node}); err != nil {
		t.Fatal(err)
	}
	if got := node.MustString(); got != once {
		t.Errorf("second run changed the node:\n%s\nwant:\n%s", got, once)
	}
	if len(second.Changes)+len(second.Warnings)+len(second.Errors) != 0 {
		t.Errorf("second run logged %+v", second)
	}
}
