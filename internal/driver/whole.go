package driver

import (
	"fmt"
	"io"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// whole is the whole-list path: it parses the ResourceList into one node
// tree, runs the engine over its items (engine.Engine.Transform) and
// writes the list with kio.ByteWriter.
func whole(in []byte, w io.Writer, opts Options) (rep Report, err error) {
	doc, err := ParseResourceList(in)
	if err != nil {
		return Report{}, err
	}
	var items []*yaml.RNode
	if f := doc.Field("items"); f != nil && !f.Value.IsNil() {
		for _, n := range f.Value.YNode().Content {
			items = append(items, yaml.NewRNode(n))
		}
	}
	fc := functionConfig(doc)
	e := opts.start(engine.Start(configNode(fc)))
	out, results := e.Transform(items)
	if err := write(w, fc, out, results); err != nil {
		return Report{}, fmt.Errorf("writing output: %w", err)
	}
	return newReport(results, e, opts)
}

// functionConfig is the ResourceList's functionConfig, or nil when it is
// absent or null.
func functionConfig(doc *yaml.RNode) *yaml.RNode {
	if fc := doc.Field("functionConfig"); fc != nil && !fc.Value.IsNil() {
		return fc.Value
	}
	return nil
}

// configNode is the functionConfig to load: nil, for the defaults, when
// it is absent or an empty mapping.
func configNode(fc *yaml.RNode) *yaml.RNode {
	if fc == nil || yaml.IsYNodeEmptyMap(fc.YNode()) {
		return nil
	}
	return fc
}

// write encodes the ResourceList with its results, as kpt and kustomize
// read it: kio.ByteWriter, with the functionConfig unless it is empty.
func write(w io.Writer, fc *yaml.RNode, items []*yaml.RNode, results fn.Results) error {
	bw := kio.ByteWriter{
		Writer: w, KeepReaderAnnotations: true,
		WrappingKind: kio.ResourceListKind, WrappingAPIVersion: kio.ResourceListAPIVersion,
	}
	if configNode(fc) != nil {
		bw.FunctionConfig = fc
	}
	if len(results) > 0 {
		b, err := yaml.Marshal(report.Untagged(results))
		if err != nil {
			return err
		}
		if bw.Results, err = yaml.Parse(string(b)); err != nil {
			return err
		}
	}
	return bw.Write(items)
}
