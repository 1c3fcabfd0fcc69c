package deadline

import (
	"slices"
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Placement is what of a pod spec decides which nodes it may land on:
// its nodeSelector, its required node affinity, its tolerations, and
// whether it is critical to graceful node shutdown.
type Placement struct {
	// NodeSelector are the labels its node must carry.
	NodeSelector map[string]string
	// Terms are the required node affinity's terms, any of which must
	// hold; nil when it has none.
	Terms [][]Requirement
	// Tolerations are its tolerations.
	Tolerations []Toleration
	// Critical is set for a pod of a critical priority class.
	Critical bool
}

// Requirement is one matchExpressions entry.
type Requirement struct {
	Key, Operator string
	Values        []string
}

// Toleration is one toleration.
type Toleration struct {
	Key, Operator, Value, Effect string
}

// ReadPlacement reads a pod spec's placement.
func ReadPlacement(spec *yaml.RNode) Placement {
	var p Placement
	if sel, err := spec.Pipe(yaml.Lookup("nodeSelector")); err == nil && sel != nil && sel.YNode().Kind == yaml.MappingNode {
		p.NodeSelector = map[string]string{}
		fields, _ := sel.Fields()
		for _, k := range fields {
			p.NodeSelector[k] = stringAt(sel, k)
		}
	}
	if terms, err := spec.Pipe(yaml.Lookup("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")); err == nil && terms != nil && terms.YNode().Kind == yaml.SequenceNode {
		p.Terms = [][]Requirement{}
		for _, t := range terms.Content() {
			term := []Requirement{}
			if exprs, err := yaml.NewRNode(t).Pipe(yaml.Lookup("matchExpressions")); err == nil && exprs != nil && exprs.YNode().Kind == yaml.SequenceNode {
				for _, e := range exprs.Content() {
					r := yaml.NewRNode(e)
					term = append(term, Requirement{Key: stringAt(r, "key"), Operator: stringAt(r, "operator"), Values: stringsAt(r, "values")})
				}
			}
			p.Terms = append(p.Terms, term)
		}
	}
	if tols, err := spec.Pipe(yaml.Lookup("tolerations")); err == nil && tols != nil && tols.YNode().Kind == yaml.SequenceNode {
		for _, t := range tols.Content() {
			r := yaml.NewRNode(t)
			p.Tolerations = append(p.Tolerations, Toleration{Key: stringAt(r, "key"), Operator: stringAt(r, "operator"), Value: stringAt(r, "value"), Effect: stringAt(r, "effect")})
		}
	}
	p.Critical = slices.Contains(Data().NodeShutdown.CriticalPriorityClasses, stringAt(spec, "priorityClassName"))
	return p
}

// CanLand reports whether the scheduler may place the pod on a node of the
// class: the nodeSelector and one term of the required node affinity hold
// against the class's labels, and every NoSchedule and NoExecute taint is
// tolerated. A label the class does not list, unless its labels are
// complete, may be anything.
func (p Placement) CanLand(c Class) bool {
	if c.Every {
		return true
	}
	for k, v := range p.NodeSelector {
		if !c.allows(Requirement{Key: k, Operator: "In", Values: []string{v}}) {
			return false
		}
	}
	if p.Terms != nil && !slices.ContainsFunc(p.Terms, func(term []Requirement) bool {
		return !slices.ContainsFunc(term, func(r Requirement) bool { return !c.allows(r) })
	}) {
		return false
	}
	for _, t := range c.Taints {
		if t.Effect != "PreferNoSchedule" && !slices.ContainsFunc(p.Tolerations, func(tol Toleration) bool { return tol.tolerates(t) }) {
			return false
		}
	}
	return true
}

// allows reports whether a node of the class may satisfy the requirement.
func (c Class) allows(r Requirement) bool {
	values, known := c.Labels[r.Key]
	if !known {
		if !c.Complete {
			return true
		}
		return r.Operator == "NotIn" || r.Operator == "DoesNotExist"
	}
	switch r.Operator {
	case "In":
		return slices.ContainsFunc(values, func(v string) bool { return slices.Contains(r.Values, v) })
	case "NotIn":
		return slices.ContainsFunc(values, func(v string) bool { return !slices.Contains(r.Values, v) })
	case "Exists":
		return true
	case "DoesNotExist":
		return false
	case "Gt", "Lt":
		if len(r.Values) != 1 {
			return false
		}
		bound, err := strconv.ParseInt(r.Values[0], 10, 64)
		return err == nil && slices.ContainsFunc(values, func(v string) bool {
			n, err := strconv.ParseInt(v, 10, 64)
			return err == nil && ((r.Operator == "Gt" && n > bound) || (r.Operator == "Lt" && n < bound))
		})
	}
	return false
}

// tolerates reports whether the toleration tolerates the taint, as the
// scheduler matches them: an empty key with Exists tolerates every taint,
// an empty effect every effect.
func (t Toleration) tolerates(taint Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key == "" {
		return t.Operator == "Exists"
	}
	if t.Key != taint.Key {
		return false
	}
	return t.Operator == "Exists" || t.Value == taint.Value
}
