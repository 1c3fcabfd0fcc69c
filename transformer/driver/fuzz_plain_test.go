package driver_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/report"
)

// FuzzPlainStream: whatever the stream, the plain stream never panics,
// an error is one line, and what it writes is UTF-8 and a fixed point.
func FuzzPlainStream(f *testing.F) {
	for _, seed := range []string{
		pod, service + "--- &a\n" + pod, service + "--- !!map\n" + pod, "--- {apiVersion: v1, kind: Pod, spec: {containers: [{name: a}, {name: linkerd-proxy}]}}\n",
		"%YAML 1.2\n---\n" + pod + "...\n%TAG !e! tag:e.com:\n--- # x\n" + service + "...\n# end\n",
		`{"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [{"name": "a"}, {"name": "linkerd-proxy"}]}}` + "\n",
		"{\n    \"kind\": \"Pod\",\n    \"spec\": {\"containers\": [{\"name\": \"a\"}, {\"name\": \"linkerd-proxy\"}]}\n}\n",
		utf16Text(pod+"---\n"+service, false), "\ufeff" + pod, strings.Replace(pod, "\n", "\r\n", 3),
		"---\n---\nnull\n--- ~\n...\n...\n", "a: 1\n...\nb: 2\n", "--- |\n  text\n",
	} {
		f.Add(seed)
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
		var again bytes.Buffer
		if _, err := driver.PlainStream(nil, bytes.NewReader(out.Bytes()), &again); err != nil {
			t.Fatalf("the output fails: %v\ninput %q\noutput %q", err, in, out.String())
		}
		if again.String() != out.String() {
			t.Fatalf("not a fixed point:\ninput  %q\nfirst  %q\nsecond %q", in, out.String(), again.String())
		}
	})
}
