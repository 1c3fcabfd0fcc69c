package budget

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/factdata"

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
	// Controllers are the load balancer controllers, in the order they
	// are tried.
	Controllers []Controller `json:"controllers"`
}

// Controller is one load balancer controller: the Ingresses and Services
// it serves, and where it reads their deregistration delay.
type Controller struct {
	// Name names the controller; Title names it in the docs.
	Name  string `json:"name"`
	Title string `json:"title"`
	// Ingress and Service say which it serves; nil when none.
	Ingress *Serves `json:"ingress,omitempty"`
	Service *Serves `json:"service,omitempty"`
	// Attributes is the delay as an attribute of an annotation's
	// key=value list; Reference, as a field of an object a Service names.
	Attributes *AttributeDelay `json:"attributes,omitempty"`
	Reference  *ReferenceDelay `json:"reference,omitempty"`
}

// Serves says which objects a controller serves: an Ingress of its class
// or with an annotation of its prefix; a Service of type LoadBalancer of
// its loadBalancerClass or with its type annotation.
type Serves struct {
	// Makes names the load balancer it makes, for the docs.
	Makes            string          `json:"makes"`
	Class            ValueFact       `json:"class"`
	AnnotationPrefix *ValueFact      `json:"annotationPrefix,omitempty"`
	TypeAnnotation   *AnnotationFact `json:"typeAnnotation,omitempty"`
}

// AttributeDelay is a delay read as an attribute of an annotation's
// key=value list: the Ingress's (and its backend Services', which win)
// and a Service's own, with its default.
type AttributeDelay struct {
	Ingress AnnotationFact `json:"ingress"`
	Service AnnotationFact `json:"service"`
	Delay   DelayFact      `json:"delay"`
}

// ReferenceDelay is a delay read in a field of an object a Service names
// in an annotation.
type ReferenceDelay struct {
	ServiceAnnotations KeysFact `json:"serviceAnnotations"`
	Object             KindFact `json:"object"`
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
	// Format is how a value names objects (see namedObjects).
	Format string `json:"format,omitempty"`
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
	var f LoadBalancerFacts
	if err := factdata.Strict(data, &f); err != nil {
		return LoadBalancerFacts{}, err
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
	out := map[string]string{}
	for i, c := range f.Controllers {
		at := fmt.Sprintf("controllers[%d].", i)
		for name, s := range map[string]*Serves{"ingress": c.Ingress, "service": c.Service} {
			if s == nil {
				continue
			}
			out[at+name+".class"] = s.Class.Source
			if s.AnnotationPrefix != nil {
				out[at+name+".annotationPrefix"] = s.AnnotationPrefix.Source
			}
			if s.TypeAnnotation != nil {
				out[at+name+".typeAnnotation"] = s.TypeAnnotation.Source
			}
		}
		if a := c.Attributes; a != nil {
			out[at+"attributes.ingress"], out[at+"attributes.service"], out[at+"attributes.delay"] = a.Ingress.Source, a.Service.Source, a.Delay.Source
		}
		if r := c.Reference; r != nil {
			out[at+"reference.serviceAnnotations"], out[at+"reference.object"] = r.ServiceAnnotations.Source, r.Object.Source
		}
	}
	return out
}

// ReadKinds are the kinds of the load balancer objects the budget reads,
// whatever their group.
func ReadKinds() []string {
	kinds := []string{"Service", "Ingress"}
	for _, c := range LoadBalancers().Controllers {
		if c.Reference != nil {
			kinds = append(kinds, c.Reference.Object.Kind)
		}
	}
	return kinds
}
