package budget

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
)

// Ref names an item in results.
type Ref struct {
	// Resource is the item's resourceRef.
	Resource *fn.ResourceRef
	// File is where the item came from, if known.
	File *fn.File
}

// String is "Kind namespace/name".
func (r Ref) String() string {
	if r.Resource == nil {
		return ""
	}
	if r.Resource.Namespace == "" {
		return r.Resource.Kind + " " + r.Resource.Name
	}
	return r.Resource.Kind + " " + r.Resource.Namespace + "/" + r.Resource.Name
}

func (r Ref) namespace() string {
	if r.Resource == nil {
		return ""
	}
	return r.Resource.Namespace
}

// Attribute is a deregistration delay read from a target group attributes annotation.
type Attribute struct {
	// Set reports whether the annotation is there.
	Set bool
	// Seconds is the delay; valid when Known.
	Seconds int64
	// Known reports whether the annotation sets a readable delay.
	Known bool
	// Problem says why a set delay cannot be read.
	Problem string
}

// ParseAttributes reads the deregistration delay attribute from a target
// group attributes annotation: comma-separated key=value pairs.
func ParseAttributes(value string) Attribute {
	a := Attribute{Set: true}
	delay := LoadBalancers().AWS.DeregistrationDelay.Attribute
	for _, pair := range strings.Split(value, ",") {
		key, v, ok := strings.Cut(pair, "=")
		if !ok || strings.TrimSpace(key) != delay {
			continue
		}
		n, problem := wholeSeconds(strings.TrimSpace(v))
		if problem != "" {
			a.Known, a.Problem = false, fmt.Sprintf("%s=%q %s", delay, strings.TrimSpace(v), problem)
			continue
		}
		a.Seconds, a.Known, a.Problem = n, true, ""
	}
	return a
}

func attribute(annotations map[string]string, key string) Attribute {
	v, ok := annotations[key]
	if !ok {
		return Attribute{}
	}
	return ParseAttributes(v)
}

// Ingress is what the budget keeps of an Ingress.
type Ingress struct {
	Ref
	// ALB reports whether the AWS Load Balancer Controller serves it.
	ALB bool
	// Attributes is its target group attributes annotation.
	Attributes Attribute
	// Services are the backend Services it names, in order, once each.
	Services []string
}

// Service is what the budget keeps of a Service.
type Service struct {
	Ref
	// Selector is its pod selector.
	Selector map[string]string
	// ALBAttributes is its Ingress target group attributes annotation.
	ALBAttributes Attribute
	// NLB reports whether it is a LoadBalancer the AWS Load Balancer Controller serves.
	NLB bool
	// NLBAttributes is its Service target group attributes annotation.
	NLBAttributes Attribute
	// BackendConfigs are the GKE BackendConfigs it names, in order, once each.
	BackendConfigs []string
	// BackendConfigProblem says why its backend-config annotation cannot be read.
	BackendConfigProblem string
}

// BackendConfig is what the budget keeps of a GKE BackendConfig.
type BackendConfig struct {
	Ref
	// DrainingTimeoutSec is the draining timeout field; its default when absent.
	DrainingTimeoutSec int64
	// Problem says why the field cannot be read.
	Problem string
}

// Observe returns the load balancer facts of an item that is not a
// workload: an Ingress, a Service or a GKE BackendConfig.
func Observe(item *yaml.RNode, ref Ref) Fact {
	group := ""
	if apiVersion := item.GetApiVersion(); strings.Contains(apiVersion, "/") {
		group = apiVersion[:strings.LastIndex(apiVersion, "/")]
	}
	bc := LoadBalancers().GKE.BackendConfig
	switch kind := item.GetKind(); {
	case kind == "Ingress" && (group == "networking.k8s.io" || group == "extensions"):
		return Fact{Ingress: observeIngress(item, ref)}
	case kind == "Service" && group == "":
		return Fact{Service: observeService(item, ref)}
	case kind == bc.Kind && group == bc.Group:
		return Fact{BackendConfig: observeBackendConfig(item, ref)}
	}
	return Fact{}
}

func observeIngress(item *yaml.RNode, ref Ref) *Ingress {
	aws := LoadBalancers().AWS
	annotations := item.GetAnnotations()
	in := &Ingress{Ref: ref, Attributes: attribute(annotations, aws.IngressAttributes.Annotation)}
	class := annotations["kubernetes.io/ingress.class"]
	if n, err := tree.Lookup(item, "spec", "ingressClassName"); err == nil && n != nil {
		class = yaml.GetValue(n)
	}
	in.ALB = class == aws.IngressClass.Value
	for key := range annotations {
		in.ALB = in.ALB || strings.HasPrefix(key, aws.AnnotationPrefix.Value)
	}
	seen := map[string]bool{}
	add := func(backend *yaml.RNode) {
		if backend == nil {
			return
		}
		name := str(backend, "service", "name") // networking.k8s.io/v1
		if name == "" {
			name = str(backend, "serviceName") // v1beta1
		}
		if name != "" && !seen[name] {
			seen[name] = true
			in.Services = append(in.Services, name)
		}
	}
	for _, field := range []string{"defaultBackend", "backend"} {
		add(lookup(item, "spec", field))
	}
	for _, rule := range elements(lookup(item, "spec", "rules")) {
		for _, path := range elements(lookup(rule, "http", "paths")) {
			add(lookup(path, "backend"))
		}
	}
	return in
}

func observeService(item *yaml.RNode, ref Ref) *Service {
	lbs := LoadBalancers()
	annotations := item.GetAnnotations()
	s := &Service{
		Ref:           ref,
		ALBAttributes: attribute(annotations, lbs.AWS.IngressAttributes.Annotation),
		NLBAttributes: attribute(annotations, lbs.AWS.ServiceAttributes.Annotation),
	}
	if sel := lookup(item, "spec", "selector"); sel != nil {
		s.Selector = stringMap(sel)
	}
	s.NLB = str(item, "spec", "type") == "LoadBalancer" &&
		(str(item, "spec", "loadBalancerClass") == lbs.AWS.NLBClass.Value || lbs.AWS.isNLBType(annotations[lbs.AWS.NLBType.Annotation]))
	for _, key := range lbs.GKE.ServiceAnnotations.Keys {
		if v, ok := annotations[key]; ok {
			s.BackendConfigs, s.BackendConfigProblem = backendConfigNames(key, v)
			break
		}
	}
	return s
}

// backendConfigNames reads the backend-config annotation: JSON with a
// "default" name and "ports" from port number or name to a name.
func backendConfigNames(key, value string) ([]string, string) {
	var ann struct {
		Default string            `json:"default"`
		Ports   map[string]string `json:"ports"`
	}
	if err := json.Unmarshal([]byte(value), &ann); err != nil {
		return nil, fmt.Sprintf("%s %q is not JSON such as {\"default\": \"name\"} or {\"ports\": {\"80\": \"name\"}}", key, value)
	}
	seen := map[string]bool{}
	var names []string
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	add(ann.Default)
	ports := make([]string, 0, len(ann.Ports))
	for p := range ann.Ports {
		ports = append(ports, p)
	}
	sort.Strings(ports)
	for _, p := range ports {
		add(ann.Ports[p])
	}
	return names, ""
}

func observeBackendConfig(item *yaml.RNode, ref Ref) *BackendConfig {
	bc := LoadBalancers().GKE.BackendConfig
	b := &BackendConfig{Ref: ref, DrainingTimeoutSec: bc.Default}
	n := lookup(item, strings.Split(bc.Field, ".")...)
	if n == nil {
		return b
	}
	v, problem := wholeSeconds(yaml.GetValue(n))
	if problem != "" {
		b.Problem = fmt.Sprintf("%s %q %s", bc.Field, yaml.GetValue(n), problem)
		return b
	}
	b.DrainingTimeoutSec = v
	return b
}

func lookup(n *yaml.RNode, path ...string) *yaml.RNode {
	out, err := tree.Lookup(n, path...)
	if err != nil || out == nil || out.IsNil() {
		return nil
	}
	return out
}

func str(n *yaml.RNode, path ...string) string {
	if v := lookup(n, path...); v != nil && v.YNode().Kind == yaml.ScalarNode {
		return v.YNode().Value
	}
	return ""
}

func elements(seq *yaml.RNode) []*yaml.RNode {
	if seq == nil || seq.YNode().Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]*yaml.RNode, 0, len(seq.YNode().Content))
	for _, n := range seq.YNode().Content {
		if n.Kind == yaml.MappingNode {
			out = append(out, yaml.NewRNode(n))
		}
	}
	return out
}

// Labels returns the labels of a metadata node.
func Labels(meta *yaml.RNode) map[string]string {
	if l := lookup(meta, yaml.LabelsField); l != nil {
		return stringMap(l)
	}
	return nil
}

// Annotations returns the annotations of a metadata node.
func Annotations(meta *yaml.RNode) map[string]string {
	if a := lookup(meta, yaml.AnnotationsField); a != nil {
		return stringMap(a)
	}
	return nil
}

func stringMap(m *yaml.RNode) map[string]string {
	if m.YNode().Kind != yaml.MappingNode {
		return nil
	}
	out := map[string]string{}
	c := m.YNode().Content
	for i := 0; i+1 < len(c); i += 2 {
		out[c[i].Value] = c[i+1].Value
	}
	return out
}

// wholeSeconds reads a non-negative whole number of seconds, or says what
// is wrong with it: negative, past the int64 maximum, or not a number.
func wholeSeconds(v string) (int64, string) {
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) && strings.HasPrefix(v, "-"):
		return 0, "is negative"
	case errors.Is(err, strconv.ErrRange):
		return 0, "is out of range: past the int64 maximum 9223372036854775807"
	case err != nil:
		return 0, "is not a whole number of seconds"
	case n < 0:
		return 0, "is negative"
	}
	return n, ""
}
