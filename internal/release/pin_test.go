// Package release holds the checks of what a release rewrites: every file
// that names the function's image names it by one digest.
package release

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// image is the function's image repository (the Makefile's IMAGE).
const image = "ghcr.io/sidecar-lifecycle/sidecar-lifecycle"

// pinned lists the files `make release-pin` rewrites (its RELEASE_PIN_FILES),
// from the module root. A file missing on this branch (the chart) is
// skipped by name.
var pinned = []string{
	"metadata.yaml",
	"examples/container_test.go",
	"examples/kpt-image/payments/Kptfile",
	"examples/kpt-image/expected/payments/Kptfile",
	"examples/kpt-image/expected/results.yaml",
	"examples/kustomize-container/sidecar-lifecycle.yaml",
	"charts/charts_test.go", // the image the chart's default values render
}

// optional are the pinned files from other branches: skipped while absent.
var optional = map[string]bool{"charts/charts_test.go": true}

// chartValues is the webhook chart's values file: repository and digest
// are separate keys there.
const chartValues = "charts/sidecar-lifecycle-webhook/values.yaml"

var (
	anyRef    = regexp.MustCompile(regexp.QuoteMeta(image) + `[@:]?[A-Za-z0-9_.:-]*`)
	pinnedRef = regexp.MustCompile(`^` + regexp.QuoteMeta(image) + `@(sha256:[0-9a-f]{64})$`)
	valuesRef = regexp.MustCompile(`(?m)^image:\n(?:  .*\n)*?  digest: "(sha256:[0-9a-f]{64})"`)
)

// TestImagesPinned: every reference to the image in the pinned files is
// IMAGE@sha256:..., all of one digest, and each file holds at least one.
func TestImagesPinned(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	digests := map[string][]string{}
	for _, file := range pinned {
		b, err := os.ReadFile(filepath.Join(root, file))
		if os.IsNotExist(err) && optional[file] {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		refs := anyRef.FindAllString(string(b), -1)
		if len(refs) == 0 {
			t.Errorf("%s names no %s", file, image)
		}
		for _, ref := range refs {
			m := pinnedRef.FindStringSubmatch(ref)
			if m == nil {
				t.Errorf("%s names %s, not by digest (make release-pin DIGEST=sha256:...)", file, ref)
				continue
			}
			digests[m[1]] = append(digests[m[1]], file)
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, chartValues)); err == nil {
		m := valuesRef.FindSubmatch(b)
		if m == nil {
			t.Errorf("%s: image.digest is not a sha256 digest (make release-pin DIGEST=sha256:...)", chartValues)
		} else {
			digests[string(m[1])] = append(digests[string(m[1])], chartValues)
		}
	} else if !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if len(digests) > 1 {
		t.Errorf("the image is pinned to %d digests, want one: %v", len(digests), digests)
	}
}
