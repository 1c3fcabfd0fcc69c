package transformer

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/stream"
)

// runWhole is the whole-list path: it parses the ResourceList into one node
// tree, transforms it with Process and writes it with kio.ByteWriter. The
// warnings and errors are added to diags.
func runWhole(in []byte, w io.Writer, diags *[]Diagnostic) (err error) {
	doc, err := ParseResourceList(in)
	if err != nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v", p)
		}
	}()
	rl := &fn.ResourceList{FunctionConfig: functionConfig(doc)}
	shown := false
	if items := doc.Field("items"); items != nil && !items.Value.IsNil() {
		for _, it := range items.Value.YNode().Content {
			shown = shown || shownByOrchestrator(yaml.NewRNode(it))
			rl.Items = append(rl.Items, fn.MoveToKubeObject(yaml.NewRNode(it)))
		}
	}
	ok, err := Process(rl)
	if err != nil {
		return err
	}
	if err := write(w, rl); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	*diags = diagnostics(rl.Results, shown)
	if !ok {
		return resultsError(*diags)
	}
	return nil
}

// functionConfig is the ResourceList's functionConfig, or an empty object.
func functionConfig(doc *yaml.RNode) *fn.KubeObject {
	if fc := doc.Field("functionConfig"); fc != nil && !fc.Value.IsNil() {
		return fn.MoveToKubeObject(fc.Value)
	}
	return fn.NewEmptyKubeObject()
}

// write encodes the ResourceList with its results.
func write(w io.Writer, rl *fn.ResourceList) error {
	items := make([]*yaml.RNode, len(rl.Items))
	for i, obj := range rl.Items {
		items[i] = obj.MoveToResourceNode()
	}
	bw := kio.ByteWriter{
		Writer: w, KeepReaderAnnotations: true,
		WrappingKind: kio.ResourceListKind, WrappingAPIVersion: kio.ResourceListAPIVersion,
	}
	if !rl.FunctionConfig.IsEmpty() {
		bw.FunctionConfig = rl.FunctionConfig.MoveToResourceNode()
	}
	if len(rl.Results) > 0 {
		b, err := yaml.Marshal(rl.Results)
		if err != nil {
			return err
		}
		if bw.Results, err = yaml.Parse(string(b)); err != nil {
			return err
		}
	}
	return bw.Write(items)
}

// ParseResourceList parses the input and returns its ResourceList mapping. It
// returns a one-line error unless the input is one YAML document that is a
// ResourceList whose items are mappings (with a mapping for metadata) and
// whose functionConfig, if any, is a mapping. CRLF line breaks are read as
// LF (see stream.LF).
func ParseResourceList(in []byte) (*yaml.RNode, error) {
	if len(bytes.TrimSpace(in)) == 0 {
		return nil, errors.New("no input: expected a ResourceList on stdin")
	}
	doc, err := stream.DecodeOne(bytes.NewReader(stream.LF(in)))
	switch {
	case err == io.EOF:
		return nil, errors.New("no input: expected a ResourceList on stdin, found only comments")
	case err == stream.ErrMoreDocuments:
		return nil, errors.New("input has more than one YAML document: expected one ResourceList")
	case err != nil:
		return nil, fmt.Errorf("input is not valid YAML: %v", err)
	}
	rn := yaml.NewRNode(doc)
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		rn = yaml.NewRNode(doc.Content[0])
	}
	if rn.YNode().Kind != yaml.MappingNode {
		return nil, fmt.Errorf("input is not a ResourceList: expected a mapping with kind: ResourceList, found %s", report.Found(rn.YNode()))
	}
	if rn.GetKind() != kio.ResourceListKind {
		return nil, fmt.Errorf("input is a %s, not a ResourceList: run the function through kpt or kustomize, or wrap the resources in a config.kubernetes.io/v1 ResourceList", report.Quote(rn.GetKind()))
	}
	if items := rn.Field("items"); items != nil && !items.Value.IsNil() {
		if items.Value.YNode().Kind != yaml.SequenceNode {
			return nil, fmt.Errorf("ResourceList items must be a list, found %s", report.Found(items.Value.YNode()))
		}
		for i, it := range items.Value.YNode().Content {
			if err := checkItem(it); err != nil {
				return nil, fmt.Errorf("ResourceList items[%d]%s", i, err)
			}
		}
	}
	if fc := rn.Field("functionConfig"); fc != nil && !fc.Value.IsNil() && fc.Value.YNode().Kind != yaml.MappingNode {
		return nil, fmt.Errorf("ResourceList functionConfig must be a mapping, found %s", report.Found(fc.Value.YNode()))
	}
	return rn, nil
}

// checkItem checks that an item is a mapping whose metadata, if any, is a
// mapping too: the writer reads it on every item. The error starts with
// the path below the item.
func checkItem(item *yaml.Node) error {
	if item.Kind != yaml.MappingNode {
		return fmt.Errorf(" must be a mapping (a resource), found %s", report.Found(item))
	}
	meta := fieldNode(item, "metadata")
	if meta != nil && meta.Kind == yaml.AliasNode && meta.Alias != nil {
		meta = meta.Alias
	}
	if meta != nil && meta.Kind != yaml.MappingNode {
		return fmt.Errorf(".metadata must be a mapping, found %s", report.Found(meta))
	}
	return nil
}

// fieldNode is the value of a mapping's key, or nil when it is absent or null.
func fieldNode(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			if v := m.Content[i+1]; v.ShortTag() != yaml.NodeTagNull {
				return v
			}
			return nil
		}
	}
	return nil
}
