package workload_test

import (
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

const shopDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-1
  namespace: prod-eu
  labels:
    app.kubernetes.io/part-of: shop # the team's label
    tier: front
  annotations:
    team: payments
    sidecar-lifecycle.dev/owner: platform
spec:
  template:
    metadata:
      labels: {pod-only: "yes"}
      annotations: {pod-only: "yes"}
    spec:
      containers: [{name: app}]
`

func TestMatches(t *testing.T) {
	tests := []struct {
		name string
		sel  config.Selector
		want bool
	}{
		{"empty selector matches everything", config.Selector{}, true},
		{"kind exact", config.Selector{Kind: "Deployment"}, true},
		{"kind other", config.Selector{Kind: "StatefulSet"}, false},
		{"kind is case sensitive", config.Selector{Kind: "deployment"}, false},
		{"kind glob", config.Selector{Kind: "Deploy*"}, true},
		{"kind glob other", config.Selector{Kind: "Stateful*"}, false},
		{"group exact", config.Selector{Group: "apps"}, true},
		{"group other", config.Selector{Group: "batch"}, false},
		{"group glob", config.Selector{Group: "app?"}, true},
		{"version", config.Selector{Version: "v1"}, true},
		{"version glob", config.Selector{Version: "v1beta*"}, false},
		{"name glob ?", config.Selector{Name: "web-?"}, true},
		{"name glob class", config.Selector{Name: "web-[0-9]"}, true},
		{"name glob class other", config.Selector{Name: "web-[2-9]"}, false},
		{"name glob does not match a prefix only", config.Selector{Name: "web"}, false},
		{"namespace glob", config.Selector{Namespace: "prod-*"}, true},
		{"namespace other", config.Selector{Namespace: "staging-*"}, false},
		{"label equality", config.Selector{LabelSelector: "app.kubernetes.io/part-of=shop"}, true},
		{"label other value", config.Selector{LabelSelector: "app.kubernetes.io/part-of=blog"}, false},
		{"label set", config.Selector{LabelSelector: "tier in (front,back)"}, true},
		{"label not present", config.Selector{LabelSelector: "!legacy"}, true},
		{"label present negated", config.Selector{LabelSelector: "!tier"}, false},
		{"label conjunction", config.Selector{LabelSelector: "tier=front,app.kubernetes.io/part-of!=shop"}, false},
		{"pod template labels are not the workload's", config.Selector{LabelSelector: "pod-only"}, false},
		{"annotation selector", config.Selector{AnnotationSelector: "team=payments"}, true},
		{"annotation selector with prefix", config.Selector{AnnotationSelector: "sidecar-lifecycle.dev/owner in (platform,sre)"}, true},
		{"annotation selector other", config.Selector{AnnotationSelector: "team=search"}, false},
		{"pod template annotations are not the workload's", config.Selector{AnnotationSelector: "pod-only"}, false},
		{"every field must match", config.Selector{Kind: "Deployment", Namespace: "prod-*", LabelSelector: "tier=front", AnnotationSelector: "team=payments"}, true},
		{"one field off", config.Selector{Kind: "Deployment", Namespace: "prod-*", LabelSelector: "tier=back"}, false},
		{"bad glob never matches", config.Selector{Name: "web-["}, false},
		{"bad label selector never matches", config.Selector{LabelSelector: "tier in ("}, false},
	}
	w, ok := workload.Find(krmtest.Parse(t, shopDeployment), nil)
	if !ok {
		t.Fatal("not found")
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := workload.Matches(w, tc.sel); got != tc.want {
				t.Errorf("Matches(%+v) = %v, want %v", tc.sel, got, tc.want)
			}
		})
	}
}

func TestMatchesCoreGroup(t *testing.T) {
	w, ok := workload.Find(krmtest.Parse(t, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: []}\n"), nil)
	if !ok {
		t.Fatal("not found")
	}
	tests := []struct {
		sel  config.Selector
		want bool
	}{
		{config.Selector{Group: "apps"}, false},
		{config.Selector{Group: "*"}, true},
		{config.Selector{Version: "v1", Kind: "Pod"}, true},
		{config.Selector{Namespace: "default"}, false},
		{config.Selector{LabelSelector: "!app"}, true},
		{config.Selector{LabelSelector: "app"}, false},
	}
	for _, tc := range tests {
		if got := workload.Matches(w, tc.sel); got != tc.want {
			t.Errorf("Matches(%+v) = %v, want %v", tc.sel, got, tc.want)
		}
	}
}

func TestSelected(t *testing.T) {
	deployment := config.Selector{Kind: "Deployment"}
	statefulSet := config.Selector{Kind: "StatefulSet"}
	shop := config.Selector{LabelSelector: "app.kubernetes.io/part-of=shop"}
	prod := config.Selector{Namespace: "prod-*"}
	tests := []struct {
		name    string
		targets config.Targets
		want    bool
	}{
		{"no targets select everything", config.Targets{}, true},
		{"include matches", config.Targets{Include: []config.Selector{deployment}}, true},
		{"include does not match", config.Targets{Include: []config.Selector{statefulSet}}, false},
		{"include is any of", config.Targets{Include: []config.Selector{statefulSet, shop}}, true},
		{"include any of, none", config.Targets{Include: []config.Selector{statefulSet, {Name: "api"}}}, false},
		{"exclude only", config.Targets{Exclude: []config.Selector{prod}}, false},
		{"exclude only, no match", config.Targets{Exclude: []config.Selector{statefulSet}}, true},
		{"exclude wins over include", config.Targets{Include: []config.Selector{deployment}, Exclude: []config.Selector{shop}}, false},
		{"exclude any of", config.Targets{Include: []config.Selector{deployment}, Exclude: []config.Selector{statefulSet, {AnnotationSelector: "team=payments"}}}, false},
		{"exclude that does not match", config.Targets{Include: []config.Selector{deployment}, Exclude: []config.Selector{statefulSet}}, true},
		{"include entry ANDs its fields", config.Targets{Include: []config.Selector{{Kind: "Deployment", Namespace: "staging"}}}, false},
	}
	w, ok := workload.Find(krmtest.Parse(t, shopDeployment), nil)
	if !ok {
		t.Fatal("not found")
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := workload.Selected(w, tc.targets); got != tc.want {
				t.Errorf("Selected(%+v) = %v, want %v", tc.targets, got, tc.want)
			}
		})
	}
}
