// Command pin rewrites every reference to the function's image in the
// given files to IMAGE@DIGEST: a tag (`:v0.1.0`), a digest or nothing after
// the repository all become the one pinned digest, so a Kptfile, a
// kustomize `container:` entry, the kpt catalog's metadata.yaml and the
// chart's values run exactly the image the release pushed and signed.
//
//	pin -image ghcr.io/sidecar-lifecycle/sidecar-lifecycle -digest sha256:... FILE...
//
// In a chart's values.yaml the repository and digest are separate keys:
// an `image:` block holding `repository: IMAGE` gets `digest: DIGEST`.
package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
)

func main() {
	image := flag.String("image", "ghcr.io/sidecar-lifecycle/sidecar-lifecycle", "the image repository")
	digest := flag.String("digest", "", "sha256:<64 hex digits>")
	flag.Parse()
	if !regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(*digest) {
		fail(fmt.Errorf("-digest %q: want sha256:<64 hex digits>", *digest))
	}
	ref := regexp.MustCompile(regexp.QuoteMeta(*image) + `(?:@sha256:[0-9a-f]{64}|:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?`)
	values := regexp.MustCompile(`(?m)^(\s*)digest:\s*"?(?:sha256:[0-9a-f]{64})?"?\s*$`)
	for _, file := range flag.Args() {
		b, err := os.ReadFile(file)
		if err != nil {
			fail(err)
		}
		s := string(b)
		n := 0
		if strings.HasSuffix(file, "values.yaml") {
			s = values.ReplaceAllStringFunc(s, func(m string) string {
				n++
				return values.ReplaceAllString(m, `${1}digest: "`+*digest+`"`)
			})
		} else {
			s = ref.ReplaceAllStringFunc(s, func(string) string { n++; return *image + "@" + *digest })
		}
		if n == 0 {
			fail(fmt.Errorf("%s: no reference to %s", file, *image))
		}
		if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
			fail(err)
		}
		fmt.Printf("%s: %d reference(s) pinned to %s\n", file, n, *digest)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "pin:", err)
	os.Exit(1)
}
