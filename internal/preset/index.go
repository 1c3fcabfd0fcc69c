package preset

import (
	"slices"
	"strings"
)

// Index finds the presets that recognise a container (see Recognises)
// with one map lookup by its name and one by the last segment of its image
// repository, instead of matching every preset's names and patterns: a run
// with no config holds the whole catalog, and asks of every container.
type Index struct {
	names map[string][]int
	// images holds the patterns whose last segment is literal, by that
	// segment; wild the others, which every image is matched against.
	images map[string][]indexed
	wild   []indexed
}

// indexed is an image pattern of the preset at an index.
type indexed struct {
	preset  int
	pattern string
}

// NewIndex indexes the presets' container names and image patterns; the
// indexes it returns are positions in presets.
func NewIndex(presets []Preset) *Index {
	x := &Index{names: map[string][]int{}, images: map[string][]indexed{}}
	for i, p := range presets {
		for _, name := range p.Containers {
			if !slices.Contains(x.names[name], i) {
				x.names[name] = append(x.names[name], i)
			}
		}
		for _, pattern := range p.Images {
			last := pattern[strings.LastIndex(pattern, "/")+1:]
			if strings.ContainsAny(last, `*?[\`) {
				x.wild = append(x.wild, indexed{i, pattern})
			} else {
				x.images[last] = append(x.images[last], indexed{i, pattern})
			}
		}
	}
	return x
}

// Recognising returns the positions of the presets that recognise a
// container by its name, and of those that recognise it by its image and
// not by its name, each in increasing order: what Recognises of each
// preset says.
func (x *Index) Recognising(name, image string) (byName, byImage []int) {
	byName = slices.Clip(x.names[name])
	repo := ImageRepository(image)
	add := func(candidates []indexed) {
		for _, c := range candidates {
			if !slices.Contains(byName, c.preset) && !slices.Contains(byImage, c.preset) && MatchImage(c.pattern, repo) {
				byImage = append(byImage, c.preset)
			}
		}
	}
	add(x.images[repo[strings.LastIndex(repo, "/")+1:]])
	add(x.wild)
	slices.Sort(byImage)
	return byName, byImage
}
