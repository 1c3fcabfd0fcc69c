package driver_test

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// helmStream is a stream as `helm template` writes it: a "---" line and a
// "# Source:" comment before each document.
const helmStream = `---
# Source: payments/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: payments
spec:
  ports:
  - {name: http, port: 80}   # flow style stays as written
---
# Source: payments/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: payments
spec:
  template:
    spec:
      containers:
      # The API.
      - name: payments
        image: payments:2.1.0
      # The proxy, last: the chart's order.
      - name: linkerd-proxy
        image: proxy
`

func runPlain(t *testing.T, cfg, in string) (string, fn.Results, error) {
	t.Helper()
	var cfgNode *yaml.RNode
	if cfg != "" {
		cfgNode = krmtest.Parse(t, cfg)
	}
	var out bytes.Buffer
	rep, err := driver.PlainStream(cfgNode, strings.NewReader(in), &out)
	if err != nil && !errors.Is(err, report.ErrResults) {
		t.Fatalf("PlainStream: %v", err)
	}
	return out.String(), rep.Problems, err
}

// TestRunPlainHelmStream: the workload is edited, the Service and every
// separator and comment come out as they went in, and the output is a
// fixed point.
func TestRunPlainHelmStream(t *testing.T) {
	out, _, err := runPlain(t, "", helmStream)
	if err != nil {
		t.Fatal(err)
	}
	service := helmStream[:strings.Index(helmStream, "---\n# Source: payments/templates/deployment.yaml")]
	if !strings.HasPrefix(out, service+"---\n# Source: payments/templates/deployment.yaml\n") {
		t.Errorf("the Service document or the separators changed:\n%s", out)
	}
	proxy, app := strings.Index(out, "- name: linkerd-proxy"), strings.Index(out, "- name: payments")
	if proxy < 0 || app < 0 || proxy > app {
		t.Errorf("linkerd-proxy is not first:\n%s", out)
	}
	for _, c := range []string{"# The API.", "# The proxy, last: the chart's order.", "linkerd-await"} {
		if !strings.Contains(out, c) {
			t.Errorf("output lacks %q:\n%s", c, out)
		}
	}
	again, _, err := runPlain(t, "", out)
	if err != nil || again != out {
		t.Errorf("second run changed the output (err %v):\n%s", err, again)
	}
}

// TestRunPlainLineEnds: a changed CRLF document keeps CRLF line ends, and a
// stream without a leading separator keeps having none.
func TestRunPlainLineEnds(t *testing.T) {
	in := strings.ReplaceAll(helmStream[len("---\n"):], "\n", "\r\n")
	out, _, err := runPlain(t, "", in)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(out, "---") {
		t.Errorf("a separator was added:\n%q", out)
	}
	if n := strings.Count(out, "\n"); n != strings.Count(out, "\r\n") {
		t.Errorf("%d of %d line ends are CRLF:\n%q", strings.Count(out, "\r\n"), n, out)
	}
	if !strings.Contains(out, "linkerd-await") {
		t.Errorf("the workload was not edited:\n%q", out)
	}
}

// TestRunPlainErrors: an error result writes nothing and is reported; bad
// documents are one-line errors.
func TestRunPlainErrors(t *testing.T) {
	cfg := "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec:\n  sidecars:\n  - {name: cloud-sql-proxy, ifAbsent: fail}\n"
	out, reported, err := runPlain(t, cfg, helmStream)
	if !errors.Is(err, report.ErrResults) || out != "" {
		t.Fatalf("err %v, output %q: want ErrResults and no output", err, out)
	}
	if len(reported) == 0 || reported[0].Severity != fn.Error || !strings.Contains(report.Line(reported[0]), "Deployment payments spec.template.spec.containers: ") || !strings.Contains(report.Line(reported[0]), "cloud-sql-proxy") {
		t.Errorf("reported %v, want the ifAbsent error", reported)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"not YAML", "apiVersion: v1\nkind: [\n", "line 2: not valid YAML: did not find expected node content"},
		{"a list", "apiVersion: v1\nkind: Pod\n---\n- a\n- b\n", "line 4: expected a Kubernetes resource (a mapping), found a list of 2 entries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			_, err := driver.PlainStream(nil, strings.NewReader(tc.in), &out)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line containing %q", err, tc.want)
			}
			if out.Len() != 0 {
				t.Errorf("wrote %q", out.String())
			}
		})
	}
}

// TestRunPlainValidate: validate writes nothing and fails when a workload
// needs a change, and passes the stream through once it is as configured.
func TestRunPlainValidate(t *testing.T) {
	validate := "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec:\n  action: validate\n  sidecars:\n  - preset: linkerd\n"
	out, reported, err := runPlain(t, validate, helmStream)
	if !errors.Is(err, report.ErrResults) || out != "" || len(reported) == 0 {
		t.Fatalf("err %v, output %q, reported %d: want a failure", err, out, len(reported))
	}
	fixed, _, err := runPlain(t, "", helmStream)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err = runPlain(t, validate, fixed)
	if err != nil || out != fixed {
		t.Errorf("validate on the fixed stream: err %v, output changed: %v", err, out != fixed)
	}
}

// TestRunPlainNamespaceSkip: a Namespace annotated to skip, after its
// workload in the stream, still skips it.
func TestRunPlainNamespaceSkip(t *testing.T) {
	in := strings.Replace(helmStream, "  name: payments\nspec:\n  template", "  name: payments\n  namespace: pay\nspec:\n  template", 1) +
		"---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: pay\n  annotations:\n    sidecar-lifecycle.dev/skip: \"true\"\n"
	out, _, err := runPlain(t, "", in)
	if err != nil || out != in {
		t.Errorf("err %v; the skipped namespace's workload changed:\n%s", err, out)
	}
}

// TestPlainStreamUnusableTempDir: a plain stream larger than the spools'
// memory limit, with a temporary directory that is missing, is a one-line
// error naming the directory, and nothing is written: the spool's write
// errors are checked as the documents go in, not only at the end.
func TestPlainStreamUnusableTempDir(t *testing.T) {
	defer driver.SetSpoolLimit(4 << 10)()
	var doc strings.Builder
	for i := 0; doc.Len() < 64<<10; i++ {
		fmt.Fprintf(&doc, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p%d}\nspec:\n  containers: [{name: app}, {name: linkerd-proxy}]\n", i)
	}
	missing := filepath.Join(t.TempDir(), "missing")
	t.Setenv("TMPDIR", missing)
	var out bytes.Buffer
	_, err := driver.PlainStream(nil, strings.NewReader(doc.String()), &out)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("temporary directory %q", missing)) || strings.Contains(err.Error(), "\n") {
		t.Errorf("PlainStream = %v, want one line naming %q", err, missing)
	}
	if out.Len() > 0 {
		t.Errorf("%d bytes written", out.Len())
	}
}
