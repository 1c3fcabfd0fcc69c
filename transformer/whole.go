package transformer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/stream"
)

// runWhole is the whole-list path: it parses the ResourceList into one node
// tree, transforms it with Process and writes it with kio.ByteWriter.
func runWhole(in []byte, w io.Writer) (err error) {
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
	if items := doc.Field("items"); items != nil && !items.Value.IsNil() {
		for _, it := range items.Value.YNode().Content {
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
	if !ok {
		return resultsError(rl.Results)
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
// returns an error unless the input is one YAML document that is a
// ResourceList whose items are mappings and whose functionConfig, if any, is
// a mapping. CRLF line breaks are read as LF (see stream.LF).
func ParseResourceList(in []byte) (*yaml.RNode, error) {
	if len(bytes.TrimSpace(in)) == 0 {
		return nil, errors.New("no input: expected a ResourceList on stdin")
	}
	dec := yaml.NewDecoder(bytes.NewReader(stream.LF(in)))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("input is not valid YAML: %v", firstLine(err.Error()))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		return nil, errors.New("input has more than one YAML document: expected one ResourceList")
	}
	rn := yaml.NewRNode(&doc)
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		rn = yaml.NewRNode(doc.Content[0])
	}
	if rn.YNode().Kind != yaml.MappingNode {
		return nil, errors.New("input is not a ResourceList: expected a mapping with kind: ResourceList")
	}
	if rn.GetKind() != kio.ResourceListKind {
		return nil, fmt.Errorf("input is a %q, not a ResourceList: run the function through kpt or kustomize, or wrap the resources in a config.kubernetes.io/v1 ResourceList", rn.GetKind())
	}
	if items := rn.Field("items"); items != nil && !items.Value.IsNil() {
		if items.Value.YNode().Kind != yaml.SequenceNode {
			return nil, errors.New("ResourceList items must be a list")
		}
		for i, it := range items.Value.YNode().Content {
			if it.Kind != yaml.MappingNode {
				return nil, fmt.Errorf("ResourceList items[%d] is not a mapping", i)
			}
		}
	}
	if fc := rn.Field("functionConfig"); fc != nil && !fc.Value.IsNil() && fc.Value.YNode().Kind != yaml.MappingNode {
		return nil, errors.New("ResourceList functionConfig must be a mapping")
	}
	return rn, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
