package preset

import (
	"slices"
	"strings"
	"testing"
)

// TestIndexAgreesWithRecognises: for every container name and image of
// the catalog, and images of other registries, paths and tags, the index
// finds the presets that Recognises says recognise the container, and
// says as it does whether by name or by image.
func TestIndexAgreesWithRecognises(t *testing.T) {
	presets := append(Catalog(), Preset{Name: "wild", Images: []string{"**/team/*-agent", "quay.io/x/sidecar?"}})
	x := NewIndex(presets)
	names := []string{"", "app", "other"}
	images := []string{"", "nginx", "nginx:1.27", "quay.io/team/log-agent:1", "quay.io/x/sidecar2", "quay.io/x/sidecar22"}
	for _, p := range presets {
		names = append(names, p.Containers...)
		names = append(names, p.InitContainers...)
		for _, pattern := range p.Images {
			for _, prefix := range []string{"", "registry.example:5000/", "mirror.example/a/b/"} {
				image := prefix + pattern
				if rest, ok := strings.CutPrefix(pattern, "**/"); ok {
					image = prefix + "x/" + rest
				}
				images = append(images, image, image+":1.0", image+"@sha256:0123", image+"-fork")
			}
		}
	}
	for _, name := range names {
		for _, image := range images {
			byName, byImage := x.Recognising(name, image)
			var wantName, wantImage []int
			for i, p := range presets {
				if img, ok := p.Recognises(name, image); ok && img {
					wantImage = append(wantImage, i)
				} else if ok {
					wantName = append(wantName, i)
				}
			}
			if !slices.Equal(byName, wantName) || !slices.Equal(byImage, wantImage) {
				t.Errorf("Recognising(%q, %q) = %v, %v; Recognises says %v, %v", name, image, byName, byImage, wantName, wantImage)
			}
		}
	}
}
