package emit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// ItemText encodes an item as kio.ByteWriter writes it inside a
// ResourceList: "- " and the item. Like the writer, it drops empty
// metadata.annotations and an empty metadata; unlike it, it does so on the
// node itself, so pass a node nothing else uses.
//
// Every item the function parses is encoded, untouched ones too: an item
// that the run does not read and that ScanItem finds already in the
// writer's form is copied as it came without being parsed, and every other
// item goes through ItemText.
func ItemText(item *yaml.RNode) ([]byte, error) {
	if err := yaml.ClearEmptyAnnotations(item); err != nil {
		return nil, err
	}
	return Entries(&yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{item.YNode()}})
}

// Entries encodes the entries of a sequence as kio.ByteWriter writes them
// under a top-level key of a ResourceList: a block sequence at column 0.
func Entries(seq *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(2048)
	if writeBlock(&buf, seq) {
		return buf.Bytes(), nil
	}
	buf.Reset()
	return encodeEntries(&buf, seq)
}

// encodeEntries is Entries by the encoder.
func encodeEntries(buf *bytes.Buffer, seq *yaml.Node) ([]byte, error) {
	const key = "x:\n"
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{
		Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "x"}, seq},
	}}}
	enc := yaml.NewEncoder(buf)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte(key)) {
		return nil, fmt.Errorf("sequence encodes as %.20q", buf.Bytes())
	}
	return buf.Bytes()[len(key):], nil
}

// ResultsText encodes results (any value that marshals to a YAML sequence)
// as entries of the results list, the way the whole-list path writes them:
// marshalled, parsed, then written by kio.ByteWriter. The function's own
// results (fn.Results with no field or tags) are built as nodes and
// written by the block writer when it takes them; otherwise the
// marshalled text is already those entries (the writer's encoder wrote
// it, and each scalar parses back to its value and style), so it is used
// as it is; a value that does not marshal to a block sequence takes the
// round trip. FuzzResultsText holds the three to the same bytes.
func ResultsText(results any) ([]byte, error) {
	if rs, ok := results.(fn.Results); ok {
		if seq, ok := resultNodes(rs); ok {
			var buf bytes.Buffer
			if writeBlock(&buf, seq) {
				return buf.Bytes(), nil
			}
		}
	}
	b, err := yaml.Marshal(results)
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(b, []byte("- ")) {
		return b, nil
	}
	return resultsRoundTrip(b)
}

// resultNodes is the node tree yaml.Marshal gives for results, for
// results with no tags and no field value other than a string, an int or
// a list of strings (the others it leaves to Marshal).
func resultNodes(rs fn.Results) (*yaml.Node, bool) {
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: yaml.NodeTagSeq}
	for _, r := range rs {
		if r == nil || len(r.Tags) > 0 {
			return nil, false
		}
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: yaml.NodeTagMap}
		addString(m, "message", r.Message)
		addString(m, "severity", string(r.Severity))
		if ref := r.ResourceRef; ref != nil {
			refNode := &yaml.Node{Kind: yaml.MappingNode, Tag: yaml.NodeTagMap}
			addString(refNode, "apiVersion", ref.APIVersion)
			addString(refNode, "kind", ref.Kind)
			addString(refNode, "name", ref.Name)
			addString(refNode, "namespace", ref.Namespace)
			m.Content = append(m.Content, stringNode("resourceRef"), refNode)
		}
		if f := r.Field; f != nil {
			field, ok := fieldNode(f)
			if !ok {
				return nil, false
			}
			m.Content = append(m.Content, stringNode("field"), field)
		}
		if f := r.File; f != nil {
			file := &yaml.Node{Kind: yaml.MappingNode, Tag: yaml.NodeTagMap}
			addString(file, "path", f.Path)
			if f.Index != 0 {
				file.Content = append(file.Content, stringNode("index"),
					&yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagInt, Value: strconv.Itoa(f.Index)})
			}
			m.Content = append(m.Content, stringNode("file"), file)
		}
		seq.Content = append(seq.Content, m)
	}
	return seq, len(seq.Content) > 0
}

// fieldNode is the node yaml.Marshal gives for a result's field whose
// values are strings, ints, lists of strings or nil; false for any other
// value.
func fieldNode(f *fn.Field) (*yaml.Node, bool) {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: yaml.NodeTagMap}
	addString(m, "path", f.Path)
	for _, kv := range []struct {
		key   string
		value any
	}{{"currentValue", f.CurrentValue}, {"proposedValue", f.ProposedValue}} {
		switch v := kv.value.(type) {
		case nil:
		case string:
			m.Content = append(m.Content, stringNode(kv.key), stringNode(v))
		case int:
			m.Content = append(m.Content, stringNode(kv.key), intNode(int64(v)))
		case int64:
			m.Content = append(m.Content, stringNode(kv.key), intNode(v))
		case []string:
			list := &yaml.Node{Kind: yaml.SequenceNode, Tag: yaml.NodeTagSeq}
			for _, s := range v {
				list.Content = append(list.Content, stringNode(s))
			}
			m.Content = append(m.Content, stringNode(kv.key), list)
		default:
			return nil, false
		}
	}
	return m, true
}

// addString adds key: value to a mapping unless the value is empty, as
// omitempty does.
func addString(m *yaml.Node, key, value string) {
	if value != "" {
		m.Content = append(m.Content, stringNode(key), stringNode(value))
	}
}

func intNode(v int64) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagInt, Value: strconv.FormatInt(v, 10)}
}

func stringNode(v string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: v}
}

// resultsRoundTrip parses marshalled results and encodes them as entries.
func resultsRoundTrip(b []byte) ([]byte, error) {
	node, err := yaml.Parse(string(b))
	if err != nil {
		return nil, err
	}
	if node.YNode().Kind != yaml.SequenceNode {
		return nil, errors.New("results are not a list")
	}
	return Entries(node.YNode())
}

// emptyList is what kio.ByteWriter writes for a ResourceList with nothing
// in it; its lines before "items: []" are the header of every list.
var emptyList = sync.OnceValues(func() ([]byte, error) { return listText(nil) })

// listText is a ResourceList with no items and the functionConfig, written
// by kio.ByteWriter.
func listText(functionConfig *yaml.RNode) ([]byte, error) {
	var buf bytes.Buffer
	w := kio.ByteWriter{
		Writer: &buf, KeepReaderAnnotations: true, FunctionConfig: functionConfig,
		WrappingKind: kio.ResourceListKind, WrappingAPIVersion: kio.ResourceListAPIVersion,
	}
	if err := w.Write(nil); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

const noItems = "items: []\n"

// header is the ResourceList's lines before its items.
func header() ([]byte, error) {
	empty, err := emptyList()
	if err != nil {
		return nil, err
	}
	if !bytes.HasSuffix(empty, []byte(noItems)) {
		return nil, fmt.Errorf("an empty ResourceList encodes as %q", empty)
	}
	return empty[:len(empty)-len(noItems)], nil
}

// FunctionConfigText encodes the functionConfig key and value as
// kio.ByteWriter writes them after the items.
func FunctionConfigText(functionConfig *yaml.RNode) ([]byte, error) {
	empty, err := emptyList()
	if err != nil {
		return nil, err
	}
	text, err := listText(functionConfig)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(text, empty) {
		return nil, fmt.Errorf("the functionConfig encodes as %.40q", text)
	}
	return text[len(empty):], nil
}

// List is the pieces of an output ResourceList.
type List struct {
	// Items are the encoded items, from ItemText.
	Items io.WriterTo
	// Count is the number of items.
	Count int
	// FunctionConfig is from FunctionConfigText, or nil.
	FunctionConfig []byte
	// Results are the encoded results, from ResultsText; nil for none.
	Results io.WriterTo
}

// WriteTo writes the list as kio.ByteWriter would: header, items,
// functionConfig, results.
func (l List) WriteTo(w io.Writer) (int64, error) {
	head, err := header()
	if err != nil {
		return 0, err
	}
	cw := &countingWriter{w: w}
	cw.Write(head)
	if l.Count == 0 {
		io.WriteString(cw, noItems)
	} else {
		io.WriteString(cw, "items:\n")
		if cw.err == nil {
			_, cw.err = l.Items.WriteTo(cw)
		}
	}
	cw.Write(l.FunctionConfig)
	if l.Results != nil {
		io.WriteString(cw, "results:\n")
		if cw.err == nil {
			_, cw.err = l.Results.WriteTo(cw)
		}
	}
	return cw.n, cw.err
}

// countingWriter counts bytes and keeps the first error.
type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}

// hasComment reports whether n has a comment of its own.
func hasComment(n *yaml.Node) bool {
	return n.HeadComment != "" || n.LineComment != "" || n.FootComment != ""
}
