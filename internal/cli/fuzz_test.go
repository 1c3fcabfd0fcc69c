package cli

import (
	"strings"
	"testing"
	"unicode"
)

// FuzzStderr: whatever the input and environment, every stderr line is the
// function's own, one line, with no control character; exit code 1 comes
// with at least one line, and a failed run writes nothing but a whole
// ResourceList.
func FuzzStderr(f *testing.F) {
	for _, seed := range []string{
		hostile,
		"kind: [",
		"",
		"kind: Pod\n",
		"kind: ResourceList\nitems: {a: 1}\n",
		"kind: ResourceList\r\nitems:\r\n- {kind: Pod, metadata: {name: \"a\\r\\nb\"}}\r\n",
		"\ufeffkind: ResourceList\nitems: [{kind: Pod, metadata: x}]\n",
		`{"kind": "ResourceList", "items": [{"kind": "Pod", "metadata": {"name": "\u001b[31m"}}]}`,
		listHead + "items: []\nfunctionConfig: {apiVersion: fn.sidecar-lifecycle.dev/v1alpha1, kind: SidecarLifecycle, spec: {sidecars: [{name: \"x\\n::error::y\", startupProbe: {httpGet: {port: [1]}}}]}}\n",
		listHead + "items:\n" + deployment("{containers: [{name: app}, {name: linkerd-proxy, lifecycle: \"\\e[2J\"}]}") + linkerd,
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, in string, github bool) {
		env := map[string]string{}
		if github {
			env["GITHUB_ACTIONS"] = "true"
		}
		r := runWith(nil, in, env)
		if r.code != 0 && r.stderr == "" {
			t.Fatalf("exit code %d with nothing on stderr", r.code)
		}
		if r.stderr != "" && !strings.HasSuffix(r.stderr, "\n") {
			t.Fatalf("stderr does not end a line: %q", r.stderr)
		}
		for _, line := range strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n") {
			if r.stderr == "" {
				break
			}
			own := strings.HasPrefix(line, "sidecar-lifecycle: ") ||
				github && (strings.HasPrefix(line, "::error") || strings.HasPrefix(line, "::warning"))
			if !own {
				t.Fatalf("line is not the function's own: %q", line)
			}
			for _, c := range line {
				if !unicode.IsPrint(c) {
					t.Fatalf("line holds %U: %q", c, line)
				}
			}
		}
		if r.code != 0 && r.stdout != "" && !strings.Contains(r.stdout, "kind: ResourceList") {
			t.Fatalf("a failed run wrote something other than a ResourceList:\n%s", r.stdout)
		}
	})
}
