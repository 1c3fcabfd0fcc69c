package driver

import (
	"bytes"
	"encoding/json"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// jsonText is how a document's content holds a JSON object, so that the
// edited object is written back the same way: what `kubectl get -o json`
// writes can go back to `kubectl apply`.
type jsonText struct {
	// before is the comments and blank lines before the object, after the
	// text after it.
	before, after []byte
	// indent is the object's indentation, one level; compact is set for an
	// object on one line.
	indent  string
	compact bool
}

// jsonLayout reports whether content is one JSON object, after comment and
// blank lines, and how it is laid out.
func jsonLayout(content []byte) (jsonText, bool) {
	rest := content
	for len(rest) > 0 {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		text := bytes.TrimSpace(line)
		if len(text) > 0 && text[0] != '#' {
			break
		}
		rest = rest[len(line):]
	}
	object := bytes.TrimRight(rest, " \t\r\n")
	if len(object) == 0 || object[0] != '{' || !json.Valid(object) {
		return jsonText{}, false
	}
	l := jsonText{before: content[:len(content)-len(rest)], after: rest[len(object):]}
	nl := bytes.IndexByte(object, '\n')
	if nl < 0 {
		l.compact = true
		return l, true
	}
	next := object[nl+1:]
	l.indent = string(next[:len(next)-len(bytes.TrimLeft(next, " \t"))])
	return l, true
}

// encode writes node as JSON laid out as l: keys in the node's order,
// strings escaped as Go's encoding/json (and so kubectl) escapes them,
// indented with encoding/json's Indent.
func (l jsonText) encode(node *yaml.Node) ([]byte, error) {
	compact, err := yamlio.AppendJSON(nil, node)
	if err != nil {
		return nil, err
	}
	out := append([]byte(nil), l.before...)
	if l.compact {
		out = append(out, compact...)
	} else {
		var buf bytes.Buffer
		if err := json.Indent(&buf, compact, "", l.indent); err != nil {
			return nil, err
		}
		out = append(out, buf.Bytes()...)
	}
	return append(out, l.after...), nil
}
