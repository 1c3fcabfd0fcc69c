package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kptdev/krm-functions-sdk/go/fn"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
)

// TestShellLessFromTheCatalog: a sidecar whose preStop sleeps in an image
// that its catalog entry says has no shell and no sleep binary (image.shell
// false, no image.sleep) is warned about with zero config, by the entry's
// title; the entry's image variant with a shell is not.
func TestShellLessFromTheCatalog(t *testing.T) {
	const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: %s, namespace: shop}
spec:
  template:
    spec:
      containers:
      - {name: app, image: app}
      - name: alloydb-auth-proxy
        image: %s
        lifecycle: {preStop: {exec: {command: [/bin/sleep, "10"]}}}
`
	for image, warned := range map[string]bool{
		"gcr.io/alloydb-connectors/alloydb-auth-proxy:1.17.2":        true,
		"gcr.io/alloydb-connectors/alloydb-auth-proxy:1.17.2-alpine": false,
	} {
		_, results := engine.New(krmtest.Config(t, "")).Transform(items(t, fmt.Sprintf(deployment, "db", image)))
		var got fn.Results
		for _, r := range results {
			if strings.Contains(r.Message, "looks shell-less (AlloyDB Auth Proxy image without a shell or sleep, per its catalog entry)") {
				got = append(got, r)
			}
		}
		if warned && (len(got) != 1 || got[0].Severity != fn.Warning) {
			t.Errorf("%s: want one shell-less warning naming the AlloyDB Auth Proxy entry, got %v in %v", image, got, results)
		}
		if !warned && len(got) > 0 {
			t.Errorf("%s has a shell (its entry's shellTags): got %v", image, got)
		}
	}
}
