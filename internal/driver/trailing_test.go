package driver_test

import (
	"strings"
	"testing"
)

// TestTrailingCommentStaysAtTheEnd: a comment after an item's last line (a
// file's closing comment, as kpt and kustomize pass it) hangs on the
// deepest last key; when that container moves first, or gets a hook, the
// comment stays at the end of the item instead of travelling into the
// middle with it, once, and a second run changes nothing.
func TestTrailingCommentStaysAtTheEnd(t *testing.T) {
	const comment = "# closing comment of the file"
	items := `- apiVersion: v1
  kind: Pod
  metadata:
    name: web
  spec:
    containers:
    - name: web
      image: web
    - name: linkerd-proxy
      image: proxy
  ` + comment + `
`
	for _, mode := range []string{"ordered", "native"} {
		t.Run(mode, func(t *testing.T) {
			rl := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + items +
				"functionConfig:\n  apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\n  kind: SidecarLifecycle\n  spec:\n    mode: " + mode + "\n    sidecars: [{preset: linkerd}]\n"
			out, err := run(t, []byte(rl))
			if err != nil {
				t.Fatalf("run: %v\n%s", err, out)
			}
			text := string(out)
			itemText := text[:strings.Index(text, "functionConfig:")]
			if strings.Count(itemText, comment) != 1 {
				t.Fatalf("the comment is not in the output once:\n%s", text)
			}
			after := itemText[strings.Index(itemText, comment)+len(comment):]
			if strings.TrimSpace(after) != "" {
				t.Errorf("the comment is not the item's last line; after it:\n%s", after)
			}
			again, err := run(t, out)
			if againText := string(again); err != nil || againText[:strings.Index(againText, "functionConfig:")] != itemText {
				t.Errorf("a second run changed the items (err %v):\n%s", err, again)
			}
		})
	}
}
