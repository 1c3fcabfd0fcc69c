package emit

import (
	"bytes"
	"testing"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// FuzzResultsText holds ResultsText, which builds the function's results
// as nodes for the block writer or writes the marshalled text, to the
// round trip the whole-list path takes (marshal, parse, encode), for
// results of every shape with any message, name and value.
func FuzzResultsText(f *testing.F) {
	for _, seed := range []string{
		"", "plain words", "true", "yes", "on", "~", "null", "0x1F", "1e3", "12:30", "- item", "key: value",
		"# comment", "a #b", "trailing ", " leading", "line\nbreak", "line\nbreak\n", "\n\nblank\n\n", "  indented\nnext",
		"tab\there", "quote \" and ' both", "emoji ✓ and \u00e9", "control \x01", "\u2028 line separator",
		"a very long message that goes on and on beyond eighty columns of text, to see whether anything folds it at all",
		"crlf\r\nline", "{flow: map}", "[flow, list]", "*alias", "&anchor", "!tag", "%directive", "@at", "`tick`",
	} {
		f.Add(seed, seed, seed, uint8(len(seed)))
	}
	f.Fuzz(func(t *testing.T, message, name, value string, shape uint8) {
		results := fn.Results{
			{Message: message, Severity: fn.Info, ResourceRef: &fn.ResourceRef{APIVersion: "apps/v1", Kind: "Deployment", Name: name, Namespace: value}},
			{Message: name, Severity: fn.Error, File: &fn.File{Path: value, Index: int(shape) % 3}},
			{Message: value, ResourceRef: &fn.ResourceRef{}},
			{Severity: fn.Severity(name), File: &fn.File{}},
		}
		switch shape % 4 {
		case 1:
			results = append(results, &fn.Result{Message: value, Severity: fn.Warning, Field: &fn.Field{Path: name, CurrentValue: value, ProposedValue: message}},
				&fn.Result{Message: name, Field: &fn.Field{Path: value, CurrentValue: int(shape) - 100, ProposedValue: int64(shape) << 40}},
				&fn.Result{Message: name, Field: &fn.Field{Path: value, CurrentValue: []string{}, ProposedValue: []string{name, value, message}}},
				&fn.Result{Message: name, Field: &fn.Field{ProposedValue: ""}},
				&fn.Result{Message: name, Field: &fn.Field{}})
		case 2:
			results = append(results, &fn.Result{Message: value, Tags: map[string]string{name: value}},
				&fn.Result{Message: name, Field: &fn.Field{Path: value, ProposedValue: map[string]string{name: value}}})
		case 3:
			results = append(results, nil)
		}
		got, err := ResultsText(results)
		if err != nil {
			t.Skip("does not marshal:", err)
		}
		b, err := yaml.Marshal(results)
		if err != nil {
			t.Fatal(err)
		}
		want, err := resultsRoundTrip(b)
		if err != nil {
			t.Skip("does not parse back:", err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("ResultsText wrote\n%s\nthe round trip\n%s", got, want)
		}
	})
}

// TestResultNodesFields: results whose fields hold strings, ints and lists
// of strings are built as nodes, not marshalled; another value is left to
// Marshal.
func TestResultNodesFields(t *testing.T) {
	rs := fn.Results{{Message: "m", Field: &fn.Field{Path: "spec.template.spec", CurrentValue: 30, ProposedValue: "40"}}}
	if _, ok := resultNodes(rs); !ok {
		t.Error("a field with an int and a string is marshalled")
	}
	rs[0].Field.ProposedValue = []string{"a"}
	if _, ok := resultNodes(rs); !ok {
		t.Error("a field with a list of strings is marshalled")
	}
	rs[0].Field.ProposedValue = map[string]string{"a": "b"}
	if _, ok := resultNodes(rs); ok {
		t.Error("a field with a mapping is built as nodes")
	}
}
