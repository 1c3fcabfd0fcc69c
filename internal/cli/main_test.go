package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"unicode"
)

// result is what one run printed and returned.
type result struct {
	code           int
	stdout, stderr string
}

// runWith runs the function as main does, with env as its environment.
func runWith(args []string, in string, env map[string]string) result {
	var out, errOut bytes.Buffer
	getenv := func(k string) string { return env[k] }
	code := run(args, strings.NewReader(in), &out, newLines(&errOut, getenv, "/repo/check"))
	return result{code, out.String(), errOut.String()}
}

func TestFlags(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		code     int
		out, err string
	}{
		{[]string{"--help"}, 0, "kustomize", ""},
		{[]string{"--version"}, 0, "sidecar-lifecycle dev", ""},
		{[]string{"--schema"}, 0, `"const": "SidecarLifecycle"`, ""},
		{[]string{"--bogus"}, 1, "", `sidecar-lifecycle: error: unknown argument "--bogus"`},
		{[]string{"--\x1b[31mred"}, 1, "", `sidecar-lifecycle: error: unknown argument "--\x1b[31mred"`},
	} {
		r := runWith(tc.args, "", nil)
		if r.code != tc.code || !strings.Contains(r.stdout, tc.out) || !strings.Contains(r.stderr, tc.err) {
			t.Errorf("%q: code %d, stdout %.80q, stderr %q", tc.args, r.code, r.stdout, r.stderr)
		}
		checkLines(t, r.stderr)
	}
}

// TestSchemaFlagMatchesCommitted: --schema prints the committed schema.
func TestSchemaFlagMatchesCommitted(t *testing.T) {
	r := runWith([]string{"--schema"}, "", nil)
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	want, err := os.ReadFile("../../schema/sidecarlifecycle.schema.json")
	if err != nil || r.stdout != string(want) {
		t.Errorf("--schema differs from schema/sidecarlifecycle.schema.json (%v)", err)
	}
}

// TestExitCodes: bad input is one line on stderr and exit 1 with nothing on
// stdout; error results go to stdout with each error on stderr, exit 1.
func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		code     int
		stderr   string
		stdout   bool
	}{
		{"malformed", "kind: [", 1, "sidecar-lifecycle: error: input is not valid YAML", false},
		{"empty", "", 1, "sidecar-lifecycle: error: no input", false},
		{"not a list", "kind: Pod\n", 1, `sidecar-lifecycle: error: input is a "Pod", not a ResourceList`, false},
		{"items not a list", "kind: ResourceList\nitems: {a: 1}\n", 1, "sidecar-lifecycle: error: ResourceList items must be a list, found a mapping of 1 key", false},
		{"item not a mapping", "kind: ResourceList\nitems: [[1, 2]]\n", 1, "sidecar-lifecycle: error: ResourceList items[0] must be a mapping (a resource), found a list of 2 entries", false},
		{"functionConfig not a mapping", "kind: ResourceList\nitems: []\nfunctionConfig: [a]\n", 1, "sidecar-lifecycle: error: ResourceList functionConfig must be a mapping, found a list of 1 entry", false},
		{"config error", "kind: ResourceList\nitems: []\nfunctionConfig: {apiVersion: fn.sidecar-lifecycle.dev/v1alpha1, kind: SidecarLifecycle, spec: {mode: fast}}\n",
			1, `sidecar-lifecycle: error: spec.mode: "fast" is not one of ordered, native, auto`, true},
		{"workload error", "kind: ResourceList\nitems: [{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: n}, spec: {containers: [{name: a}, {name: a}]}}]\n",
			1, `sidecar-lifecycle: error: Pod n/p: spec.containers[1].name: found the string "a"; want unique container names`, true},
		{"fine", "kind: ResourceList\nitems: []\n", 0, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runWith(nil, tc.in, nil)
			if r.code != tc.code {
				t.Errorf("exit code %d, want %d", r.code, tc.code)
			}
			if !strings.Contains(r.stderr, tc.stderr) || strings.Contains(r.stderr, "goroutine") {
				t.Errorf("stderr %q, want %q", r.stderr, tc.stderr)
			}
			if (r.stdout != "") != tc.stdout {
				t.Errorf("stdout %q", r.stdout)
			}
			if !tc.stdout && strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("stderr is not one line: %q", r.stderr)
			}
			checkLines(t, r.stderr)
		})
	}
}

const (
	listHead = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
	linkerd  = "functionConfig: {apiVersion: fn.sidecar-lifecycle.dev/v1alpha1, kind: SidecarLifecycle, spec: {sidecars: [{preset: linkerd}]}}\n"
)

// deployment is a Deployment shop/web whose pod spec is spec.
func deployment(spec string) string {
	return "- {apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: shop}, spec: {template: {spec: " + spec + "}}}\n"
}

// TestErrorLines: every error is one line that names the resource or the
// field path with list indexes and YAML names, never a node dump or a Go
// type name.
func TestErrorLines(t *testing.T) {
	many := strings.Repeat("  - {name: app, image: 'x:1'}\n", 50)
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"metadata is a scalar", listHead + "items:\n- {apiVersion: v1, kind: Pod, metadata: foo, spec: {containers: [{name: a}]}}\n",
			[]string{`sidecar-lifecycle: error: ResourceList items[0].metadata must be a mapping, found the string "foo"`}},
		{"metadata is a long list", listHead + "items:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n- apiVersion: v1\n  kind: Pod\n  metadata:\n" + many,
			[]string{"sidecar-lifecycle: error: ResourceList items[1].metadata must be a mapping, found a list of 50 entries"}},
		{"lifecycle is a scalar", listHead + "items:\n" + deployment("{containers: [{name: app}, {name: linkerd-proxy, lifecycle: x}]}") + linkerd,
			[]string{"sidecar-lifecycle: error: Deployment shop/web: ", "sidecar-lifecycle: nothing was changed"}},
		{"template is a scalar", listHead + "items:\n- {apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: shop}, spec: {template: x}}\n" + linkerd,
			[]string{"sidecar-lifecycle: error: Deployment shop/web: "}},
		{"config type errors", listHead + "items: []\nfunctionConfig:\n  apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\n  kind: SidecarLifecycle\n  spec:\n    sidecars:\n    - preset: linkerd\n    - name: x\n      startupProbe: {httpGet: {port: [1]}, initialDelaySeconds: 1.5}\n      bogus: 1\n",
			[]string{
				"sidecar-lifecycle: error: spec.sidecars[1].startupProbe.httpGet.port: expected a port number or name (an integer or a string), found a list of 1 entry",
				"sidecar-lifecycle: error: spec.sidecars[1].startupProbe.initialDelaySeconds: expected an integer, found the float 1.5",
				"sidecar-lifecycle: error: spec.sidecars[1].bogus: unknown field",
			}},
		{"containers is a mapping with many keys", listHead + "items:\n" + deployment("{containers: {"+strings.Repeat("a: 1, ", 40)+"z: 2}}") + linkerd,
			[]string{"sidecar-lifecycle: error: Deployment shop/web: "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runWith(nil, tc.in, nil)
			if r.code != 1 {
				t.Errorf("exit code %d, want 1", r.code)
			}
			for _, want := range tc.want {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
				}
			}
			checkLines(t, r.stderr)
		})
	}
}

// TestWarningsOnStderr: warnings are printed on stderr, marked, also when
// the run succeeds (kustomize shows nothing else).
func TestWarningsOnStderr(t *testing.T) {
	in := listHead + "items:\n- {apiVersion: batch/v1, kind: Job, metadata: {name: migrate, namespace: shop}, spec: {template: {spec: {containers: [{name: app}, {name: linkerd-proxy}]}}}}\n" + linkerd
	r := runWith(nil, in, nil)
	if r.code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", r.code, r.stderr)
	}
	const want = "sidecar-lifecycle: warning: Job shop/migrate spec.template.spec: Job in ordered mode"
	if !strings.HasPrefix(r.stderr, want) {
		t.Errorf("stderr does not start with %q:\n%s", want, r.stderr)
	}
	if strings.Contains(r.stderr, "error") || strings.Contains(r.stderr, "moved linkerd-proxy") {
		t.Errorf("stderr has more than the warning:\n%s", r.stderr)
	}
	checkLines(t, r.stderr)
}

// hostile is a Pod whose name and namespace would forge a GitHub Actions
// command on a line of their own and colour a terminal, with a path
// annotation that needs escaping, and two containers of one name.
const hostile = listHead + `items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: "web\n::error file=x::forged\x1b[31m"
    namespace: "shop\r\u2028"
    annotations: {config.kubernetes.io/path: "apps/a,b:100%.yaml"}
  spec: {containers: [{name: "a\n::warning::x"}, {name: "a\n::warning::x"}]}
`

// TestInputTextIsEscaped: names from the input never start a line or reach
// a terminal; the results carry the same text.
func TestInputTextIsEscaped(t *testing.T) {
	r := runWith(nil, hostile, nil)
	if r.code != 1 {
		t.Fatalf("exit code %d; stderr:\n%s", r.code, r.stderr)
	}
	const want = `sidecar-lifecycle: error: Pod "shop\r\u2028"/"web\n::error file=x::forged\x1b[31m": spec.containers[1].name: found the string "a\n::warning::x"; want unique container names`
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr does not say\n%s\n%s", want, r.stderr)
	}
	checkLines(t, r.stderr)
	if !strings.Contains(r.stdout, `message: 'spec.containers[1].name: found the string "a\n::warning::x"; want unique container names`) {
		t.Errorf("the result's message is not the escaped text:\n%s", r.stdout)
	}
}

// TestGitHubActions: with GITHUB_ACTIONS=true every warning and error is a
// workflow command with the resource's file, escaped as GitHub documents.
func TestGitHubActions(t *testing.T) {
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": "/repo"}
	r := runWith(nil, hostile, env)
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	want := []string{
		`::error file=check/apps/a%2Cb%3A100%25.yaml::sidecar-lifecycle: Pod "shop\r\u2028"/"web\n::error file=x::forged\x1b[31m": spec.containers[1].name: found the string "a\n::warning::x"; want unique container names`,
		"sidecar-lifecycle: nothing was changed",
	}
	if len(lines) != 2 || !strings.HasPrefix(lines[0], want[0]) || lines[1] != want[1] {
		t.Errorf("stderr:\n%s\nwant lines starting:\n%s", r.stderr, strings.Join(want, "\n"))
	}
	checkControl(t, r.stderr)

	job := listHead + "items:\n- {apiVersion: batch/v1, kind: Job, metadata: {name: m, annotations: {internal.config.kubernetes.io/path: /elsewhere/job.yaml}}, spec: {template: {spec: {containers: [{name: app}, {name: linkerd-proxy}]}}}}\n" + linkerd
	r = runWith(nil, job, env)
	if want := "::warning file=/elsewhere/job.yaml::sidecar-lifecycle: Job m spec.template.spec: Job in ordered mode"; r.code != 0 || !strings.HasPrefix(r.stderr, want) {
		t.Errorf("exit code %d, stderr:\n%s\nwant it to start with %s", r.code, r.stderr, want)
	}

	r = runWith(nil, "kind: [", env)
	if want := "::error::sidecar-lifecycle: input is not valid YAML"; r.code != 1 || !strings.HasPrefix(r.stderr, want) {
		t.Errorf("exit code %d, stderr:\n%s\nwant it to start with %s", r.code, r.stderr, want)
	}
}

func TestEscapeForGitHub(t *testing.T) {
	if got, want := escapeData("50% a:b,c\r\nd"), "50%25 a:b,c%0D%0Ad"; got != want {
		t.Errorf("escapeData = %q, want %q", got, want)
	}
	if got, want := escapeProperty("50% a:b,c\r\nd"), "50%25 a%3Ab%2Cc%0D%0Ad"; got != want {
		t.Errorf("escapeProperty = %q, want %q", got, want)
	}
}

// TestSafeWriter: the last guard escapes whatever reaches stderr.
func TestSafeWriter(t *testing.T) {
	var b bytes.Buffer
	w := safeWriter{&b}
	w.Write([]byte("a\nb\x1b[0m\r\x00\xff\u202e"))
	w.Write([]byte("line\n"))
	if got, want := b.String(), `a\nb\x1b[0m\r\x00\xff\u202e`+"\nline\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// checkLines checks that every stderr line is the function's own and safe.
func checkLines(t *testing.T, stderr string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if stderr != "" && !strings.HasPrefix(line, "sidecar-lifecycle: ") {
			t.Errorf("line does not start with sidecar-lifecycle: %q", line)
		}
		for _, bad := range []string{"node contents", "ProbeHandler", "int32", "v1.", "Go struct", "MappingNode", "ScalarNode"} {
			if strings.Contains(line, bad) {
				t.Errorf("line holds %q: %q", bad, line)
			}
		}
	}
	checkControl(t, stderr)
}

// checkControl checks that no character but the line ends is a control or
// format character.
func checkControl(t *testing.T, stderr string) {
	t.Helper()
	for _, r := range strings.TrimSuffix(stderr, "\n") {
		if r != '\n' && !unicode.IsPrint(r) {
			t.Errorf("stderr holds %U: %q", r, stderr)
			return
		}
	}
}

// TestVersionCommit: a binary stamped with the commit (make build, the
// release) prints it after the version.
func TestVersionCommit(t *testing.T) {
	defer func(v, c string) { version, commit = v, c }(version, commit)
	version, commit = "v1.2.3", "0123456789abcdef0123456789abcdef01234567"
	r := runWith([]string{"--version"}, "", nil)
	if want := "sidecar-lifecycle v1.2.3 (commit 0123456789abcdef0123456789abcdef01234567)\n"; r.code != 0 || r.stdout != want {
		t.Errorf("--version: code %d, stdout %q, want %q", r.code, r.stdout, want)
	}
}
