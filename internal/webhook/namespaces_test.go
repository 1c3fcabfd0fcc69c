package webhook

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// TestWebhookNamespaceCache: the cache finds a Namespace with its labels
// and annotations, follows a change made after it synced, and finds
// nothing for an unknown name.
func TestWebhookNamespaceCache(t *testing.T) {
	client := fake.NewClientset(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: "shop", Labels: map[string]string{"istio-injection": "enabled"},
		Annotations: map[string]string{"linkerd.io/inject": "enabled"},
	}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	find, err := NamespaceCache(ctx, client, 0, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ns := find("shop")
	if ns == nil || ns.GetKind() != "Namespace" || ns.GetName() != "shop" ||
		ns.GetLabels()["istio-injection"] != "enabled" || ns.GetAnnotations()["linkerd.io/inject"] != "enabled" {
		t.Fatalf("shop: %v", ns)
	}
	if find("other") != nil {
		t.Error("an unknown Namespace was found")
	}
	if _, err := client.CoreV1().Namespaces().Update(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: "shop", Labels: map[string]string{"istio-injection": "disabled"},
	}}, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for find("shop").GetLabels()["istio-injection"] != "disabled" {
		if time.Now().After(deadline) {
			t.Fatal("the cache did not follow the update")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(find("shop").GetAnnotations()) != 0 {
		t.Error("a removed annotation is still read")
	}
}
