package preset

import (
	"path"
	"slices"
	"strings"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// Builtin returns the built-in catalog's entries, sorted by name
// (config.BuiltinCatalog).
func Builtin() []Entry { return config.BuiltinCatalog() }

// Delay formats.
const (
	// FormatDuration is a duration such as "30s".
	FormatDuration = "duration"
	// FormatSeconds is a number of seconds such as "30".
	FormatSeconds = "seconds"
	// FormatBoolean is a boolean such as "true", read with strconv.ParseBool.
	FormatBoolean = "boolean"
)

// MatchImage reports whether an image reference, with any tag or digest,
// matches the pattern.
func MatchImage(pattern, image string) bool {
	repo := ImageRepository(image)
	rest, anyPrefix := strings.CutPrefix(pattern, "**/")
	if !anyPrefix {
		ok, _ := path.Match(rest, repo)
		return ok
	}
	want := strings.Count(rest, "/") + 1
	segments := strings.Split(repo, "/")
	if len(segments) < want {
		return false
	}
	ok, _ := path.Match(rest, strings.Join(segments[len(segments)-want:], "/"))
	return ok
}

// ImageRepository is an image reference without its tag and digest.
func ImageRepository(image string) string {
	image, _, _ = strings.Cut(image, "@")
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		image = image[:i]
	}
	return image
}

// Recognises reports whether a container is the sidecar, by one of its
// names or by its image; byImage says it was the image.
func (p Preset) Recognises(name, image string) (byImage, ok bool) {
	if slices.Contains(p.Containers, name) {
		return false, true
	}
	for _, pattern := range p.Images {
		if MatchImage(pattern, image) {
			return true, true
		}
	}
	return false, false
}

// ShellLess reports whether the image is one of the sidecar's that has no
// shell and no sleep binary, as its catalog entry states: an image the
// entry recognises whose tag holds one of image.noShellTags when the entry
// lists them, else one whose tag holds none of image.shellTags when the
// entry says its image has neither a shell nor a sleep binary.
func (p Preset) ShellLess(image string) bool {
	if _, ok := p.Recognises("", image); !ok {
		return false
	}
	ref, _, _ := strings.Cut(image, "@")
	tag := ""
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		tag = ref[i+1:]
	}
	has := func(parts []string) bool {
		return slices.ContainsFunc(parts, func(part string) bool { return strings.Contains(tag, part) })
	}
	if len(p.NoShellTags) > 0 {
		return has(p.NoShellTags)
	}
	return p.NoShell && len(p.SleepCommand) == 0 && !has(p.ShellTags)
}

// Resolve returns the named preset: one of own, a config's own catalog
// entries, or else of the built-in catalog.
func Resolve(own []Entry, name string) (Preset, bool) {
	for _, e := range own {
		if e.Name == name {
			return Of(e), true
		}
	}
	return Lookup(name)
}

// All lists the presets an empty sidecar list applies, in start order: the
// built-in catalog's, then own, a config's own entries, in their order.
func All(own []Entry) []Preset {
	out := Catalog()
	for _, e := range own {
		out = append(out, Of(e))
	}
	return out
}
