package podcheck

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Fields of a pod spec and a container that the function reads or writes.
const (
	graceField = "terminationGracePeriodSeconds"
	wantGrace  = "a non-negative whole number of seconds written in decimal, such as 30"
	wantPort   = "a port number from 1 to 65535, or a port name of at most 15 lowercase letters, digits and hyphens"
)

// PodSpec checks the pod spec at path in the resource and every mapping on
// the way to it. An absent or null pod spec has nothing to check.
func PodSpec(resource *yaml.RNode, path []string) Errors {
	var errs Errors
	m := resource.YNode()
	var p *field.Path
	for i, key := range path {
		if p == nil {
			p = field.NewPath(key)
		} else {
			p = p.Child(key)
		}
		n := fieldOf(m, key)
		if isNull(n) {
			return errs
		}
		want := "a mapping"
		if i == len(path)-1 {
			want = "a mapping: the pod spec"
		}
		if m = errs.mapping(n, p, want); m == nil {
			return errs
		}
	}
	errs.podSpec(m, p)
	return errs
}

// podSpec checks a pod spec mapping.
func (e *Errors) podSpec(spec *yaml.Node, p *field.Path) {
	if g := fieldOf(spec, graceField); !isNull(g) {
		e.nonNegative(g, p.Child(graceField), wantGrace)
	}
	seen := map[string]*field.Path{}
	for _, list := range []string{"initContainers", "containers"} {
		lp := p.Child(list)
		seq := e.list(fieldOf(spec, list), lp, "a list of containers")
		if seq == nil {
			continue
		}
		for i, c := range seq.Content {
			e.container(resolve(c), lp.Index(i), seen)
		}
	}
}

// container checks one container and records its name in seen.
func (e *Errors) container(c *yaml.Node, p *field.Path, seen map[string]*field.Path) {
	if c.Kind != yaml.MappingNode {
		e.add(p, c, "a container: a mapping with a name")
		return
	}
	name := fieldOf(c, "name")
	switch {
	case isNull(name):
		e.add(p.Child("name"), nil, "a container name: give the container one")
	case !isString(name):
		e.add(p.Child("name"), name, wantString("a container name", name))
	case strings.TrimSpace(name.Value) == "":
		e.add(p.Child("name"), name, "a container name that is not blank")
	case seen[name.Value] != nil:
		e.add(p.Child("name"), name, "unique container names: "+seen[name.Value].String()+" has the same name; rename one")
	default:
		seen[name.Value] = p.Child("name")
	}
	if rp := fieldOf(c, "restartPolicy"); !isNull(rp) && !isString(rp) {
		e.add(p.Child("restartPolicy"), rp, "a string, such as Always")
	}
	for _, f := range []string{"command", "args"} {
		e.stringList(fieldOf(c, f), p.Child(f))
	}
	if lc := e.mapping(fieldOf(c, "lifecycle"), p.Child("lifecycle"), "a mapping with postStart and preStop hooks"); lc != nil {
		for _, h := range []string{"postStart", "preStop"} {
			e.handler(fieldOf(lc, h), p.Child("lifecycle", h))
		}
	}
	for _, probe := range []string{"startupProbe", "readinessProbe"} {
		e.probe(fieldOf(c, probe), p.Child(probe))
	}
}

// handler checks a lifecycle hook.
func (e *Errors) handler(n *yaml.Node, p *field.Path) {
	h := e.mapping(n, p, "a mapping with one handler, such as sleep or exec")
	if h == nil {
		return
	}
	if exec := e.mapping(fieldOf(h, "exec"), p.Child("exec"), "a mapping with a command"); exec != nil {
		e.stringList(fieldOf(exec, "command"), p.Child("exec", "command"))
	}
	if sleep := e.mapping(fieldOf(h, "sleep"), p.Child("sleep"), "a mapping with seconds"); sleep != nil {
		e.nonNegative(fieldOf(sleep, "seconds"), p.Child("sleep", "seconds"), "a non-negative whole number of seconds written in decimal, such as 5")
	}
}

// probe checks the ports of a probe.
func (e *Errors) probe(n *yaml.Node, p *field.Path) {
	probe := e.mapping(n, p, "a mapping")
	if probe == nil {
		return
	}
	for _, handler := range []string{"httpGet", "tcpSocket", "grpc"} {
		h := e.mapping(fieldOf(probe, handler), p.Child(handler), "a mapping with a port")
		if h == nil {
			continue
		}
		port := fieldOf(h, "port")
		if !isNull(port) && !validPort(port, handler != "grpc") {
			want := wantPort
			if handler == "grpc" {
				want = "a port number from 1 to 65535"
			}
			e.add(p.Child(handler, "port"), port, wantInt(want, port))
		}
	}
}

// validPort reports whether a port is a number from 1 to 65535 or, where
// names are allowed, an IANA service name.
func validPort(n *yaml.Node, names bool) bool {
	if v, ok := intValue(n); ok {
		return v >= 1 && v <= 65535
	}
	return names && isString(n) && len(validation.IsValidPortName(n.Value)) == 0
}
