package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// acmeWorkload is a Deployment with Acme's proxy after its application,
// recognised by the proxy's image.
const acmeWorkload = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    spec:
      containers:
      - {name: app, image: example.com/shop/web:1.0}
      - {name: proxy, image: example.com/acme/proxy:1.2.0}
`

// TestExtraEntry: a sidecar added to the catalog as one more file of
// catalog/ (here testdata/catalog/acme-proxy.yaml, read through the same
// loader as the built-in files) is a preset, an empty config recognises and
// orders it, and the schema lists it: no Go file names it. The generated
// tables are held to it by internal/preset's TestExtraEntryTables.
func TestExtraEntry(t *testing.T) {
	before := transform(t)
	defer config.UseCatalog(withTestEntries(t))()
	if _, ok := preset.Lookup("acme-proxy"); !ok {
		t.Fatalf("no preset acme-proxy among %v", preset.Names())
	}
	if _, ok := config.BuiltinEntry("acme-proxy"); !ok {
		t.Fatal("config.BuiltinEntry does not find acme-proxy")
	}
	after := transform(t)
	const recognised = `recognised proxy (acme-proxy) by its image "example.com/acme/proxy:1.2.0"`
	if strings.Contains(before, "acme-proxy") || !strings.Contains(before, "- {name: app") {
		t.Fatalf("without the entry the proxy is recognised or moved:\n%s", before)
	}
	if !strings.Contains(after, recognised) || !strings.Contains(after, "- {name: proxy, image: 'example.com/acme/proxy:1.2.0', lifecycle: {postStart: {exec: {command: [/acme-proxy, wait, --port=9901]}}}}\n      - {name: app") {
		t.Errorf("an empty config does not recognise and order the proxy by the entry:\n%s", after)
	}
	schema, err := config.Schema()
	if err != nil || !strings.Contains(string(schema), `"acme-proxy"`) {
		t.Errorf("the generated schema does not name acme-proxy among the presets (%v)", err)
	}
}

// withTestEntries is the built-in catalog's files and testdata/catalog's.
func withTestEntries(t *testing.T) fstest.MapFS {
	t.Helper()
	fsys := fstest.MapFS{}
	for _, dir := range []string{"catalog", filepath.Join("testdata", "catalog")} {
		files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %d files, %v", dir, len(files), err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			fsys["catalog/"+filepath.Base(f)] = &fstest.MapFile{Data: data}
		}
	}
	return fsys
}

// transform runs acmeWorkload through the engine with an empty config and
// returns the output, then the results' messages as comment lines.
func transform(t *testing.T) string {
	t.Helper()
	items, err := kio.FromBytes([]byte(acmeWorkload))
	if err != nil {
		t.Fatal(err)
	}
	out, results := engine.New(krmtest.Config(t, "")).Transform(items)
	var b strings.Builder
	for _, item := range out {
		b.WriteString(item.MustString())
	}
	for _, r := range results {
		b.WriteString("# " + r.Message + "\n")
	}
	return b.String()
}
