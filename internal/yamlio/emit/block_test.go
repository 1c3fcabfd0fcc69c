package emit

import (
	"bytes"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestBlockWriter holds the block writer to the encoder: every mapping and
// sequence in every YAML file of the repository (golden inputs and
// outputs, vendor corpora, examples), each as the one entry of a list,
// is written to the same bytes by both, or left to the encoder (block
// scalars, and the rest it leaves). Three quarters of them, 9,600 when
// this was written, take the writer; fewer than 8,000 means it has
// stopped doing its job.
func TestBlockWriter(t *testing.T) {
	var written, left int
	eachRepositoryDocument(t, func(path string, doc *yaml.Node) {
		eachCollection(doc, func(n *yaml.Node) {
			if compareBlock(t, path, n) {
				written++
			} else {
				left++
			}
		})
	})
	t.Logf("%d collections written by the block writer, %d left to the encoder", written, left)
	if written < 8000 {
		t.Errorf("the block writer took %d collections and left %d: it should take more than 8,000", written, left)
	}
}

// TestWriteDocument holds WriteDocument to kyaml's encoder with sequences
// at their key's column: every document of every YAML file in the
// repository, and random mappings, each as a document.
func TestWriteDocument(t *testing.T) {
	var written int
	compare := func(where string, doc *yaml.Node) {
		got, ok := WriteDocument(doc)
		if !ok {
			return
		}
		written++
		var want bytes.Buffer
		enc := yaml.NewEncoderWithOptions(&want, &yaml.EncoderOptions{SeqIndent: yaml.CompactSequenceStyle})
		if err := enc.Encode(doc); err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		if err := enc.Close(); err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("%s: WriteDocument wrote\n%s\nthe encoder\n%s", where, got, want.Bytes())
		}
	}
	eachRepositoryDocument(t, func(path string, doc *yaml.Node) {
		compare(path, doc)
		eachCollection(doc, func(n *yaml.Node) {
			if n.Kind == yaml.MappingNode {
				compare(path, &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{n}})
			}
		})
	})
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		if n := randomNode(r, 4); n.Kind == yaml.MappingNode {
			compare("random", &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{n}})
		}
	}
	if written < 5000 {
		t.Errorf("WriteDocument wrote only %d documents", written)
	}
	t.Logf("%d documents written", written)
}

// TestBlockWriterRandom compares the writer with the encoder on random
// trees of the shapes it takes and of nearby ones it must leave alone.
func TestBlockWriterRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var written int
	for range 20000 {
		n := randomNode(r, 4)
		if compareBlock(t, "random", n) {
			written++
		}
	}
	if written < 2000 {
		t.Errorf("the block writer took only %d of 20000 random trees", written)
	}
}

// compareBlock writes n, as the one entry of a list, with the block writer
// and with the encoder, and reports whether the writer took it.
func compareBlock(t *testing.T, where string, n *yaml.Node) bool {
	t.Helper()
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: yaml.NodeTagSeq, Content: []*yaml.Node{n}}
	var fast bytes.Buffer
	if !writeBlock(&fast, seq) {
		return false
	}
	want, err := encodeEntries(&bytes.Buffer{}, seq)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	if !bytes.Equal(fast.Bytes(), want) {
		t.Fatalf("%s: the block writer wrote\n%s\nthe encoder\n%s", where, fast.Bytes(), want)
	}
	return true
}

// eachRepositoryDocument calls f on every document of every YAML file of
// the repository that parses (golden inputs and outputs, vendor corpora,
// examples; some are meant not to parse).
func eachRepositoryDocument(t *testing.T, f func(path string, doc *yaml.Node)) {
	t.Helper()
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			return nil
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dec := yaml.NewDecoder(bytes.NewReader(text))
		for {
			var doc yaml.Node
			if dec.Decode(&doc) != nil {
				return nil
			}
			f(path, &doc)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

// eachCollection calls f on every mapping and sequence under n.
func eachCollection(n *yaml.Node, f func(*yaml.Node)) {
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		f(n)
	}
	for _, c := range n.Content {
		eachCollection(c, f)
	}
}

// scalars are values the writer must write as the encoder does, or leave
// to it: words, numbers, quantities, dates, YAML's special words, quoting
// characters, spaces, non-ASCII, line breaks.
var scalars = []string{
	"app", "nginx:1.25", "cr.l5d.io/linkerd/proxy:stable-2.14.10", "/bin/sleep", "http://x:80/healthz", "a:b", "a: b", "a #b", "a#b",
	"500m", "128Mi", "30s", "1h", "2Gi", "0x1F", "1e3", "1.5", "1.2.3", "2001-12-14", "2001-12-14t21:59:43Z", "8080", "0", "-1", "007", "1_000",
	"true", "True", "TRUE", "false", "yes", "No", "on", "OFF", "y", "n", "null", "Null", "~", "", " ", " lead", "trail ", "a b",
	"-", "-a", "- a", ":", "a:", "?", "?a", "@a", "`a", "!a", "&a", "*a", "%a", "#a", "[a]", "{a}", "a,b", "a]", "'q'", `"q"`, `back\slash`,
	"é", "line\nbreak", "--timeout=60s", "-a", "-1", "-.inf", "---", "--", "- -", "$VAR", "${VAR}", "_x", "a  b", "a,b", "a[0]", "{x}y", "x{y}",
	"touch /data/${POD}", "moved x before y", "a\tb", "2001-12-14 21:59:43.10 -5", "1 2", "0x1F g", "1g", "x: y", "x #y", "x#y", "x:y", "25%", "1/2", "it's: here", "a'b", "a\nb\n", "a\n\nb", "a\n  b\n", " a\nb\n", "\na\n", "a\nb\n\n", "a \nb", "a\n# c\n", "listen: :8080\nupstreams:\n  - x\n", "1,000", "1:20", "0.0.0.0", "a?b", "a{b", "a}b", "a,", "100m,", "tab\tin", ".inf", ".nan", "=", "+1", "+a", "a+b", "_a", ".a", "/", "//", "a/b", "x=y",
}

// comments are head and line comments to put on random nodes.
var comments = []string{"# a comment", "# two\n# lines", "#", "# é", "# a\n\n# gap", "#x", "# trailing ", "not a comment"}

// randomNode is a random tree of depth at most depth.
func randomNode(r *rand.Rand, depth int) *yaml.Node {
	k := r.IntN(10)
	if depth == 0 || k < 4 {
		return randomScalar(r)
	}
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: yaml.NodeTagMap}
	if k < 7 {
		n = &yaml.Node{Kind: yaml.SequenceNode, Tag: yaml.NodeTagSeq}
	}
	if r.IntN(4) == 0 {
		n.Style = yaml.FlowStyle
	}
	if r.IntN(10) == 0 {
		n.HeadComment = comments[r.IntN(len(comments))]
	}
	for range r.IntN(4) {
		if n.Kind == yaml.MappingNode {
			key := randomScalar(r)
			key.Style, key.Tag = 0, yaml.NodeTagString
			if r.IntN(8) == 0 {
				key.HeadComment = comments[r.IntN(len(comments))]
			}
			n.Content = append(n.Content, key)
		}
		n.Content = append(n.Content, randomNode(r, depth-1))
	}
	return n
}

// randomScalar is a scalar as the parser gives one, or with another
// style or tag.
func randomScalar(r *rand.Rand) *yaml.Node {
	v := scalars[r.IntN(len(scalars))]
	var doc yaml.Node
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: v}
	if yaml.Unmarshal([]byte("x: "+v), &doc) == nil && len(doc.Content) == 1 && len(doc.Content[0].Content) == 2 && doc.Content[0].Content[1].Kind == yaml.ScalarNode && r.IntN(2) == 0 {
		n = doc.Content[0].Content[1]
		n.Line, n.Column = 0, 0
	}
	switch r.IntN(12) {
	case 0:
		n.Style = yaml.DoubleQuotedStyle
	case 1:
		n.Style = yaml.SingleQuotedStyle
	case 6:
		n.Style = yaml.LiteralStyle
	case 2:
		n.Tag = ""
	case 3:
		n.Tag = []string{yaml.NodeTagInt, yaml.NodeTagBool, yaml.NodeTagNull, yaml.NodeTagFloat}[r.IntN(4)]
	case 4:
		n.LineComment = comments[r.IntN(len(comments))]
	case 5:
		n.HeadComment = comments[r.IntN(len(comments))]
	}
	return n
}
