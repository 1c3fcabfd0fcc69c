package budget

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
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

// ParseAttributes reads the delay attribute from an annotation's
// comma-separated key=value pairs.
func ParseAttributes(value, delay string) Attribute {
	a := Attribute{Set: true}
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

// attribute reads the delay attribute of the controller from the
// annotation key, when present.
func attribute(annotations map[string]string, key string, c *Controller) Attribute {
	v, ok := annotations[key]
	if !ok {
		return Attribute{}
	}
	return ParseAttributes(v, c.Attributes.Delay.Attribute)
}

// Ingress is what the budget keeps of an Ingress.
type Ingress struct {
	Ref
	// Controller is the controller that serves it and reads its delay as
	// an attribute; nil when none does.
	Controller *Controller
	// Attributes is its own delay attribute.
	Attributes Attribute
	// Services are the backend Services it names, in order, once each.
	Services []string
}

// Service is what the budget keeps of a Service.
type Service struct {
	Ref
	Selector map[string]string
	// Overrides are the delay attributes it sets for the Ingresses that
	// send to it, by the name of their controller: they win.
	Overrides map[string]Attribute
	// Controller serves the Service itself as a load balancer, or sets its
	// delay attribute (Attributes); nil when none does.
	Controller *Controller
	Serves     bool
	Attributes Attribute
	// Referenced are the objects it names whose fields hold its delay, the
	// controller that reads them, and what is wrong with the annotation.
	Referenced   []string
	ReferencedBy *Controller
	Problem      string
}

// Referenced is what the budget keeps of an object whose field holds a
// Service's delay (a controller's reference object).
type Referenced struct {
	Ref
	Controller *Controller
	Seconds    int64
	Problem    string
}

// Observe returns the load balancer facts of an item that is not a
// workload: an Ingress, a Service or a controller's reference object.
func Observe(item *yaml.RNode, ref Ref) Fact {
	group := ""
	if apiVersion := item.GetApiVersion(); strings.Contains(apiVersion, "/") {
		group = apiVersion[:strings.LastIndex(apiVersion, "/")]
	}
	kind := item.GetKind()
	switch {
	case kind == "Ingress" && (group == "networking.k8s.io" || group == "extensions"):
		return Fact{Ingress: observeIngress(item, ref)}
	case kind == "Service" && group == "":
		return Fact{Service: observeService(item, ref)}
	}
	for i := range LoadBalancers().Controllers {
		c := &LoadBalancers().Controllers[i]
		if c.Reference != nil && kind == c.Reference.Object.Kind && group == c.Reference.Object.Group {
			return Fact{Referenced: observeReferenced(item, ref, c)}
		}
	}
	return Fact{}
}

// observeIngress reads an Ingress: the first controller with a delay
// attribute that serves it by class or annotation prefix, and its backends.
func observeIngress(item *yaml.RNode, ref Ref) *Ingress {
	annotations := item.GetAnnotations()
	in := &Ingress{Ref: ref}
	class := annotations["kubernetes.io/ingress.class"]
	if n, err := tree.Lookup(item, "spec", "ingressClassName"); err == nil && n != nil {
		class = yaml.GetValue(n)
	}
	for i := range LoadBalancers().Controllers {
		c := &LoadBalancers().Controllers[i]
		if c.Ingress == nil || c.Attributes == nil || !c.Ingress.servesIngress(class, annotations) {
			continue
		}
		in.Controller, in.Attributes = c, attribute(annotations, c.Attributes.Ingress.Annotation, c)
		break
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

// servesIngress reports whether an Ingress of the class and annotations
// is the controller's.
func (s *Serves) servesIngress(class string, annotations map[string]string) bool {
	if class == s.Class.Value {
		return true
	}
	for key := range annotations {
		if s.AnnotationPrefix != nil && strings.HasPrefix(key, s.AnnotationPrefix.Value) {
			return true
		}
	}
	return false
}

// servesService reports whether a Service of type LoadBalancer of the
// class and annotations is the controller's.
func (s *Serves) servesService(class string, annotations map[string]string) bool {
	return class == s.Class.Value || (s.TypeAnnotation != nil && slices.Contains(s.TypeAnnotation.Values, annotations[s.TypeAnnotation.Annotation]))
}

// observeService reads a Service: the attributes it sets for the
// Ingresses of each controller, the controller that serves it as a load
// balancer, and the objects it names for its delay.
func observeService(item *yaml.RNode, ref Ref) *Service {
	annotations := item.GetAnnotations()
	s := &Service{Ref: ref}
	if sel := lookup(item, "spec", "selector"); sel != nil {
		s.Selector = stringMap(sel)
	}
	loadBalancer, class := str(item, "spec", "type") == "LoadBalancer", str(item, "spec", "loadBalancerClass")
	for i := range LoadBalancers().Controllers {
		c := &LoadBalancers().Controllers[i]
		if a := c.Attributes; a != nil {
			if v := attribute(annotations, a.Ingress.Annotation, c); v.Set {
				if s.Overrides == nil {
					s.Overrides = map[string]Attribute{}
				}
				s.Overrides[c.Name] = v
			}
			serves := c.Service != nil && loadBalancer && c.Service.servesService(class, annotations)
			if v := attribute(annotations, a.Service.Annotation, c); s.Controller == nil && (serves || v.Set) {
				s.Controller, s.Serves, s.Attributes = c, serves, v
			}
		}
		if r := c.Reference; r != nil && s.ReferencedBy == nil {
			for _, key := range r.ServiceAnnotations.Keys {
				if v, ok := annotations[key]; ok {
					s.ReferencedBy = c
					s.Referenced, s.Problem = namedObjects(key, v, r.ServiceAnnotations.Format)
					break
				}
			}
		}
	}
	return s
}

// namedObjects reads the names an annotation of the format gives:
// default-and-ports is JSON with a "default" name and "ports" from port
// number or name to a name.
func namedObjects(key, value, format string) ([]string, string) {
	if format != "default-and-ports" {
		return nil, fmt.Sprintf("%s: the format %q is not one the function reads", key, format)
	}
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

// observeReferenced reads the delay field of a controller's reference
// object; its default when absent.
func observeReferenced(item *yaml.RNode, ref Ref, c *Controller) *Referenced {
	obj := c.Reference.Object
	b := &Referenced{Ref: ref, Controller: c, Seconds: obj.Default}
	n := lookup(item, strings.Split(obj.Field, ".")...)
	if n == nil {
		return b
	}
	v, problem := wholeSeconds(yaml.GetValue(n))
	if problem != "" {
		b.Problem = fmt.Sprintf("%s %q %s", obj.Field, yaml.GetValue(n), problem)
		return b
	}
	b.Seconds = v
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
