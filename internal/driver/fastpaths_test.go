package driver_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
)

// TestPlainStreamEscapes: a document with an escape the parser refuses is
// an error, not a document copied through.
func TestPlainStreamEscapes(t *testing.T) {
	var out bytes.Buffer
	_, err := driver.PlainStream(nil, strings.NewReader("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: \"x\\/y\"\n"), &out)
	if err == nil || !strings.Contains(err.Error(), "unknown escape") {
		t.Errorf("err %v, want the parser's error; wrote %q", err, out.String())
	}
}

// mergeValueList is a ResourceList with a ConfigMap and a Deployment, each
// with a plain "<<" value, the Deployment's in an environment of env
// entries that Reduce elides.
func mergeValueList(env int) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	b.WriteString("- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n  data:\n    a: <<\n")
	b.WriteString("- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web\n  spec:\n    template:\n      spec:\n        containers:\n")
	b.WriteString("        - name: app\n          image: app\n          env:\n          - name: MERGE\n            value: <<\n")
	for i := 0; i < env; i++ {
		b.WriteString("          - name: VARIABLE_WITH_A_LONG_NAME\n            value: a value long enough to make the workload large\n")
	}
	b.WriteString("        - name: linkerd-proxy\n          image: proxy\n")
	return []byte(b.String())
}

// TestMergeValue: a plain "<<" value, which the writer writes "!!merge <<",
// comes out the same from the streaming path, from the whole list, and
// from a workload large enough to be elided as from the same workload
// made small.
func TestMergeValue(t *testing.T) {
	large := mergeValueList(3000)
	if len(large) < 256<<10 {
		t.Fatalf("the large list is %d bytes", len(large))
	}
	for _, in := range [][]byte{mergeValueList(1), large} {
		if _, problem := compareRuns(in); problem != "" {
			t.Errorf("%d bytes: %s", len(in), problem)
		}
		if problem := sameOutcome(runElided(0, in), runElided(math.MaxInt, in)); problem != "" {
			t.Errorf("%d bytes: elided: %s", len(in), problem)
		}
	}
	small, elided := runElided(math.MaxInt, mergeValueList(1)), runElided(256<<10, large)
	if elided.err != nil || small.err != nil || !bytes.Contains(elided.out, []byte("value: !!merge <<")) ||
		bytes.Count(elided.out, []byte("!!merge <<")) != bytes.Count(small.out, []byte("!!merge <<")) {
		t.Errorf("the large workload differs from the small one (%v, %v):\n%s", elided.err, small.err, small.out)
	}
}

// TestDroppedAnnotations: kio.ByteWriter drops metadata.annotations that
// is a scalar or empty; the streaming path drops it as the whole list does.
func TestDroppedAnnotations(t *testing.T) {
	for _, value := range []string{"~", "null", "''", "a", "[]", "{}"} {
		in := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" +
			"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n    annotations: " + value + "\n  data:\n    a: b\n"
		streamed, problem := compareRuns([]byte(in))
		if problem != "" || !streamed {
			t.Errorf("annotations %s: streamed %v: %s", value, streamed, problem)
		}
	}
}
