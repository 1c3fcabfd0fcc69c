package corpus

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteDeclines writes a ResourceList of about size bytes made of the item
// shapes the streaming path cannot parse alone, repeated: a flow-style
// item with a comment at its end and one after it, a block scalar that
// keeps its final line breaks before a comment, a comment at the items'
// column inside an item, an item starting with a quoted key that ends in
// a comment, a double-quoted scalar holding a line that looks like the
// next item's start, an item ending in a comment (Google's samples) and
// one whose block scalar ends in lines starting with "#" (Kuma's chart),
// tabs in a block scalar, an anchor the next item uses, and every tenth
// time a meshed Deployment. Each ConfigMap carries a data payload of
// about 32 KiB.
func WriteDeclines(w io.Writer, size int64) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	cw := &countingWriter{w: bw}
	cw.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	payload := declinePayload(32 << 10)
	for i := 0; cw.n < size; i++ {
		fmt.Fprintf(cw, "- {apiVersion: v1, kind: ConfigMap, metadata: {name: flow-%d}, data: {a: '1', b: \"x y\"}}\n  # [END flow]\n# between\n", i)
		fmt.Fprintf(cw, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: kept-%d\n  data:\n    script: |+\n      echo %d\n\n# between\n", i, i)
		fmt.Fprintf(cw, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: inside-%d\n# a comment at the items' column\n  data:\n%s", i, payload)
		fmt.Fprintf(cw, "- \"apiVersion\": v1\n  kind: ConfigMap\n  metadata:\n    name: quoted-%d\n  data:\n%s  # [END quoted]\n", i, payload)
		fmt.Fprintf(cw, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: across-%d\n  data:\n    a: \"x\n- b: %d\"\n", i, i)
		fmt.Fprintf(cw, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: sample-%d\n  data:\n%s  # [END sample]\n", i, payload)
		fmt.Fprintf(cw, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: commented-%d\n  data:\n    config.yaml: |\n      # use this file to override the defaults\n      #\n", i)
		fmt.Fprintf(cw, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: make-%d\n    labels: &labels-%d {app: make}\n  data:\n    Makefile: |\n      all:\n      \tgo build ./...\n", i, i)
		fmt.Fprintf(cw, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: alias-%d\n    labels: *labels-%d\n  data:\n%s", i, i, payload)
		if i%10 == 0 {
			doc := workload(i)
			item(bw, doc)
			cw.n += int64(len(doc)) + int64(strings.Count(doc, "\n"))*2
		}
	}
	cw.WriteString("functionConfig:\n")
	for _, line := range strings.SplitAfter(strings.TrimSuffix(FunctionConfig, "\n"), "\n") {
		cw.WriteString("  " + line)
	}
	cw.WriteString("\n")
	return bw.Flush()
}

// declinePayload is a ConfigMap's data entries, of about size bytes.
func declinePayload(size int) string {
	var b strings.Builder
	for k := 0; b.Len() < size; k++ {
		fmt.Fprintf(&b, "    key-%04d: value %04d of a configuration the function does not read\n", k, k)
	}
	return b.String()
}

// countingWriter counts what it writes.
type countingWriter struct {
	w *bufio.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.w.Write(p)
}

func (c *countingWriter) WriteString(s string) {
	c.n += int64(len(s))
	c.w.WriteString(s)
}
