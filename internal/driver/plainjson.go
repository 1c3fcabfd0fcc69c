package driver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

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
	compact, err := appendJSON(nil, node)
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

// appendJSON appends node as compact JSON.
func appendJSON(b []byte, n *yaml.Node) ([]byte, error) {
	var err error
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return nil, fmt.Errorf("a document with %d nodes", len(n.Content))
		}
		return appendJSON(b, n.Content[0])
	case yaml.AliasNode:
		return appendJSON(b, n.Alias)
	case yaml.MappingNode:
		b = append(b, '{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b = append(b, ',')
			}
			key := n.Content[i]
			if key.Kind == yaml.AliasNode {
				key = key.Alias
			}
			if key.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("a key that is not a string cannot be written as JSON (line %d)", key.Line)
			}
			b = appendJSONString(b, key.Value)
			b = append(b, ':')
			if b, err = appendJSON(b, n.Content[i+1]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case yaml.SequenceNode:
		b = append(b, '[')
		for i, c := range n.Content {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendJSON(b, c); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	return appendJSONScalar(b, n)
}

// appendJSONScalar appends a scalar as JSON: a null, a boolean or a number
// as YAML resolves it, anything else as a string.
func appendJSONScalar(b []byte, n *yaml.Node) ([]byte, error) {
	switch n.ShortTag() {
	case yaml.NodeTagNull:
		return append(b, "null"...), nil
	case yaml.NodeTagBool:
		var v bool
		if err := n.Decode(&v); err != nil {
			return nil, err
		}
		return strconv.AppendBool(b, v), nil
	case yaml.NodeTagInt, yaml.NodeTagFloat:
		if v := n.Value; v != "" && (v[0] == '-' || v[0] >= '0' && v[0] <= '9') && json.Valid([]byte(v)) {
			return append(b, v...), nil // a JSON number already: as it was written
		}
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, err
		}
		text, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("the number %q cannot be written as JSON", n.Value)
		}
		return append(b, text...), nil
	}
	return appendJSONString(b, n.Value), nil
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	text, _ := json.Marshal(s) // a string always marshals
	return append(b, text...)
}
