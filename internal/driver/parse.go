package driver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
)

// ParseResourceList parses the input and returns its ResourceList mapping. It
// returns a one-line error unless the input is one YAML document that is a
// ResourceList whose items are mappings (with a mapping for metadata) and
// whose functionConfig, if any, is a mapping. CRLF line breaks are read as
// LF (see yamlio.LF).
func ParseResourceList(in []byte) (*yaml.RNode, error) {
	if len(bytes.TrimSpace(in)) == 0 {
		return nil, errors.New("no input: expected a ResourceList on stdin")
	}
	doc, err := yamlio.DecodeOne(bytes.NewReader(yamlio.LF(in)))
	switch {
	case err == io.EOF:
		return nil, errors.New("no input: expected a ResourceList on stdin, found only comments")
	case err == yamlio.ErrMoreDocuments:
		return nil, errors.New("input has more than one YAML document: expected one ResourceList")
	case err != nil:
		return nil, fmt.Errorf("input is not valid YAML: %s", YAMLErrorText(err, in))
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

// YAMLErrorText is the parser's message for a whole text, in, with the
// line of the problem counted from 1 as in a scanner's message (see
// yamlProblem).
func YAMLErrorText(err error, in []byte) string {
	msg, ok := strings.CutPrefix(err.Error(), "yaml: ")
	if !ok {
		return err.Error()
	}
	n, problem := yamlProblem(msg, lineCount(string(in)))
	if n == 0 {
		return err.Error()
	}
	return fmt.Sprintf("yaml: line %d: %s", n, problem)
}
