// Package krmtest holds test helpers shared by the golden, example and fuzz
// tests: building and splitting ResourceLists, and checking the function's
// invariants on an input and its output.
package krmtest

import (
	"bytes"
	"fmt"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// ResourceList wraps a multi-document YAML stream of items and an optional
// functionConfig into a ResourceList.
func ResourceList(items, functionConfig []byte) ([]byte, error) {
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(items), OmitReaderAnnotations: true}).Read()
	if err != nil {
		return nil, fmt.Errorf("reading items: %w", err)
	}
	var fc *yaml.RNode
	if len(bytes.TrimSpace(functionConfig)) > 0 {
		if fc, err = yaml.Parse(string(functionConfig)); err != nil {
			return nil, fmt.Errorf("reading functionConfig: %w", err)
		}
	}
	var out bytes.Buffer
	w := kio.ByteWriter{Writer: &out, KeepReaderAnnotations: true, WrappingKind: kio.ResourceListKind, WrappingAPIVersion: kio.ResourceListAPIVersion, FunctionConfig: fc}
	if err := w.Write(nodes); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// Output is a function's output ResourceList, split.
type Output struct {
	// Items are the output items, in order.
	Items []*yaml.RNode
	// Results is the results list, or nil.
	Results *yaml.RNode
}

// Split parses a ResourceList into its items and results.
func Split(rl []byte) (Output, error) {
	r := &kio.ByteReader{Reader: bytes.NewReader(rl), OmitReaderAnnotations: true}
	items, err := r.Read()
	if err != nil {
		return Output{}, err
	}
	doc, err := yaml.Parse(string(rl))
	if err != nil {
		return Output{}, err
	}
	out := Output{Items: items}
	if f := doc.Field("results"); f != nil {
		out.Results = f.Value
	}
	return out, nil
}

// Stream writes items as a multi-document YAML stream.
func Stream(items []*yaml.RNode) ([]byte, error) {
	var out bytes.Buffer
	err := kio.ByteWriter{Writer: &out, KeepReaderAnnotations: true}.Write(items)
	return out.Bytes(), err
}

// RoundTrip returns each item of a ResourceList as kyaml reads and writes it,
// with no edit: what an untouched item must look like in the output.
func RoundTrip(rl []byte) ([]string, error) {
	out, err := Split(rl)
	if err != nil {
		return nil, err
	}
	return Strings(out.Items)
}

// Strings encodes each item on its own.
func Strings(items []*yaml.RNode) ([]string, error) {
	s := make([]string, len(items))
	for i, it := range items {
		b, err := Stream([]*yaml.RNode{it})
		if err != nil {
			return nil, err
		}
		s[i] = string(b)
	}
	return s, nil
}

// Parse parses YAML text for a test, failing it on error.
func Parse(t testing.TB, s string) *yaml.RNode {
	t.Helper()
	rn, err := yaml.Parse(s)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, s)
	}
	return rn
}

// Config loads a functionConfig for a test, failing it on error.
func Config(t testing.TB, text string) *config.SidecarLifecycle {
	t.Helper()
	cfg, err := config.LoadBytes([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
