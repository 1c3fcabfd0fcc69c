package annotate

import (
	"slices"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// RecordStatus rewrites the annotation in which Istio's injector lists
// the containers it added (JSON: initContainers, containers, volumes,
// imagePullSecrets, revision; the entry's injector.record), after the proxy
// moved to initContainers as a native sidecar, as Istio's injector writes it
// for one: the proxy leaves "containers" (null when empty) and follows the
// mesh's own init containers in "initContainers". Every other key and the
// key order are kept; a value that is not a JSON object is left alone.
type RecordStatus struct {
	// Annotation is the record's key.
	Annotation string
	// Proxy is the proxy's container name.
	Proxy string
	// Init are the mesh's own init containers, which the proxy follows.
	Init []string
	// Log receives what changed.
	Log *report.Log
}

var _ kio.Filter = RecordStatus{}

// Filter rewrites the annotation on each pod template metadata node.
func (f RecordStatus) Filter(metas []*yaml.RNode) ([]*yaml.RNode, error) {
	return kio.FilterAll(yaml.FilterFunc(f.filter)).Filter(metas)
}

func (f RecordStatus) filter(meta *yaml.RNode) (*yaml.RNode, error) {
	cur, ok := get(meta, f.Annotation)
	if !ok {
		return meta, nil
	}
	rn, err := yaml.Parse(cur)
	if err != nil || rn.YNode().Kind != yaml.MappingNode {
		f.Log.Warn(report.KindMeshAnnotation, report.Annotation(f.Annotation).Values(cur, nil), "annotation %s is not a JSON object, left as it is: %s", f.Annotation, report.Quote(cur))
		return meta, nil
	}
	containers := names(rn.Field("containers"))
	inits := names(rn.Field("initContainers"))
	if !slices.Contains(containers, f.Proxy) && slices.Contains(inits, f.Proxy) {
		return meta, nil
	}
	containers = slices.DeleteFunc(containers, func(n string) bool { return n == f.Proxy })
	inits = slices.DeleteFunc(inits, func(n string) bool { return n == f.Proxy })
	at := 0
	for i, n := range inits {
		if slices.Contains(f.Init, n) {
			at = i + 1
		}
	}
	inits = slices.Insert(inits, at, f.Proxy)
	for _, kv := range []struct {
		field string
		list  []string
	}{{"initContainers", inits}, {"containers", containers}} {
		setList(rn.YNode(), kv.field, kv.list)
	}
	out, err := orderedJSON(rn.YNode())
	if err != nil {
		return nil, err
	}
	f.Log.Change(report.Annotation(f.Annotation).Values(cur, out), "moved %s to initContainers in annotation %s", f.Proxy, f.Annotation)
	return meta, put(meta, f.Annotation, out, "", true)
}

// names returns the strings of a status list; null or absent is empty.
func names(field *yaml.MapNode) []string {
	if field == nil || field.Value.YNode().Kind != yaml.SequenceNode {
		return nil
	}
	var out []string
	for _, n := range field.Value.YNode().Content {
		out = append(out, n.Value)
	}
	return out
}

// setList sets a status list in place, adding the key when absent; an
// empty list is null, as Go's JSON encoder writes a nil list.
func setList(m *yaml.Node, field string, list []string) {
	v := &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagNull, Value: "null"}
	if len(list) > 0 {
		v = yaml.NewListRNode(list...).YNode()
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == field {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, yaml.NewScalarRNode(field).YNode(), v)
}
