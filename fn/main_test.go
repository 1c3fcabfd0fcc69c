package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestFlags(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		code     int
		out, err string
	}{
		{[]string{"--help"}, 0, "kustomize", ""},
		{[]string{"--version"}, 0, "sidecar-lifecycle dev", ""},
		{[]string{"--schema"}, 0, `"const": "SidecarLifecycle"`, ""},
		{[]string{"--bogus"}, 1, "", `unknown argument "--bogus"`},
	} {
		var out, errOut bytes.Buffer
		code := run(tc.args, strings.NewReader(""), &out, &errOut)
		if code != tc.code || !strings.Contains(out.String(), tc.out) || !strings.Contains(errOut.String(), tc.err) {
			t.Errorf("%v: code %d, stdout %.80q, stderr %q", tc.args, code, out.String(), errOut.String())
		}
	}
}

// TestSchemaFlagMatchesCommitted: --schema prints the committed schema.
func TestSchemaFlagMatchesCommitted(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"--schema"}, nil, &out, &out); code != 0 {
		t.Fatal(out.String())
	}
	want, err := os.ReadFile("../schema/sidecarlifecycle.schema.json")
	if err != nil || !bytes.Equal(out.Bytes(), want) {
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
		{"malformed", "kind: [", 1, "sidecar-lifecycle: input is not valid YAML", false},
		{"empty", "", 1, "sidecar-lifecycle: no input", false},
		{"not a list", "kind: Pod\n", 1, `sidecar-lifecycle: input is a "Pod", not a ResourceList`, false},
		{"config error", "kind: ResourceList\nitems: []\nfunctionConfig: {apiVersion: fn.sidecar-lifecycle.dev/v1alpha1, kind: SidecarLifecycle, spec: {mode: fast}}\n",
			1, `sidecar-lifecycle: spec.mode: "fast" is not one of ordered, native, auto`, true},
		{"workload error", "kind: ResourceList\nitems: [{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: n}, spec: {containers: [{name: a}, {name: a}]}}]\n",
			1, `sidecar-lifecycle: Pod n/p: spec.containers[1].name: found "a"; want unique container names`, true},
		{"fine", "kind: ResourceList\nitems: []\n", 0, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(nil, strings.NewReader(tc.in), &out, &errOut)
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			if !strings.Contains(errOut.String(), tc.stderr) || strings.Contains(errOut.String(), "goroutine") {
				t.Errorf("stderr %q, want %q", errOut.String(), tc.stderr)
			}
			if (out.Len() > 0) != tc.stdout {
				t.Errorf("stdout %q", out.String())
			}
			if !tc.stdout && strings.Count(errOut.String(), "\n") != 1 {
				t.Errorf("stderr is not one line: %q", errOut.String())
			}
		})
	}
}
