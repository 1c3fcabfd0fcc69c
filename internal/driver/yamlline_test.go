package driver_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
)

// configMapLines is a ConfigMap of n lines, the last one "data:" followed
// by the given value.
func configMapLines(n int, data string) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels:\n")
	for i := 6; i < n; i++ {
		b.WriteString("    l" + strings.Repeat("x", i) + ": v\n")
	}
	b.WriteString("data: " + data + "\n")
	return b.String()
}

// TestYAMLErrorLines: a syntax error is reported at the line it is on,
// whether yaml.v3 finds it in its scanner (which counts lines from 1) or
// its parser (which counts them from 0); one at the end of a document is
// at its last line. The plain stream's case is a ConfigMap's "data: {a: [}"
// on line 35, which was reported at line 34.
func TestYAMLErrorLines(t *testing.T) {
	first := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n" // 5 lines
	for _, tc := range []struct{ name, in, want string }{
		{"flow mapping, parser", first + configMapLines(30, "{a: [}") + "# after\n", "line 35: not valid YAML: did not find expected node content"},
		{"flow sequence, parser", first + configMapLines(30, "[a, }") + "# after\n", "line 35: not valid YAML: did not find expected node content"},
		// yaml.v3 names the line the mapping it was reading starts on.
		{"block mapping, parser", first + configMapLines(30, "") + "  k: v\n  - y\n", "line 36: not valid YAML: did not find expected key"},
		{"tab, scanner", first + configMapLines(30, "\n\t- a"), "line 36: not valid YAML: found character that cannot start any token"},
		{"unclosed at the end", first + configMapLines(30, "["), "line 35: not valid YAML: did not find expected node content"},
		{"first line", "kind: ]\n", "line 1: not valid YAML: did not find expected node content"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			_, err := driver.PlainStream(nil, strings.NewReader(tc.in), &out)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	rl := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  data: {a: [}\n  metadata: {name: a}\n"
	if _, err := driver.ParseResourceList([]byte(rl)); err == nil || !strings.Contains(err.Error(), "yaml: line 6: did not find expected node content") {
		t.Errorf("ResourceList: error %v, want it at line 6", err)
	}
}
