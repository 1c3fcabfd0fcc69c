package transformer

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// ErrResults is returned by Run when the output carries error results.
var ErrResults = errors.New("the function reported errors; see results")

// Process is the kpt function SDK processor: it loads the functionConfig,
// transforms the items and sets the results. It reports failure when any
// result is an error; the items are then left as they were.
func Process(rl *fn.ResourceList) (bool, error) {
	var cfgNode *yaml.RNode
	if rl.FunctionConfig != nil && !rl.FunctionConfig.IsEmpty() {
		cfgNode = rl.FunctionConfig.CopyToResourceNode()
	}
	cfg, err := config.Load(cfgNode)
	if err != nil {
		rl.Results = append(rl.Results, ConfigResults(err)...)
		return false, nil
	}
	items := make([]*yaml.RNode, len(rl.Items))
	for i, obj := range rl.Items {
		items[i] = obj.CopyToResourceNode()
	}
	out, results := New(cfg).Transform(items)
	rl.Results = append(rl.Results, results...)
	for i := range out {
		if out[i] != items[i] {
			rl.Items[i] = fn.MoveToKubeObject(out[i])
		}
	}
	for _, r := range results {
		if r.Severity == fn.Error {
			return false, nil
		}
	}
	return true, nil
}

// Run reads a ResourceList from r, transforms it and writes it to w. Input
// that is not a ResourceList is an error and nothing is written. Error
// results are written with the unchanged items and returned as ErrResults.
func Run(r io.Reader, w io.Writer) (err error) {
	in, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("reading input: %w", err)
	}
	if err := CheckResourceList(in); err != nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v", p)
		}
	}()
	var out bytes.Buffer
	err = fn.Execute(fn.ResourceListProcessorFunc(Process), bytes.NewReader(in), &out)
	if out.Len() > 0 {
		if _, werr := w.Write(out.Bytes()); werr != nil {
			return fmt.Errorf("writing output: %w", werr)
		}
	}
	if err != nil && out.Len() > 0 {
		return ErrResults
	}
	return err
}

// CheckResourceList returns an error unless the input is one YAML document
// that is a ResourceList whose items are mappings and whose functionConfig,
// if any, is a mapping.
func CheckResourceList(in []byte) error {
	if len(bytes.TrimSpace(in)) == 0 {
		return errors.New("no input: expected a ResourceList on stdin")
	}
	rn, err := yaml.Parse(string(in))
	if err != nil {
		return fmt.Errorf("input is not valid YAML: %v", firstLine(err.Error()))
	}
	if rn.YNode().Kind != yaml.MappingNode {
		return errors.New("input is not a ResourceList: expected a mapping with kind: ResourceList")
	}
	if rn.GetKind() != kio.ResourceListKind {
		return fmt.Errorf("input is a %q, not a ResourceList: run the function through kpt or kustomize, or wrap the resources in a config.kubernetes.io/v1 ResourceList", rn.GetKind())
	}
	items := rn.Field("items")
	if items != nil && !items.Value.IsNil() {
		if items.Value.YNode().Kind != yaml.SequenceNode {
			return errors.New("ResourceList items must be a list")
		}
		for i, it := range items.Value.YNode().Content {
			if it.Kind != yaml.MappingNode {
				return fmt.Errorf("ResourceList items[%d] is not a mapping", i)
			}
		}
	}
	if fc := rn.Field("functionConfig"); fc != nil && !fc.Value.IsNil() && fc.Value.YNode().Kind != yaml.MappingNode {
		return errors.New("ResourceList functionConfig must be a mapping")
	}
	return nil
}

func firstLine(s string) string {
	if i := bytes.IndexByte([]byte(s), '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
