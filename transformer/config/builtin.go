package config

import "slices"

// BuiltInKinds returns the pod-bearing kinds the function knows by group
// and kind, with the path of their pod spec; spec.podSpecPaths adds others.
func BuiltInKinds() []PodSpecPath { return slices.Clone(builtInKinds) }

// builtInKinds are the kinds BuiltInKinds returns.
var builtInKinds = []PodSpecPath{
	{Group: "", Kind: "Pod", Path: "spec"},
	{Group: "apps", Kind: "Deployment", Path: "spec/template/spec"},
	{Group: "apps", Kind: "StatefulSet", Path: "spec/template/spec"},
	{Group: "apps", Kind: "DaemonSet", Path: "spec/template/spec"},
	{Group: "apps", Kind: "ReplicaSet", Path: "spec/template/spec"},
	{Group: "", Kind: "ReplicationController", Path: "spec/template/spec"},
	{Group: "batch", Kind: "Job", Path: "spec/template/spec"},
	{Group: "batch", Kind: "CronJob", Path: "spec/jobTemplate/spec/template/spec"},
	{Group: "argoproj.io", Kind: "Rollout", Path: "spec/template/spec"},
	{Group: "apps.kruise.io", Kind: "CloneSet", Path: "spec/template/spec"},
}

// builtInKind returns the built-in kind of the group, or false.
func builtInKind(group, kind string) (PodSpecPath, bool) {
	for _, b := range builtInKinds {
		if b.Group == group && b.Kind == kind {
			return b, true
		}
	}
	return PodSpecPath{}, false
}
