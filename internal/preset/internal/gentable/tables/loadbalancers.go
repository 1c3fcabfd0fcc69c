package tables

import (
	"fmt"
	"strings"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
)

// LoadBalancers renders the load balancer catalog
// (internal/budget/loadbalancers.yaml): each fact with its source.
func LoadBalancers(f budget.LoadBalancerFacts) (string, error) {
	type group struct {
		title string
		facts []fact
	}
	var groups []group
	for _, c := range f.Controllers {
		g := group{title: c.Title}
		if in := c.Ingress; in != nil {
			g.facts = append(g.facts, fact{"an Ingress of class " + code(in.Class.Value) + " is an " + in.Makes, in.Class.Source})
			if in.AnnotationPrefix != nil {
				g.facts = append(g.facts, fact{"so is an Ingress with an annotation that starts with " + code(in.AnnotationPrefix.Value), in.AnnotationPrefix.Source})
			}
		}
		if a := c.Attributes; a != nil && c.Ingress != nil {
			g.facts = append(g.facts, fact{"its delay attribute: annotation " + code(a.Ingress.Annotation) + " of the Ingress, or of its backend Service, which wins", a.Ingress.Source})
		}
		if sv := c.Service; sv != nil {
			g.facts = append(g.facts, fact{"a Service of type LoadBalancer is an " + sv.Makes + " with loadBalancerClass " + code(sv.Class.Value), sv.Class.Source})
			if t := sv.TypeAnnotation; t != nil {
				g.facts = append(g.facts, fact{"or with annotation " + code(t.Annotation) + " " + strings.Join(codes(t.Values), ", "), t.Source})
			}
		}
		if a := c.Attributes; a != nil {
			g.facts = append(g.facts,
				fact{"a Service's delay attribute: annotation " + code(a.Service.Annotation), a.Service.Source},
				fact{fmt.Sprintf("the delay: attribute %s, %ds when absent (%s)", code(a.Delay.Attribute), a.Delay.Default, a.Delay.Says), a.Delay.Source})
		}
		if r := c.Reference; r != nil {
			o := r.Object
			g.facts = append(g.facts,
				fact{"a Service names the " + code(o.Kind) + "s that hold its delay in annotation " + strings.Join(codes(r.ServiceAnnotations.Keys), ", then "), r.ServiceAnnotations.Source},
				fact{fmt.Sprintf("the delay: %s of a %s of group %s, %ds when absent (%s)", code(o.Field), code(o.Kind), code(o.Group), o.Default, o.Says), o.Source})
		}
		groups = append(groups, g)
	}
	var b strings.Builder
	b.WriteString("## Load balancers\n\nThe termination budget compares each workload's drain with the deregistration delay of the load balancers that send to it, from `internal/budget/loadbalancers.yaml`.\n")
	for _, g := range groups {
		b.WriteString("\n### " + g.title + "\n\n")
		for _, ft := range g.facts {
			c, err := cite(f.Sources, ft.source)
			if err != nil {
				return "", fmt.Errorf("load balancers: %v", err)
			}
			b.WriteString("- " + ft.text + " — " + c + "\n")
		}
	}
	return b.String(), nil
}

// codes renders each value as code.
func codes(values []string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = code(v)
	}
	return out
}
