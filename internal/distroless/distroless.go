// Package distroless recognises images that have no shell and no sleep
// binary (the families of images.yaml, with their sources, and the
// catalog's own image facts), and warns about preStop hooks that exec one
// in such an image: kubelet cannot run them, so the delay never happens.
package distroless

import (
	"bytes"
	_ "embed"
	"path"
	"slices"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/hook"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/podspec"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

//go:embed images.yaml
var imagesYAML []byte

// images are the facts of images.yaml: the programs a preStop runs to
// wait, and the image families that lack them.
type images struct {
	// Sources name what the facts' sources refer to.
	Sources  map[string]map[string]string `yaml:"sources"`
	Programs struct {
		Names  []string `yaml:"names"`
		Source string   `yaml:"source"`
	} `yaml:"programs"`
	Families []family `yaml:"families"`
}

// family is one kind of shell-less image: the repositories and tags it
// names, and its variants that carry a shell.
type family struct {
	Says       string `yaml:"says"`
	Repository struct {
		Contains string   `yaml:"contains"`
		Prefix   string   `yaml:"prefix"`
		Names    []string `yaml:"names"`
	} `yaml:"repository"`
	Tag    tags   `yaml:"tag"`
	Shell  tags   `yaml:"shell"`
	Source string `yaml:"source"`
}

// tags match an image's tag: exactly, by prefix or by suffix.
type tags struct {
	Tags     []string `yaml:"tags"`
	Prefixes []string `yaml:"tagPrefixes"`
	Suffixes []string `yaml:"tagSuffixes"`
}

// any reports whether the tags name any tag.
func (t tags) any() bool {
	return len(t.Tags)+len(t.Prefixes)+len(t.Suffixes) > 0
}

// match reports whether tag is one of them.
func (t tags) match(tag string) bool {
	has := func(list []string, f func(string, string) bool) bool {
		return slices.ContainsFunc(list, func(v string) bool { return f(tag, v) })
	}
	eq := func(a, b string) bool { return a == b }
	return has(t.Tags, eq) || has(t.Prefixes, strings.HasPrefix) || has(t.Suffixes, strings.HasSuffix)
}

// matches reports whether the image's repository, name and tag are the family's.
func (f family) matches(repo, name, tag string) bool {
	r := f.Repository
	return (r.Contains == "" || strings.Contains(repo, r.Contains)) &&
		(r.Prefix == "" || strings.HasPrefix(repo, r.Prefix)) &&
		(len(r.Names) == 0 || slices.Contains(r.Names, name)) &&
		(!f.Tag.any() || f.Tag.match(tag))
}

// facts are images.yaml, read once; a file that does not read is a bug
// its test finds.
var facts = sync.OnceValue(func() images {
	var im images
	d := yaml.NewDecoder(bytes.NewReader(imagesYAML))
	d.KnownFields(true)
	if err := d.Decode(&im); err != nil {
		panic("distroless: images.yaml: " + err.Error())
	}
	return im
})

// Looks says what kind of shell-less image the reference names, or "" when
// it does not look like one: a sidecar's image the catalog says has no
// shell (presets), or an image of a family in images.yaml.
func Looks(image string, presets []preset.Preset) string {
	for _, p := range presets {
		if p.ShellLess(image) {
			return p.Title + " image without a shell or sleep, per its catalog entry"
		}
	}
	ref, _, _ := strings.Cut(image, "@")
	repo, tag := ref, ""
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		repo, tag = ref[:i], ref[i+1:]
	}
	name := path.Base(repo)
	for _, f := range facts().Families {
		if !f.matches(repo, name, tag) {
			continue
		}
		if f.Shell.match(tag) {
			return "" // the family's variant with a shell
		}
		return f.Says
	}
	return ""
}

// SleepCheck warns about every container of the pod spec whose preStop
// execs a sleep binary or a shell while its image looks distroless or
// static.
type SleepCheck struct {
	// SpecPath is the pod spec's field path, for messages.
	SpecPath string
	// SleepAction says whether the cluster has the lifecycle sleep action, the fix.
	SleepAction bool
	// Presets are the sidecars of the catalog and the config, whose
	// entries say which of their images have no shell; read only when a
	// preStop runs a shell or sleep.
	Presets func() []preset.Preset
	// Log receives the warnings.
	Log *report.Log
}

var _ kio.Filter = SleepCheck{}

// Filter checks each pod spec node.
func (f SleepCheck) Filter(specs []*yaml.RNode) ([]*yaml.RNode, error) {
	return kio.FilterAll(yaml.FilterFunc(f.filter)).Filter(specs)
}

func (f SleepCheck) filter(spec *yaml.RNode) (*yaml.RNode, error) {
	var presets []preset.Preset
	for _, field := range []string{podspec.InitContainers, podspec.Containers} {
		seq := podspec.List(spec, field)
		if seq == nil {
			continue
		}
		for i, n := range seq.YNode().Content {
			c := yaml.NewRNode(n)
			cmd, ok := hook.Exec(c, hook.PreStop)
			if !ok || len(cmd) == 0 || !slices.Contains(facts().Programs.Names, path.Base(cmd[0])) {
				continue
			}
			image := ""
			if img := c.Field("image"); img != nil {
				image = img.Value.YNode().Value
			}
			if presets == nil && f.Presets != nil {
				presets = f.Presets()
			}
			kind := Looks(image, presets)
			if kind == "" {
				continue
			}
			f.Log.Warn(report.KindHook, report.Container(field, podspec.Name(n), "lifecycle.preStop.exec.command").Values(cmd, nil),
				"%s.%s[%d].lifecycle.preStop.exec.command (container %q): image %q looks shell-less (%s) and has no %q: the preStop fails at shutdown and the container gets SIGTERM at once; %s",
				f.SpecPath, field, i, podspec.Name(n), image, kind, cmd[0], f.fix())
		}
	}
	return spec, nil
}

func (f SleepCheck) fix() string {
	if f.SleepAction {
		return "use the lifecycle sleep action (preStop: {sleep: {seconds: N}}) instead"
	}
	return "set kubernetesVersion to 1.30 or newer so that the delay is the lifecycle sleep action, or use an image variant with a shell"
}
