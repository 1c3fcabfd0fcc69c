package tables

import (
	"fmt"
	"strings"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
)

// LoadBalancers renders the load balancer catalog
// (internal/budget/loadbalancers.yaml): each fact with its source.
func LoadBalancers(f budget.LoadBalancerFacts) (string, error) {
	aws, gke := f.AWS, f.GKE
	groups := []struct {
		title string
		facts []fact
	}{
		{aws.Title, []fact{
			{"an Ingress of class " + code(aws.IngressClass.Value) + " is an ALB", aws.IngressClass.Source},
			{"so is an Ingress with an annotation that starts with " + code(aws.AnnotationPrefix.Value), aws.AnnotationPrefix.Source},
			{"its target group attributes: annotation " + code(aws.IngressAttributes.Annotation) + " of the Ingress, or of its backend Service, which wins", aws.IngressAttributes.Source},
			{"a Service of type LoadBalancer is an NLB with loadBalancerClass " + code(aws.NLBClass.Value), aws.NLBClass.Source},
			{"or with annotation " + code(aws.NLBType.Annotation) + " " + strings.Join(codes(aws.NLBType.Values), ", "), aws.NLBType.Source},
			{"its target group attributes: annotation " + code(aws.ServiceAttributes.Annotation), aws.ServiceAttributes.Source},
			{fmt.Sprintf("the delay: attribute %s, %ds when absent (%s)", code(aws.DeregistrationDelay.Attribute), aws.DeregistrationDelay.Default, aws.DeregistrationDelay.Says), aws.DeregistrationDelay.Source},
		}},
		{gke.Title, []fact{
			{"a Service names its BackendConfigs in annotation " + strings.Join(codes(gke.ServiceAnnotations.Keys), ", then "), gke.ServiceAnnotations.Source},
			{fmt.Sprintf("the delay: %s of a %s of group %s, %ds when absent (%s)", code(gke.BackendConfig.Field), code(gke.BackendConfig.Kind), code(gke.BackendConfig.Group), gke.BackendConfig.Default, gke.BackendConfig.Says), gke.BackendConfig.Source},
		}},
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
