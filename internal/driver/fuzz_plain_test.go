package driver_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/yamltest"
)

// FuzzPlainStream: whatever the stream, the plain stream never panics,
// an error is one line, and what it writes is UTF-8 and a fixed point;
// from UTF-8 input, every document it does not change comes out as its
// input bytes.
func FuzzPlainStream(f *testing.F) {
	for _, seed := range []string{
		pod, service + "--- &a\n" + pod, service + "--- !!map\n" + pod, "--- {apiVersion: v1, kind: Pod, spec: {containers: [{name: a}, {name: linkerd-proxy}]}}\n",
		"%YAML 1.2\n---\n" + pod + "...\n%TAG !e! tag:e.com:\n--- # x\n" + service + "...\n# end\n",
		`{"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [{"name": "a"}, {"name": "linkerd-proxy"}]}}` + "\n",
		"{\n    \"kind\": \"Pod\",\n    \"spec\": {\"containers\": [{\"name\": \"a\"}, {\"name\": \"linkerd-proxy\"}]}\n}\n",
		utf16Text(pod+"---\n"+service, false), "\ufeff" + pod, strings.Replace(pod, "\n", "\r\n", 3),
		"---\n---\nnull\n--- ~\n...\n...\n", "a: 1\n...\nb: 2\n", "--- |\n  text\n",
		// Comments kyaml's writer would move: on a Service, and on a
		// workload that only gets a warning (a native sidecar in ordered mode).
		"apiVersion: v1\nkind: Service\nmetadata: {name: a}\nspec:\n  ports:\n  - port: 443\n# at the first column\n\n  - protocol: TCP\n    port: 80\n",
		"apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  containers:\n  - {name: app,   image: app}\n  initContainers:\n  - name: cloud-sql-proxy\n    restartPolicy: Always\n    env:\n    - name: A\n    #   value: \"1\"\n\n    - name: B\n      value: \"2\"\n",
	} {
		f.Add(seed)
	}
	for _, v := range yamltest.ScalarClasses() {
		f.Add("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: " + v + "\n---\n" + pod)
	}
	for _, b := range yamltest.Breaks {
		for _, head := range []string{"# c", "%YAML 1.2", "--- # c", service + "... # c"} {
			f.Add(head + b + "kind: Pod\n" + pod)
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		var out bytes.Buffer
		_, err := driver.PlainStream(nil, strings.NewReader(in), &out)
		if err != nil {
			if !errors.Is(err, report.ErrResults) && strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		if !utf8.Valid(out.Bytes()) {
			t.Fatalf("output is not UTF-8: %q", out.String())
		}
		if utf8.ValidString(in) && !strings.HasPrefix(in, "\ufeff") {
			if problem := rewrittenDocuments(t, []byte(in), out.Bytes()); problem != "" {
				t.Fatalf("%s\ninput %q", problem, in)
			}
		}
		var again bytes.Buffer
		if _, err := driver.PlainStream(nil, bytes.NewReader(out.Bytes()), &again); err != nil {
			t.Fatalf("the output fails: %v\ninput %q\noutput %q", err, in, out.String())
		}
		if again.String() != out.String() {
			t.Fatalf("not a fixed point:\ninput  %q\nfirst  %q\nsecond %q", in, out.String(), again.String())
		}
	})
}
