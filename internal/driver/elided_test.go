package driver

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
)

// TestElisionFallsBack: when the edits write a placeholder's text a second
// time (here the config's wait command holds it), editElided reports false
// and the item is edited from its own text: the run writes what it writes
// without elision, the placeholder only in the command.
func TestElisionFallsBack(t *testing.T) {
	var doc strings.Builder
	doc.WriteString("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: big\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: shop/app:1\n        env:\n")
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&doc, "        - name: SETTING_%d\n          value: v%d\n", i, i)
	}
	doc.WriteString("      - name: linkerd-proxy\n        image: cr.l5d.io/linkerd/proxy:stable-2.14.10\n")
	const config = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata:\n  name: c\nspec:\n  sidecars:\n  - preset: linkerd\n    waitForReady:\n      command: [/usr/lib/linkerd/linkerd-await, --timeout=2m, %s]\n"
	defer SetElideFrom(0)()

	// The placeholder the app's env gets.
	rl, err := krmtest.ResourceList([]byte(doc.String()), []byte(fmt.Sprintf(config, "--")))
	if err != nil {
		t.Fatal(err)
	}
	in, e, text := firstItem(t, rl)
	it, ok := elided(in, e, text)
	if !ok {
		t.Fatal("the item is not elided")
	}
	placeholder := regexp.MustCompile(`\n +env: (\S+)\n`).FindSubmatch(it.Text)
	if placeholder == nil {
		t.Fatalf("no placeholder for env:\n%s", it.Text)
	}

	rl, err = krmtest.ResourceList([]byte(doc.String()), []byte(fmt.Sprintf(config, placeholder[1])))
	if err != nil {
		t.Fatal(err)
	}
	in, e, text = firstItem(t, rl)
	if enc, ok := editElided(in, e, 0, text); ok {
		t.Fatalf("editElided took the item:\n%s", enc.text)
	}
	on, off := withAndWithoutElision(t, rl)
	if !bytes.Equal(on, off) {
		t.Fatalf("the output differs from the output without elision:\n%s", krmtest.Diff(string(off), string(on)))
	}
	o, err := krmtest.Split(on)
	if err != nil {
		t.Fatal(err)
	}
	items, err := krmtest.Stream(o.Items)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(items, placeholder[1]); n != 1 || !bytes.Contains(items, []byte("name: SETTING_49\n")) {
		t.Errorf("the placeholder is in the items %d times, want once (the command); the env must be whole:\n%s", n, items)
	}
}

// firstItem reads a ResourceList as the streaming path does and returns
// it, the run's Engine and the first item's text.
func firstItem(t *testing.T, rl []byte) (*yamlio.Input, *engine.Engine, []byte) {
	t.Helper()
	in, err := yamlio.Read(bytes.NewReader(rl), yamlio.Options{})
	if err != nil || in.Layout == nil {
		t.Fatalf("the list does not split: %v", err)
	}
	t.Cleanup(func() { in.Close() })
	doc, err := ParseResourceList(in.Layout.Skeleton)
	if err != nil {
		t.Fatal(err)
	}
	e := engine.Start(configNode(functionConfig(doc)))
	if err := e.ConfigErr(); err != nil {
		t.Fatal(err)
	}
	text, err := in.Item(0)
	if err != nil {
		t.Fatal(err)
	}
	return in, e, text
}

// TestCommentedItemNotElided: a workload whose text ScanItem reads, with
// comment lines after its first key (here in its application's env), is
// not elided: elide.Reduce is held to items with no such line. The run
// writes what it writes without elision.
func TestCommentedItemNotElided(t *testing.T) {
	var doc strings.Builder
	doc.WriteString("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: big\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: shop/app:1\n        env:\n")
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&doc, "        - name: SETTING_%d\n          # setting %d\n          value: v%d\n", i, i, i)
	}
	doc.WriteString("      - name: linkerd-proxy\n        image: cr.l5d.io/linkerd/proxy:stable-2.14.10\n")
	rl, err := krmtest.ResourceList([]byte(doc.String()), []byte("apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: c}\nspec: {sidecars: [{preset: linkerd}]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	defer SetElideFrom(0)()
	in, e, text := firstItem(t, rl)
	if !asWritten(in, text) {
		t.Fatalf("ScanItem does not read the item:\n%s", text)
	}
	if it, ok := elided(in, e, text); ok {
		t.Fatalf("the item is elided:\n%s", it.Text)
	}
	on, off := withAndWithoutElision(t, rl)
	if !bytes.Equal(on, off) || !bytes.Contains(on, []byte("# setting 49\n")) {
		t.Fatalf("the output differs from the output without elision:\n%s", krmtest.Diff(string(off), string(on)))
	}
}

// withAndWithoutElision runs a ResourceList as it is set up, then with no
// item elided, and returns both outputs.
func withAndWithoutElision(t *testing.T, rl []byte) (on, off []byte) {
	t.Helper()
	var with, without bytes.Buffer
	if _, err := ResourceList(bytes.NewReader(rl), &with); err != nil {
		t.Fatal(err)
	}
	defer SetElideFrom(math.MaxInt)()
	if _, err := ResourceList(bytes.NewReader(rl), &without); err != nil {
		t.Fatal(err)
	}
	return with.Bytes(), without.Bytes()
}
