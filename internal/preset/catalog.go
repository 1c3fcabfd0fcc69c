package preset

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// files are the built-in catalog: one entry a file.
//
//go:embed catalog/*.yaml
var files embed.FS

// Builtin returns the built-in catalog's entries, sorted by name. Each
// file is read once, when first needed; an entry that does not read is a
// bug that every test reports.
func Builtin() []Entry { return builtin.entries() }

// builtin is the built-in catalog, read from files.
var builtin = newShelf(files)

// shelf is a catalog of entry files, catalog/<name>.yaml in its file
// system, each read and checked once, when first needed: a run that names
// its presets reads only their files.
type shelf struct {
	// read reads each entry, by name.
	read map[string]func() Entry
	// entries are every entry, sorted by name.
	entries func() []Entry
	// meshInit are every mesh's own init containers.
	meshInit func() []string
}

// newShelf lists the entry files of a file system's catalog directory.
func newShelf(fsys fs.FS) *shelf {
	names, err := fs.ReadDir(fsys, "catalog")
	if err != nil {
		panic(err)
	}
	s := &shelf{read: map[string]func() Entry{}}
	for _, f := range names {
		file := f.Name()
		s.read[strings.TrimSuffix(file, ".yaml")] = sync.OnceValue(func() Entry { return readFile(fsys, file) })
	}
	s.entries = sync.OnceValue(func() []Entry {
		var entries []Entry
		for _, name := range slices.Sorted(maps.Keys(s.read)) {
			entries = append(entries, s.read[name]())
		}
		return entries
	})
	s.meshInit = sync.OnceValue(func() []string {
		var names []string
		for _, e := range s.entries() {
			if e.Mesh {
				for _, c := range e.InitContainers {
					names = append(names, c.Name)
				}
			}
		}
		return names
	})
	return s
}

// readFile reads and checks the entry in a file of a catalog directory.
func readFile(fsys fs.FS, file string) Entry {
	data, err := fs.ReadFile(fsys, "catalog/"+file)
	if err != nil {
		panic(err)
	}
	e, err := ReadEntry(data)
	if err != nil {
		panic(fmt.Sprintf("catalog/%s: %v", file, err))
	}
	if errs := e.Check(); len(errs) > 0 {
		panic(fmt.Sprintf("catalog/%s: %v", file, errs[0]))
	}
	if want := e.Name + ".yaml"; file != want {
		panic(fmt.Sprintf("catalog/%s: the entry %s belongs in %s", file, e.Name, want))
	}
	return e
}

// ReadEntry reads one catalog entry from YAML or JSON; an unknown field or
// a key given twice is an error. The YAML is decoded to plain values and
// those to the entry through JSON, for the JSON field names; kyaml's
// RNode.MarshalJSON, which encodes the node and decodes it again first,
// took 11 ms of every run that looked up a preset.
func ReadEntry(data []byte) (Entry, error) {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return Entry{}, err
	}
	js, err := json.Marshal(v)
	if err != nil {
		return Entry{}, err
	}
	var e Entry
	strict, err := sigsjson.UnmarshalStrict(js, &e)
	if err != nil {
		return Entry{}, err
	}
	if len(strict) > 0 {
		return Entry{}, strict[0]
	}
	return e, nil
}

// entryName is a preset's name.
var entryName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// Check lists what is wrong with an entry, each error starting with the
// field's path in the entry (images[0].pattern).
func (e Entry) Check() []error {
	var errs []error
	add := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if !entryName.MatchString(e.Name) {
		add("name", "%q is not a preset name: lower-case letters, digits and dashes", e.Name)
	}
	if e.Name == None {
		add("name", "%q is the preset of a sidecar the function knows nothing about; choose another name", e.Name)
	}
	if len(e.Containers) == 0 && len(e.Images) == 0 {
		add("containers", "give a container name or an image pattern that recognises the sidecar")
	}
	for i, c := range e.Containers {
		if c.Name == "" {
			add(fmt.Sprintf("containers[%d].name", i), "empty")
		}
	}
	for i, im := range e.Images {
		if err := checkPattern(im.Pattern); err != nil {
			add(fmt.Sprintf("images[%d].pattern", i), "%v", err)
		}
	}
	if e.Exit != nil {
		for i, d := range e.Exit.Delays {
			field := fmt.Sprintf("exit.delays[%d]", i)
			if (d.Annotation == "") == (d.Env == "") {
				add(field, "give exactly one of annotation and env")
			}
			if _, err := ParseDelay(d.Default); d.Default != "" && err != nil {
				add(field+".default", "%v", err)
			}
			if d.Format != "" && d.Format != FormatDuration && d.Format != FormatSeconds && d.Format != FormatBoolean {
				add(field+".format", "%q is not %s, %s or %s", d.Format, FormatDuration, FormatSeconds, FormatBoolean)
			}
			if _, err := ParseDelay(d.Minimum); d.Minimum != "" && err != nil {
				add(field+".minimum", "%v", err)
			}
		}
	}
	if e.Injector != nil {
		inj := e.Injector
		for name, list := range map[string][]SwitchFact{"enabled": inj.Enabled, "disabled": inj.Disabled, "optOuts": inj.OptOuts} {
			for i, s := range list {
				if (s.Annotation == "") == (s.Label == "") {
					add(fmt.Sprintf("injector.%s[%d]", name, i), "give exactly one of annotation and label")
				}
			}
		}
		for _, p := range inj.dialectProblems() {
			add(p.field, "%s", p.problem)
		}
		if a := inj.Annotations; a != nil && a.ExitDelay != nil && a.ExitDelay.Format != "" && a.ExitDelay.Format != FormatDuration && a.ExitDelay.Format != FormatSeconds {
			add("injector.annotations.exitDelay.format", "%q is not %s or %s", a.ExitDelay.Format, FormatDuration, FormatSeconds)
		}
		for i, w := range inj.Webhooks {
			for j, sel := range []*SelectorFact{w.NamespaceSelector, w.ObjectSelector} {
				if sel == nil {
					continue
				}
				for k, x := range sel.MatchExpressions {
					if !slices.Contains([]string{"In", "NotIn", "Exists", "DoesNotExist"}, x.Operator) {
						add(fmt.Sprintf("injector.webhooks[%d].%s.matchExpressions[%d].operator", i, [2]string{"namespaceSelector", "objectSelector"}[j], k), "%q is not In, NotIn, Exists or DoesNotExist", x.Operator)
					}
				}
			}
		}
		if inj.Annotate != "" && !slices.Contains(dialects, inj.Annotate) {
			add("injector.annotate", "%q is not one of %s", inj.Annotate, strings.Join(dialectNames(), ", "))
		}
	}
	for i, w := range e.LeaveAlone {
		field := fmt.Sprintf("leaveAlone[%d]", i)
		if n := btoi(w.Annotation != "") + btoi(w.Label != "") + btoi(w.Env != ""); n != 1 {
			add(field, "give exactly one of annotation, label and env")
		}
		if w.Value == "" {
			add(field+".value", "give the value that says the word, or %q for any value", AnyValue)
		}
		if w.Says == "" {
			add(field+".says", "say what the word means, for the message that names it")
		}
	}
	if e.Ready != nil {
		errs = append(errs, e.Ready.check()...)
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errs
}

// problem is what is wrong with a field of an entry.
type problem struct{ field, problem string }

// dialectProblems lists what the injector's dialect needs of its
// annotations and lacks. Every dialect writes the annotations listed; the
// linkerd and istio dialects need ordered ones, an exit delay and a native
// switch; the istio dialect writes the ordered ones and the exit delay as
// fields of mapping annotations and keeps the injector's record, the others
// write plain annotations.
func (inj InjectorFacts) dialectProblems() []problem {
	a := inj.Annotations
	if !slices.Contains(dialects, inj.Annotate) {
		return nil
	}
	if a == nil {
		return []problem{{"injector.annotations", fmt.Sprintf("the %s dialect writes the annotations listed here: give them", inj.Annotate)}}
	}
	var out []problem
	if inj.Annotate != GenericDialect && (len(a.Ordered) == 0 || a.ExitDelay == nil || a.Native == nil) {
		out = append(out, problem{"injector.annotations", fmt.Sprintf("the %s dialect writes ordered annotations, an exit delay and a native switch: give them", inj.Annotate)})
	}
	fields := map[string]string{}
	for i, kv := range a.Ordered {
		fields[fmt.Sprintf("injector.annotations.ordered[%d].field", i)] = kv.Field
	}
	if a.ExitDelay != nil {
		fields["injector.annotations.exitDelay.field"] = a.ExitDelay.Field
	}
	inField := inj.Annotate == IstioDialect
	for _, field := range slices.Sorted(maps.Keys(fields)) {
		switch given := fields[field] != ""; {
		case inField && !given:
			out = append(out, problem{field, fmt.Sprintf("the %s dialect writes it as a key of a mapping annotation: give the key", inj.Annotate)})
		case !inField && given:
			out = append(out, problem{field, fmt.Sprintf("the %s dialect writes plain annotations: give no field", inj.Annotate)})
		}
	}
	if inField && inj.Record == nil {
		out = append(out, problem{"injector.record", fmt.Sprintf("the %s dialect keeps the injector's record of the containers it added: give its annotation", inj.Annotate)})
	}
	return out
}

// Delay formats.
const (
	// FormatDuration is a duration such as "30s".
	FormatDuration = "duration"
	// FormatSeconds is a number of seconds such as "30".
	FormatSeconds = "seconds"
	// FormatBoolean is a boolean such as "true", read with strconv.ParseBool.
	FormatBoolean = "boolean"
)

// checkPattern reports what is wrong with an image pattern.
func checkPattern(p string) error {
	rest := strings.TrimPrefix(p, "**/")
	switch {
	case rest == "":
		return fmt.Errorf("empty")
	case strings.ContainsAny(rest[strings.LastIndex(rest, "/")+1:], "@:"):
		return fmt.Errorf("%q: give the image without tag or digest", p)
	case strings.Contains(rest, "**"):
		return fmt.Errorf("%q: ** only starts a pattern (**/)", p)
	}
	if _, err := path.Match(rest, ""); err != nil {
		return fmt.Errorf("%q: %v", p, err)
	}
	return nil
}

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

// btoi is 1 for true, 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
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
			return e.Preset(), true
		}
	}
	return Lookup(name)
}

// All lists the presets an empty sidecar list applies, in start order: the
// built-in catalog's, then own, a config's own entries, in their order.
func All(own []Entry) []Preset {
	out := Catalog()
	for _, e := range own {
		out = append(out, e.Preset())
	}
	return out
}
