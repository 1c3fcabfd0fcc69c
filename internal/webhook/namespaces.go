package webhook

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// ClusterConfig is the in-cluster config, else the kubeconfig that
// KUBECONFIG or ~/.kube/config names; an error when there is neither.
func ClusterConfig() (*rest.Config, error) {
	if c, err := rest.InClusterConfig(); err == nil {
		return c, nil
	}
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		clientcmd.NewDefaultClientConfigLoadingRules(), &clientcmd.ConfigOverrides{}).ClientConfig()
}

// NamespaceCache watches the cluster's Namespaces (list and watch on
// namespaces is all it asks of RBAC) and returns a lookup of one by name,
// as a KRM item with its labels and annotations: the injectors' switches
// the engine reads. It returns once the cache has synced.
func NamespaceCache(ctx context.Context, client kubernetes.Interface, resync time.Duration, log *slog.Logger) (func(name string) *yaml.RNode, error) {
	factory := informers.NewSharedInformerFactory(client, resync)
	inf := factory.Core().V1().Namespaces()
	lister := inf.Lister()
	informer := inf.Informer()
	factory.Start(ctx.Done())
	syncCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), informer.HasSynced) {
		return nil, fmt.Errorf("the Namespace cache did not sync within 30s")
	}
	log.Info("namespace cache synced", "namespaces", len(informer.GetStore().ListKeys()))
	return namespaceLookup(lister), nil
}

// namespaceLookup finds a Namespace in the lister, nil when unknown.
func namespaceLookup(lister listersv1.NamespaceLister) func(string) *yaml.RNode {
	return func(name string) *yaml.RNode {
		ns, err := lister.Get(name)
		if err != nil {
			return nil
		}
		return namespaceItem(ns)
	}
}

// namespaceItem is the Namespace as the engine reads it from an input:
// its name, labels and annotations.
func namespaceItem(ns *corev1.Namespace) *yaml.RNode {
	n := yaml.NewMapRNode(nil)
	n.SetApiVersion("v1")
	n.SetKind("Namespace")
	_ = n.SetName(ns.Name)
	if len(ns.Labels) > 0 {
		_ = n.SetLabels(ns.Labels)
	}
	if len(ns.Annotations) > 0 {
		_ = n.SetAnnotations(ns.Annotations)
	}
	return n
}
