package driver_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"unicode/utf16"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
)

// pod is a Pod whose proxy comes last: the function changes it.
const pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: web\n    image: web\n  - name: linkerd-proxy\n    image: proxy\n"

// service is a document the function leaves alone.
const service = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n"

// documentsOf parses a stream strictly and returns its documents' kinds;
// it fails the test when the stream does not parse. The parser reads YAML
// 1.1 only: "%YAML 1.2" is read as "%YAML 1.1".
func documentsOf(t *testing.T, out string) []string {
	t.Helper()
	dec := yaml.NewDecoder(strings.NewReader(strings.ReplaceAll(out, "%YAML 1.2\n", "%YAML 1.1\n")))
	var kinds []string
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if err == io.EOF {
			return kinds
		}
		if err != nil {
			t.Fatalf("the output does not parse: %v\n%s", err, out)
		}
		kind, _ := doc["kind"].(string)
		kinds = append(kinds, kind)
	}
}

// TestPlainStreamKeepsWhatSurroundsAChangedDocument: a changed document
// keeps the separator it starts with, with what stands on its line, the
// directives before it and the end marker after it, as an unchanged one
// does; the documents around it come out byte for byte.
func TestPlainStreamKeepsWhatSurroundsAChangedDocument(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		// want are pieces the output holds, in order; kinds its documents.
		want  []string
		kinds []string
	}{
		{"anchor on the marker line", service + "--- &pod\n" + pod,
			[]string{service + "--- &pod\napiVersion: v1\nkind: Pod\n", "linkerd-await"}, []string{"Service", "Pod"}},
		{"anchor and a comment on the marker line", service + "--- &pod # the pod\n" + pod,
			[]string{service + "--- &pod # the pod\napiVersion: v1\nkind: Pod\n", "linkerd-await"}, []string{"Service", "Pod"}},
		{"tag on the marker line", service + "--- !!map\n" + pod,
			[]string{service + "--- !!map\napiVersion: v1\n", "linkerd-await"}, []string{"Service", "Pod"}},
		{"flow mapping on the marker line", service + "--- {apiVersion: v1, kind: Pod, metadata: {name: web}, spec: {containers: [{name: web}, {name: linkerd-proxy}]}}\n--- {apiVersion: v1, kind: Service, metadata: {name: db}}\n",
			[]string{service + "--- {apiVersion: v1, kind: Pod", "linkerd-await", "}\n--- {apiVersion: v1, kind: Service, metadata: {name: db}}\n"}, []string{"Service", "Pod", "Service"}},
		{"comment on the marker line", service + "--- # the pod\n" + pod,
			[]string{service + "--- # the pod\napiVersion: v1\n", "linkerd-await"}, []string{"Service", "Pod"}},
		{"empty documents", "---\n---\n# only a comment\n---\nnull\n--- ~\n---\n" + pod,
			[]string{"---\n---\n# only a comment\n---\nnull\n--- ~\n---\napiVersion: v1\n", "linkerd-await"}, []string{"", "", "", "", "Pod"}},
		{"end markers", pod + "...\n---\n" + service + "...\n",
			[]string{"linkerd-await", "...\n---\n" + service + "...\n"}, []string{"Pod", "Service"}},
		{"end marker with a comment, then comments", service + "--- \n" + pod + "... # end of the pod\n# next\n",
			[]string{service + "--- \n", "linkerd-await", "    image: web\n... # end of the pod\n# next\n"}, []string{"Service", "Pod"}},
		{"directives", "%YAML 1.2\n---\n" + service + "...\n%YAML 1.2\n%TAG !k! tag:k8s.io,2024:\n--- # pod\n" + strings.Replace(pod, "name: web\nspec", "name: !k!name web\nspec", 1) + "...\n",
			[]string{"%YAML 1.2\n---\n" + service + "...\n%YAML 1.2\n%TAG !k! tag:k8s.io,2024:\n--- # pod\napiVersion: v1\n", "linkerd-await", "...\n"}, []string{"Service", "Pod"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := runPlain(t, "", tc.in)
			if err != nil {
				t.Fatal(err)
			}
			rest := out
			for _, piece := range tc.want {
				i := strings.Index(rest, piece)
				if i < 0 {
					t.Fatalf("output lacks %q after what came before:\n%s", piece, out)
				}
				rest = rest[i+len(piece):]
			}
			if kinds := documentsOf(t, out); strings.Join(kinds, ",") != strings.Join(tc.kinds, ",") {
				t.Errorf("documents %v, want %v:\n%s", kinds, tc.kinds, out)
			}
			again, _, err := runPlain(t, "", out)
			if err != nil || again != out {
				t.Errorf("second run changed the output (err %v):\n%s", err, again)
			}
		})
	}
}

// kubectlJSON is a Pod as `kubectl get -o json` writes it: four spaces.
func kubectlJSON(t *testing.T, indent string) string {
	t.Helper()
	obj := map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "web", "labels": map[string]any{"a": "<b>"}},
		"spec": map[string]any{"containers": []any{
			map[string]any{"name": "web", "image": "web", "ports": []any{map[string]any{"containerPort": 8080}}},
			map[string]any{"name": "linkerd-proxy", "image": "proxy"},
		}, "terminationGracePeriodSeconds": 1.5e1, "hostNetwork": false, "nodeSelector": nil},
	}
	var b []byte
	var err error
	if indent == "" {
		b, err = json.Marshal(obj)
	} else {
		b, err = json.MarshalIndent(obj, "", indent)
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// TestPlainStreamJSON: a JSON document the function changes is written
// back as JSON indented as it came (kubectl's four spaces, two, a tab, or
// one line), with its keys in their order; a second run changes nothing.
func TestPlainStreamJSON(t *testing.T) {
	for _, indent := range []string{"    ", "  ", "\t", ""} {
		in := kubectlJSON(t, indent)
		out, _, err := runPlain(t, "", in)
		if err != nil {
			t.Fatal(err)
		}
		var obj struct {
			Spec struct {
				Containers []struct {
					Name      string
					Lifecycle map[string]any
				}
			}
		}
		if err := json.Unmarshal([]byte(out), &obj); err != nil {
			t.Fatalf("indent %q: the output is not JSON: %v\n%s", indent, err, out)
		}
		if c := obj.Spec.Containers; len(c) != 2 || c[0].Name != "linkerd-proxy" || c[0].Lifecycle == nil {
			t.Errorf("indent %q: the proxy is not first with a hook:\n%s", indent, out)
		}
		var want bytes.Buffer
		if indent == "" {
			json.Compact(&want, []byte(out))
		} else {
			json.Indent(&want, []byte(strings.TrimSpace(out)), "", indent)
		}
		if strings.TrimSpace(out) != want.String() || !strings.HasSuffix(out, "}\n") {
			t.Errorf("indent %q: not laid out as the input:\n%s", indent, out)
		}
		if !strings.HasPrefix(out, "{"+strings.TrimSuffix("\n"+indent, "\n")+`"apiVersion": "v1",`) && indent != "" {
			t.Errorf("indent %q: keys out of order:\n%s", indent, out)
		}
		if !strings.Contains(out, `\u003cb\u003e`) || !strings.Contains(out, `"nodeSelector": null`) && indent != "" {
			t.Errorf("indent %q: a string or null written otherwise than kubectl writes it:\n%s", indent, out)
		}
		again, _, err := runPlain(t, "", out)
		if err != nil || again != out {
			t.Errorf("indent %q: second run changed the output (err %v):\n%s", indent, err, again)
		}
	}
}

// TestPlainStreamJSONFiles: JSON documents joined with "---" lines, one
// after a comment, are each written back as JSON; a YAML document beside
// them stays YAML.
func TestPlainStreamJSONFiles(t *testing.T) {
	in := kubectlJSON(t, "  ") + "---\n# Source: pod.json\n" + kubectlJSON(t, "  ") + "---\n" + pod
	out, _, err := runPlain(t, "", in)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(out, "---\n")
	if len(parts) != 3 || !strings.HasPrefix(parts[1], "# Source: pod.json\n{\n") {
		t.Fatalf("separators or comment lost:\n%s", out)
	}
	for i, p := range parts[:2] {
		p = strings.TrimPrefix(p, "# Source: pod.json\n")
		if !json.Valid([]byte(p)) || !strings.Contains(p, "linkerd-await") {
			t.Errorf("document %d is not edited JSON:\n%s", i+1, p)
		}
	}
	if !strings.HasPrefix(parts[2], "apiVersion: v1\n") || !strings.Contains(parts[2], "linkerd-await") {
		t.Errorf("the YAML document:\n%s", parts[2])
	}
}

// utf16Text encodes s as UTF-16 with a byte order mark.
func utf16Text(s string, bigEndian bool) string {
	var b []byte
	for _, u := range append([]uint16{0xFEFF}, utf16.Encode([]rune(s))...) {
		if bigEndian {
			b = append(b, byte(u>>8), byte(u))
		} else {
			b = append(b, byte(u), byte(u>>8))
		}
	}
	return string(b)
}

// TestPlainStreamUTF16: a UTF-16 stream, in either byte order, splits at
// its markers and comes out as the UTF-8 stream does, unchanged documents
// included; a UTF-8 byte order mark goes.
func TestPlainStreamUTF16(t *testing.T) {
	in := "# ünïcödé\n" + service + "---\n" + pod
	want, _, err := runPlain(t, "", in)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"UTF-16LE": utf16Text(in, false), "UTF-16BE": utf16Text(in, true), "UTF-8 with a byte order mark": "\ufeff" + in,
	} {
		out, _, err := runPlain(t, "", text)
		if err != nil || out != want {
			t.Errorf("%s: err %v, output\n%q\nwant\n%q", name, err, out, want)
		}
	}
}

// TestPlainStreamNotText: bytes that are not text are an error at their
// line, and nothing is written.
func TestPlainStreamNotText(t *testing.T) {
	var out bytes.Buffer
	_, err := driver.PlainStream(nil, strings.NewReader(service+"---\nkind: \x89PNG\n"), &out)
	var le *yamlio.LineError
	var nt *yamlio.NotTextError
	if !errors.As(err, &le) || !errors.As(err, &nt) || le.Line != 5 || out.Len() > 0 {
		t.Errorf("error %v, %d bytes written: want a NotTextError at line 5 and nothing", err, out.Len())
	}
}

// TestPlainStreamMixedLineEnds: a changed document is written with the
// line end most of its lines have; an unchanged one keeps each line's.
func TestPlainStreamMixedLineEnds(t *testing.T) {
	crlfMostly := strings.Replace(strings.ReplaceAll(pod, "\n", "\r\n"), "\r\n", "\n", 2)
	lfMostly := strings.Replace(pod, "\n", "\r\n", 2)
	mixedService := "apiVersion: v1\r\nkind: Service\nmetadata: {name: web}\r\n"
	for _, tc := range []struct {
		name, in string
		crlf     bool
	}{
		{"mostly CRLF", crlfMostly, true},
		{"mostly LF", lfMostly, false},
		{"a tie: the first line's", "apiVersion: v1\r\nkind: Pod\nmetadata: {name: web}\r\nspec: {containers: [{name: web}, {name: linkerd-proxy}]}\n", true},
	} {
		out, _, err := runPlain(t, "", mixedService+"---\n"+tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out, mixedService+"---\n") {
			t.Errorf("%s: the unchanged document changed:\n%q", tc.name, out)
		}
		changed := strings.TrimPrefix(out, mixedService+"---\n")
		lines, crlfs := strings.Count(changed, "\n"), strings.Count(changed, "\r\n")
		if tc.crlf && crlfs != lines || !tc.crlf && crlfs != 0 || !strings.Contains(changed, "linkerd-await") {
			t.Errorf("%s: %d of %d line ends are CRLF:\n%q", tc.name, crlfs, lines, changed)
		}
	}
}

// TestPlainStreamLines: each problem comes with the line its resource
// starts on, a closing result too; an error in a document names the line
// in the stream, not in the document.
func TestPlainStreamLines(t *testing.T) {
	cfg := "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec:\n  sidecars:\n  - {preset: linkerd, waitBeforeExit: 5s}\n  app: {drainDelay: 10s}\n"
	in := service + "---\n# the pod\n" + pod + "---\n" + strings.Replace(pod, "name: web\nspec", "name: api\nspec", 1)
	_, problems, err := runPlain(t, cfg, in)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep, _ := driver.PlainStream(configNode(t, cfg), strings.NewReader(in), &out)
	if len(problems) != 2 || len(rep.Lines) != 2 || rep.Lines[0] != 6 || rep.Lines[1] != 17 {
		t.Errorf("problems %d, lines %v: want two, at lines 6 and 17", len(problems), rep.Lines)
	}
	for _, tc := range []struct {
		name, in string
		line     int
		msg      string
	}{
		{"a parse error", service + "---\n" + pod + "  - name: [\n", 15, "not valid YAML: did not find expected node content"},
		{"metadata not a mapping", service + "---\nkind: Pod\nmetadata:\n  - a\n", 5, "metadata must be a mapping, found a list of 1 entry"},
		{"after directives", "%YAML 1.2\n%TAG !a! tag:a.com:\n---\n" + service + "---\n- a\n", 8, "expected a Kubernetes resource"},
	} {
		_, err := driver.PlainStream(nil, strings.NewReader(tc.in), io.Discard)
		var le *yamlio.LineError
		if !errors.As(err, &le) || le.Line != tc.line || !strings.Contains(le.Err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want line %d: %s", tc.name, err, tc.line, tc.msg)
		}
	}
}

// TestMaxDocumentSize: a document, or a ResourceList item, past the limit
// is an error naming its line, and nothing is written; the default limit
// takes both.
func TestMaxDocumentSize(t *testing.T) {
	var data strings.Builder
	for i := range 100 {
		fmt.Fprintf(&data, "  k%d: value\n", i)
	}
	big := "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n" + data.String()
	var out bytes.Buffer
	_, err := driver.PlainStreamWith(nil, strings.NewReader(pod+big), &out, driver.Options{MaxDocumentSize: 500})
	var le *yamlio.LineError
	var tl *yamlio.TooLargeError
	if !errors.As(err, &le) || !errors.As(err, &tl) || le.Line != 11 || out.Len() > 0 {
		t.Errorf("plain stream: %v, %d bytes written", err, out.Len())
	}
	if _, err := driver.PlainStreamWith(nil, strings.NewReader(pod+big), io.Discard, driver.Options{}); err != nil {
		t.Errorf("plain stream, default limit: %v", err)
	}
	list := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: big}\n  data:\n" + strings.ReplaceAll(data.String(), "  k", "    k")
	_, err = driver.ResourceListWith(strings.NewReader(list), &out, driver.Options{MaxDocumentSize: 500})
	if !errors.As(err, &le) || !errors.As(err, &tl) || le.Line != 4 || tl.What != "ResourceList items[0]" || out.Len() > 0 {
		t.Errorf("ResourceList: %v, %d bytes written", err, out.Len())
	}
	if _, err := driver.ResourceListWith(strings.NewReader(list), io.Discard, driver.Options{}); err != nil {
		t.Errorf("ResourceList, default limit: %v", err)
	}
}

// TestPlainStreamClosingLines: a closing result (the termination budget's,
// across resources) comes with the line of the resource it is about.
func TestPlainStreamClosingLines(t *testing.T) {
	items, err := os.ReadFile("testdata/budget-issue-case/items.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := os.ReadFile("testdata/budget-issue-case/config.yaml")
	rep, _ := driver.PlainStream(configNode(t, string(cfg)), bytes.NewReader(items), io.Discard)
	lines := strings.Split(string(items), "\n")
	var found bool
	for i, p := range rep.Problems {
		if p.ResourceRef == nil || !strings.Contains(p.Message, "keeps sending to") {
			continue
		}
		found = true
		if l := rep.Lines[i]; l < 1 || l >= len(lines) || !strings.HasPrefix(lines[l-1], "apiVersion: ") || lines[l] != "kind: "+p.ResourceRef.Kind {
			t.Errorf("the load balancer diagnostic points at line %d, not at its %s's first line", l, p.ResourceRef.Kind)
		}
	}
	if !found || len(rep.Lines) != len(rep.Problems) {
		t.Errorf("no load balancer diagnostic, or lines %v for %d problems", rep.Lines, len(rep.Problems))
	}
}
