package webhook

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestWebhookEditsPodsControllersCreate: a pod a Job (or a ReplicaSet)
// creates comes to admission with its controller's ownerReference; the
// webhook edits it as mutate edits the same pod without one, where render
// time leaves such a pod to its controller.
func TestWebhookEditsPodsControllersCreate(t *testing.T) {
	h := newHandler(t, nil)
	plain := podJSON(t)
	owned, err := yaml.Parse(string(read(t, "pod.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	ref := yaml.MustParse("- {apiVersion: batch/v1, kind: Job, name: api, uid: 5f3c, controller: true, blockOwnerDeletion: true}")
	if err := owned.PipeE(yaml.Lookup("metadata"), yaml.SetField("ownerReferences", ref)); err != nil {
		t.Fatal(err)
	}
	ownedJSON, err := owned.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	_, want := post(t, h.Mutate(), reviewBody(t, "a", plain))
	_, got := post(t, h.Mutate(), reviewBody(t, "b", ownedJSON))
	if want == nil || want.Patch == nil || got == nil || got.Patch == nil {
		t.Fatalf("no patch: %+v / %+v", want, got)
	}
	if !sameJSON(t, applyPatch(t, ownedJSON, got), addOwner(t, applyPatch(t, plain, want), ref)) {
		t.Errorf("the owned pod's patch differs from the plain pod's")
	}
	for _, w := range got.Warnings {
		if strings.Contains(w, "controls") {
			t.Errorf("warning %q", w)
		}
	}
}

// addOwner is the pod with ref as its ownerReferences.
func addOwner(t *testing.T, pod []byte, ref *yaml.RNode) []byte {
	t.Helper()
	n, err := yaml.Parse(string(pod))
	if err != nil {
		t.Fatal(err)
	}
	if err := n.PipeE(yaml.Lookup("metadata"), yaml.SetField("ownerReferences", ref)); err != nil {
		t.Fatal(err)
	}
	b, err := n.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
