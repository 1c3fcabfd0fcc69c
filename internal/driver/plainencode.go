package driver

import (
	"bytes"
	"regexp"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/emit"
)

// encodeDocument encodes the edited mapping in place of a document's
// content, original: as JSON, indented as it was, when the content is JSON
// (see jsonLayout); else as YAML with the document's comments and list
// indentation, after a "---" when the content started on its marker line
// (`--- &anchor`, `--- {kind: Pod}`). Its line ends are the ones most of
// the content's lines have (CRLF or LF; the first line's on a tie).
func encodeDocument(doc *yaml.Node, edited *yaml.RNode, original []byte) ([]byte, error) {
	var text []byte
	var err error
	if layout, ok := jsonLayout(original); ok {
		text, err = layout.encode(edited.YNode())
	} else {
		text, err = encodeYAML(doc, edited, original)
	}
	if err != nil {
		return nil, err
	}
	if crlf(original) {
		text = bytes.ReplaceAll(text, []byte("\n"), []byte("\r\n"))
	}
	return text, nil
}

// encodeYAML encodes the edited mapping as the document's YAML content.
func encodeYAML(doc *yaml.Node, edited *yaml.RNode, original []byte) ([]byte, error) {
	out := *doc
	root := *edited.YNode()
	if input := doc.Content[0]; root.Anchor == "" && input.Anchor != "" {
		root.Anchor = input.Anchor // what the anchor named is expanded: it names nothing now, but it stays where it was written
	}
	markerComment := keepMarkerComment(&root, original)
	out.Content = []*yaml.Node{&root}
	var buf bytes.Buffer
	if bytes.HasPrefix(original, []byte("---")) {
		buf.WriteString("---") // the splitter leaves a marker in the content only when content follows it
	}
	style := yaml.SequenceIndentStyle(yaml.DeriveSeqIndentStyle(string(original)))
	if style == yaml.CompactSequenceStyle && buf.Len() == 0 && markerComment == "" {
		if text, ok := emit.WriteDocument(&out); ok {
			return text, nil
		}
	}
	enc := yaml.NewEncoderWithOptions(&buf, &yaml.EncoderOptions{SeqIndent: style})
	if err := enc.Encode(&out); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	text := buf.Bytes()
	if bytes.HasPrefix(text, []byte("---")) {
		// Node properties and flow collections stay on the marker line, as
		// they came; anything else starts on the next line.
		sep := []byte("\n")
		if len(text) > 3 && bytes.IndexByte([]byte("&!{["), text[3]) >= 0 {
			sep = []byte(" ")
		}
		text = append(append(text[:3:3], sep...), text[3:]...)
		if markerComment != "" {
			end := bytes.IndexByte(text, '\n')
			text = append(append(append([]byte(nil), text[:end]...), " "+markerComment...), text[end:]...)
		}
	}
	return text, nil
}

// markerLine is a "---" line with node properties only (an anchor, a tag)
// and a comment.
var markerLine = regexp.MustCompile(`^---(?:[ \t]+[&!][^ \t#]*)+[ \t]+(#[^\r\n]*)`)

// keepMarkerComment takes back the comment of a `--- &anchor # comment`
// line from the first key of root, where the YAML parser puts it (it
// would come out on that key's line), and returns it to be written on the
// marker line again; empty when there is none, or when the first key's own
// line holds a comment of its own.
func keepMarkerComment(root *yaml.Node, original []byte) string {
	m := markerLine.FindSubmatch(original)
	if m == nil || root.Kind != yaml.MappingNode || len(root.Content) == 0 {
		return ""
	}
	comment, key := string(m[1]), *root.Content[0]
	second := original[bytes.IndexByte(original, '\n')+1:]
	if end := bytes.IndexByte(second, '\n'); end >= 0 {
		second = second[:end]
	}
	if key.LineComment != comment || bytes.IndexByte(second, '#') >= 0 {
		return ""
	}
	key.LineComment = ""
	root.Content = append([]*yaml.Node{&key}, root.Content[1:]...)
	return comment
}

// crlf reports whether most lines of text end in CRLF, or, as many as in
// LF, the first one does.
func crlf(text []byte) bool {
	lines := bytes.Count(text, []byte("\n"))
	crlfs := bytes.Count(text, []byte("\r\n"))
	if crlfs*2 != lines {
		return crlfs*2 > lines
	}
	first := bytes.IndexByte(text, '\n')
	return first > 0 && text[first-1] == '\r'
}
