package budget

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
)

// loadBalancersYAML is the catalog of the load balancers the budget reads.
//
//go:embed loadbalancers.yaml
var loadBalancersYAML []byte

// LoadBalancerFacts are what the budget knows of the load balancers whose
// deregistration delay it reads, as loadbalancers.yaml states it: each
// fact with the source it was read in.
type LoadBalancerFacts struct {
	// Sources are the places the facts were read, by key.
	Sources map[string]preset.Source `json:"sources"`
	// AWS is the AWS Load Balancer Controller's ALBs and NLBs.
	AWS AWSFacts `json:"aws"`
	// GKE is GKE's Ingress controller and its BackendConfigs.
	GKE GKEFacts `json:"gke"`
}

// AWSFacts are the AWS load balancers' keys and default.
type AWSFacts struct {
	// Title names the controller in the docs.
	Title string `json:"title"`
	// IngressClass is the Ingress class the controller serves.
	IngressClass ValueFact `json:"ingressClass"`
	// AnnotationPrefix starts every Ingress annotation of the controller:
	// an Ingress with one is served by it too.
	AnnotationPrefix ValueFact `json:"annotationPrefix"`
	// IngressAttributes is the target group attributes annotation of an
	// Ingress, which its backend Services may set too, with precedence.
	IngressAttributes AnnotationFact `json:"ingressAttributes"`
	// ServiceAttributes is the target group attributes annotation of a
	// Service of type LoadBalancer.
	ServiceAttributes AnnotationFact `json:"serviceAttributes"`
	// NLBClass is the loadBalancerClass of a Service the controller serves.
	NLBClass ValueFact `json:"nlbClass"`
	// NLBType is the annotation whose values make a Service of type
	// LoadBalancer a Network Load Balancer.
	NLBType AnnotationFact `json:"nlbType"`
	// DeregistrationDelay is the target group attribute that holds the
	// delay, and its default.
	DeregistrationDelay DelayFact `json:"deregistrationDelay"`
}

// GKEFacts are GKE's BackendConfig keys.
type GKEFacts struct {
	// Title names the controller in the docs.
	Title string `json:"title"`
	// ServiceAnnotations are the Service annotations that name its
	// BackendConfigs, in the order the controller reads them.
	ServiceAnnotations KeysFact `json:"serviceAnnotations"`
	// BackendConfig is the kind that holds the draining timeout.
	BackendConfig KindFact `json:"backendConfig"`
}

// ValueFact is one value and where it was read.
type ValueFact struct {
	// Value is the value.
	Value string `json:"value"`
	// Source is "<source key> <path>".
	Source string `json:"source"`
}

// AnnotationFact is an annotation, with the values that count when given.
type AnnotationFact struct {
	// Annotation is the annotation's key.
	Annotation string `json:"annotation"`
	// Values are the values that count; empty when any value is read.
	Values []string `json:"values,omitempty"`
	// Source is "<source key> <path>".
	Source string `json:"source"`
}

// KeysFact is a list of annotation keys and where they were read.
type KeysFact struct {
	// Keys are the keys, in the order they are read.
	Keys []string `json:"keys"`
	// Source is "<source key> <path>".
	Source string `json:"source"`
}

// DelayFact is the setting that holds a deregistration delay, and its default.
type DelayFact struct {
	// Attribute is the setting's key.
	Attribute string `json:"attribute"`
	// Default is the delay when the setting is absent, in seconds.
	Default int64 `json:"default"`
	// Says names the default in messages.
	Says string `json:"says"`
	// Source is "<source key> <path>".
	Source string `json:"source"`
}

// KindFact is a kind that holds a delay in one of its fields.
type KindFact struct {
	// Group is the kind's API group.
	Group string `json:"group"`
	// Kind is the kind.
	Kind string `json:"kind"`
	// Field is the field's path, its keys joined with dots.
	Field string `json:"field"`
	// Default is the delay when the field is absent, in seconds.
	Default int64 `json:"default"`
	// Says what the default stands for, for the docs.
	Says string `json:"says"`
	// Source is "<source key> <path>".
	Source string `json:"source"`
}

// LoadBalancers returns the load balancer catalog, read once; a catalog
// that does not read is a bug that every test reports.
var LoadBalancers = sync.OnceValue(func() LoadBalancerFacts {
	f, err := readLoadBalancers(loadBalancersYAML)
	if err != nil {
		panic(fmt.Sprintf("loadbalancers.yaml: %v", err))
	}
	return f
})

// readLoadBalancers reads the catalog strictly: an unknown field, a key
// given twice or a fact without a source of the catalog is an error.
func readLoadBalancers(data []byte) (LoadBalancerFacts, error) {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return LoadBalancerFacts{}, err
	}
	js, err := json.Marshal(v)
	if err != nil {
		return LoadBalancerFacts{}, err
	}
	var f LoadBalancerFacts
	strict, err := sigsjson.UnmarshalStrict(js, &f)
	if err != nil {
		return LoadBalancerFacts{}, err
	}
	if len(strict) > 0 {
		return LoadBalancerFacts{}, strict[0]
	}
	for field, source := range f.sourced() {
		key, _, _ := strings.Cut(source, " ")
		if _, ok := f.Sources[key]; !ok || !strings.Contains(source, " ") {
			return LoadBalancerFacts{}, fmt.Errorf("%s.source: %q does not start with a key of sources and a path", field, source)
		}
	}
	return f, nil
}

// sourced are the source of every fact, by the fact's field.
func (f LoadBalancerFacts) sourced() map[string]string {
	return map[string]string{
		"aws.ingressClass": f.AWS.IngressClass.Source, "aws.annotationPrefix": f.AWS.AnnotationPrefix.Source,
		"aws.ingressAttributes": f.AWS.IngressAttributes.Source, "aws.serviceAttributes": f.AWS.ServiceAttributes.Source,
		"aws.nlbClass": f.AWS.NLBClass.Source, "aws.nlbType": f.AWS.NLBType.Source,
		"aws.deregistrationDelay": f.AWS.DeregistrationDelay.Source,
		"gke.serviceAnnotations":  f.GKE.ServiceAnnotations.Source, "gke.backendConfig": f.GKE.BackendConfig.Source,
	}
}

// isNLBType reports whether a value of the NLB type annotation makes a
// Service a Network Load Balancer.
func (a AWSFacts) isNLBType(v string) bool { return slices.Contains(a.NLBType.Values, v) }

// ReadKinds are the kinds of the load balancer objects the budget reads,
// whatever their group.
func ReadKinds() []string {
	return []string{"Service", "Ingress", LoadBalancers().GKE.BackendConfig.Kind}
}
