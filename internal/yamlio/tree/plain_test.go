package tree_test

import (
	"math/rand/v2"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
)

// TestPlainString checks, on chosen strings and random ones, that a string
// PlainString takes is read back as that string by the YAML 1.2 reader and
// is no other type to a YAML 1.1 reader, and that the chosen ones it must
// take, it takes.
func TestPlainString(t *testing.T) {
	take := []string{"app", "nginx:1.25", "/bin/sleep", "http://x:80/a", "500m", "128Mi", "30s", "25%", "--timeout=60s", "-a",
		"$VAR", "_x", "a b", "moved x before y", "touch /data/${POD}", "a,b", "a[0]"}
	leave := []string{"", "true", "False", "yes", "No", "on", "OFF", "y", "N", "null", "~", "1", "-1", "0x1F", "1e3", "1.5",
		"1_000", "1:20", ".inf", "-.inf", ".nan", "2001-12-14", "2001-12-14 21:59:43.10 -5", "a: b", "a #b", "a:", " a", "a ",
		"---", "- a", "-", "#a", "&a", "*a", "!a", "'a'", `"a"`, "@a", "`a", "%a", "|", ">", "?a", "[a]", "{a}", "é", "a\tb", "a\nb", "<<", "=", ".a", "+1"}
	for _, s := range take {
		if !tree.PlainString(s) {
			t.Errorf("PlainString(%q) = false, want true", s)
		}
	}
	for _, s := range leave {
		if tree.PlainString(s) && !readsBack(s) {
			t.Errorf("PlainString(%q) = true for a string that does not read back", s)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	const chars = "abyYnNoOtTeE019-_.:/ #$%,=+@[]{}~<>!&*'\"\t"
	for range 200000 {
		b := make([]byte, 1+r.IntN(6))
		for i := range b {
			b[i] = chars[r.IntN(len(chars))]
		}
		if s := string(b); tree.PlainString(s) && !readsBack(s) {
			t.Fatalf("PlainString(%q) = true for a string that does not read back", s)
		}
	}
}

// readsBack reports whether "k: s" reads back as the string s, plain, and
// is no other type to a YAML 1.1 reader.
func readsBack(s string) bool {
	var doc yaml.Node
	if yaml.Unmarshal([]byte("k: "+s), &doc) != nil || len(doc.Content) != 1 || len(doc.Content[0].Content) != 2 {
		return false
	}
	v := doc.Content[0].Content[1]
	return v.Kind == yaml.ScalarNode && v.Tag == yaml.NodeTagString && v.Value == s && v.Style == 0 &&
		!yaml.IsYaml1_1NonString(&yaml.Node{Kind: yaml.ScalarNode, Value: s})
}
