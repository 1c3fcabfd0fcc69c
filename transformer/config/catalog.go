package config

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
	"strconv"
	"strings"
	"sync"
	"time"

	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// files are the built-in catalog: one entry a file, catalog/<name>.yaml.
//
//go:embed catalog/*.yaml
var files embed.FS

// BuiltinCatalog returns the built-in catalog's entries, sorted by name.
// Each file is read once, when first needed; an entry that does not read
// is a bug that every test reports. The entries are shared: callers must
// not change them.
func BuiltinCatalog() []CatalogEntry { return builtin.entries() }

// BuiltinEntry returns the built-in catalog's entry of the name.
func BuiltinEntry(name string) (CatalogEntry, bool) {
	read, ok := builtin.read[name]
	if !ok {
		return CatalogEntry{}, false
	}
	return read(), true
}

// builtin is the built-in catalog, read from files.
var builtin = newShelf(files)

// shelf is a catalog of entry files, catalog/<name>.yaml in its file
// system, each read and checked once, when first needed: a run that names
// its presets reads only their files.
type shelf struct {
	// read reads each entry, by name.
	read map[string]func() CatalogEntry
	// entries are every entry, sorted by name.
	entries func() []CatalogEntry
}

// newShelf lists the entry files of a file system's catalog directory.
func newShelf(fsys fs.FS) *shelf {
	names, err := fs.ReadDir(fsys, "catalog")
	if err != nil {
		panic(err)
	}
	s := &shelf{read: map[string]func() CatalogEntry{}}
	for _, f := range names {
		file := f.Name()
		s.read[strings.TrimSuffix(file, ".yaml")] = sync.OnceValue(func() CatalogEntry { return readFile(fsys, file) })
	}
	s.entries = sync.OnceValue(func() []CatalogEntry {
		var entries []CatalogEntry
		for _, name := range slices.Sorted(maps.Keys(s.read)) {
			entries = append(entries, s.read[name]())
		}
		return entries
	})
	return s
}

// readFile reads and checks the entry in a file of a catalog directory.
func readFile(fsys fs.FS, file string) CatalogEntry {
	data, err := fs.ReadFile(fsys, "catalog/"+file)
	if err != nil {
		panic(err)
	}
	e, err := ReadCatalogEntry(data)
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

// ReadCatalogEntry reads one catalog entry from YAML or JSON; an unknown
// field or a key given twice is an error. The YAML is decoded to plain
// values and those to the entry through JSON, for the JSON field names;
// kyaml's RNode.MarshalJSON, which encodes the node and decodes it again
// first, took 11 ms of every run that looked up a preset.
func ReadCatalogEntry(data []byte) (CatalogEntry, error) {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return CatalogEntry{}, err
	}
	js, err := json.Marshal(v)
	if err != nil {
		return CatalogEntry{}, err
	}
	var e CatalogEntry
	strict, err := sigsjson.UnmarshalStrict(js, &e)
	if err != nil {
		return CatalogEntry{}, err
	}
	if len(strict) > 0 {
		return CatalogEntry{}, strict[0]
	}
	return e, nil
}

// presetNone is the preset of a sidecar the function knows nothing about.
const presetNone = "none"

// Dialects.
const (
	// LinkerdDialect is Linkerd's proxy-await, wait-before-exit and native
	// sidecar annotations.
	LinkerdDialect Dialect = "linkerd"
	// IstioDialect is Istio's ProxyConfig (holdApplicationUntilProxyStarts,
	// terminationDrainDuration), its native sidecar annotation and its
	// status annotation.
	IstioDialect Dialect = "istio"
	// GenericDialect is the annotations an entry's injector.annotations
	// lists: keys that hold the application until the sidecar is ready, one
	// that holds its exit delay, one that asks for a native sidecar.
	GenericDialect Dialect = "generic"
)

// Dialect names the pod template annotations with which the function asks
// an injector to order the sidecar it adds at admission.
type Dialect string

// dialects are the annotation dialects the function writes.
var dialects = []Dialect{LinkerdDialect, IstioDialect, GenericDialect}

// dialectNames lists the dialects as text.
func dialectNames() []string {
	var names []string
	for _, d := range dialects {
		names = append(names, string(d))
	}
	return names
}

// Values of the catalog's fields, as its files write them.
const (
	// formatDuration is a duration such as "30s".
	formatDuration = "duration"
	// formatSeconds is a number of seconds such as "30".
	formatSeconds = "seconds"
	// formatBoolean is a boolean such as "true", read with strconv.ParseBool.
	formatBoolean = "boolean"
	// pflagSyntax and goflagSyntax are EndpointSwitch.Flags: spf13/pflag's
	// and Go's flag package's.
	pflagSyntax, goflagSyntax = "pflag", "goflag"
	// anyValue is a switch's or a word's value that any value sets.
	anyValue = "*"
	// flagNamePattern is the pattern of a Setting's flag.
	flagNamePattern = `^[^-= \t][^= \t]*$`
	// sincePattern is the pattern of a since: empty, or a version.
	sincePattern = `^$|^v?[0-9]+\.[0-9]+(\.[0-9]+)?(-.*)?$`
)

// AnnotatedArg is an argument of a command whose value a pod annotation sets.
type AnnotatedArg struct {
	// Annotation holds the value.
	Annotation string `json:"annotation"`
	// Prefix starts the argument; the value follows it.
	Prefix string `json:"prefix"`
}

// Dashes starts a flag as the sidecar writes it: "-" for goflag, "--" for pflag.
func (s EndpointSwitch) Dashes() string {
	if s.Flags == goflagSyntax {
		return "-"
	}
	return "--"
}

// entryName is a preset's name.
var entryName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// Check lists what is wrong with an entry, each error starting with the
// field's path in the entry (images[0].pattern).
func (e CatalogEntry) Check() []error {
	var errs []error
	add := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if !entryName.MatchString(e.Name) {
		add("name", "%q is not a preset name: lower-case letters, digits and dashes", e.Name)
	}
	if e.Name == presetNone {
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
			if _, err := ParseExitDelay(d.Default); d.Default != "" && err != nil {
				add(field+".default", "%v", err)
			}
			if d.Format != "" && d.Format != formatDuration && d.Format != formatSeconds && d.Format != formatBoolean {
				add(field+".format", "%q is not %s, %s or %s", d.Format, formatDuration, formatSeconds, formatBoolean)
			}
			if _, err := ParseExitDelay(d.Minimum); d.Minimum != "" && err != nil {
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
		if a := inj.Annotations; a != nil && a.ExitDelay != nil && a.ExitDelay.Format != "" && a.ExitDelay.Format != formatDuration && a.ExitDelay.Format != formatSeconds {
			add("injector.annotations.exitDelay.format", "%q is not %s or %s", a.ExitDelay.Format, formatDuration, formatSeconds)
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
		for i, r := range inj.Refuses {
			field := fmt.Sprintf("injector.refuses[%d]", i)
			if !r.HostNetwork && len(r.Namespaces)+len(r.Containers)+len(r.Images)+len(r.InitContainers)+len(r.InitImages)+len(r.Labels)+len(r.Annotations) == 0 && r.Invalid == nil {
				add(field, "give the pods it refuses: hostNetwork, namespaces, containers, images, initContainers, initImages, labels, annotations or invalid")
			}
			if r.Says == "" {
				add(field+".says", "say why the injector refuses the pod, for the message that names it")
			}
			if x := r.Invalid; x != nil && (x.Annotation == "" || len(x.Values) == 0) {
				add(field+".invalid", "give the annotation and the values the injector accepts")
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
			add(field+".value", "give the value that says the word, or %q for any value", anyValue)
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

// btoi is 1 for true, 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// check lists what is wrong with the readiness facts of an entry.
func (r Ready) check() []error {
	var errs []error
	add := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	form := func(at string, ep *Endpoint, wait *Wait, probe *ProbeFact) {
		if wait != nil {
			if len(wait.Command) == 0 {
				add(at+"wait.command", "empty")
			}
			checkSince(add, at+"wait.since", wait.Since)
		}
		if probe != nil && probe.Probe == nil {
			add(at+"startupProbe.probe", "is required: the probe kubelet runs, such as {httpGet: {path: /ready, port: 9000}}")
		}
		if ep != nil && ep.Switch != nil {
			errs = append(errs, ep.Switch.check(at+"endpoint.switch")...)
		}
	}
	form("ready.", r.Endpoint, r.Wait, r.StartupProbe)
	for i, v := range r.Variants {
		at := fmt.Sprintf("ready.variants[%d]", i)
		if v.Name == "" {
			add(at+".name", "is required: it names the form in messages, such as \"the v1 proxy\"")
		}
		if len(v.Images) == 0 && len(v.Programs) == 0 {
			add(at+".images", "give an image pattern or a program that recognises the form")
		}
		for j, im := range v.Images {
			if err := checkPattern(im.Pattern); err != nil {
				add(fmt.Sprintf("%s.images[%d].pattern", at, j), "%v", err)
			}
		}
		for j, prog := range v.Programs {
			if prog.Name == "" {
				add(fmt.Sprintf("%s.programs[%d].name", at, j), "empty")
			}
		}
		form(at+".", v.Endpoint, v.Wait, v.StartupProbe)
	}
	return errs
}

// flagName is a flag's name as a Setting gives it: without dashes, no
// "=" and no blank.
var flagName = regexp.MustCompile(flagNamePattern)

// check lists what is wrong with an EndpointSwitch, at its field path.
func (s EndpointSwitch) check(at string) []error {
	var errs []error
	add := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if s.Flags != pflagSyntax && s.Flags != goflagSyntax {
		add(at+".flags", "%q is not %s or %s", s.Flags, pflagSyntax, goflagSyntax)
	}
	settings := map[string]*Setting{"on": &s.On, "address": s.Address, "port": s.Port}
	for _, name := range []string{"on", "address", "port"} {
		set := settings[name]
		if set == nil {
			continue
		}
		if !flagName.MatchString(set.Flag) {
			add(at+"."+name+".flag", "%q is not a flag name: give it without dashes, such as health-check", set.Flag)
		}
		checkSince(add, at+"."+name+".since", set.Since)
	}
	if s.Env != nil {
		if s.Env.Prefix == "" {
			add(at+".env.prefix", "is required: it tells a container configured through its environment")
		}
		checkSince(add, at+".env.since", s.Env.Since)
	}
	switch {
	case s.Address != nil && s.Reachable == "":
		add(at+".reachable", "give the address kubelet reaches the endpoint on, such as 0.0.0.0")
	case s.Address == nil && s.Reachable != "":
		add(at+".reachable", "the function writes it in address: give address")
	case isLoopback(s.Reachable):
		add(at+".reachable", "%q is a loopback address, which kubelet does not reach", s.Reachable)
	}
	return errs
}

// isLoopback reports whether an address is reachable from inside the
// container only: localhost, 127.0.0.0/8 and ::1, with or without brackets.
func isLoopback(address string) bool {
	a := strings.Trim(address, "[]")
	return a == "localhost" || a == "::1" || strings.HasPrefix(a, "127.")
}

// checkSince reports a since that is not a version: two or three numbers,
// an optional leading v, anything after a "-" ignored ("2.8.0", "v2.8",
// "2.14.1-alpine").
func checkSince(add func(field, format string, args ...any), field, since string) {
	if since == "" {
		return
	}
	s, _, _ := strings.Cut(strings.TrimPrefix(since, "v"), "-")
	parts := strings.Split(s, ".")
	ok := len(parts) >= 2 && len(parts) <= 3
	for _, part := range parts {
		if n, err := strconv.Atoi(part); err != nil || n < 0 {
			ok = false
		}
	}
	if !ok {
		add(field, "%q is not a version such as 2.8.0", since)
	}
}

// ParseExitDelay reads a catalog entry's exit setting: a duration, or a
// bare number of seconds.
func ParseExitDelay(v string) (time.Duration, error) {
	if n, err := strconv.ParseUint(v, 10, 32); err == nil {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration (30s) or a number of seconds", v)
	}
	return d, nil
}

// builtinPreset returns a built-in preset's entry: the catalog's, or for
// none an entry with only its name.
func builtinPreset(name string) (CatalogEntry, bool) {
	if name == presetNone {
		return CatalogEntry{Name: presetNone}, true
	}
	return BuiltinEntry(name)
}

// builtinPresetNames lists the built-in presets' names, none among them,
// sorted.
func builtinPresetNames() []string {
	names := []string{presetNone}
	for name := range builtin.read {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// resolvePreset returns the named preset's entry: one of own, a config's
// own catalog entries, or else of the built-in catalog.
func resolvePreset(own []CatalogEntry, name string) (CatalogEntry, bool) {
	for _, e := range own {
		if e.Name == name {
			return e, true
		}
	}
	return builtinPreset(name)
}

// startOrder lists the entries an empty sidecar list applies, in start
// order: the built-in catalog's meshes, which carry the other sidecars'
// traffic, its other entries by name, then own, in their order.
func startOrder(own []CatalogEntry) []CatalogEntry {
	var meshes, others []CatalogEntry
	for _, e := range BuiltinCatalog() {
		if e.Mesh {
			meshes = append(meshes, e)
		} else {
			others = append(others, e)
		}
	}
	return append(append(meshes, others...), own...)
}

// container is the sidecar's usual container name, the entry's first;
// empty for none.
func (e CatalogEntry) container() string {
	if len(e.Containers) == 0 {
		return ""
	}
	return e.Containers[0].Name
}

// sleepCommand is a sleep binary in the sidecar's image, as the entry's
// image.sleep says; /bin/sleep when the entry says nothing of its image.
func (e CatalogEntry) sleepCommand() []string {
	if e.Image != nil {
		return slices.Clone(e.Image.Sleep)
	}
	return []string{"/bin/sleep"}
}

// annotates reports whether an injector adds the sidecar at admission and
// reads annotations the function writes (ifAbsent: annotate).
func (e CatalogEntry) annotates() bool {
	return e.Injector != nil && e.Injector.Annotate != ""
}

// switchesEndpoint reports whether the entry says how the function
// switches the sidecar's readiness endpoint on, for the entry or one of
// its variants: the sidecars the config's healthCheck applies to.
func (e CatalogEntry) switchesEndpoint() bool {
	if e.Ready == nil {
		return false
	}
	if ep := e.Ready.Endpoint; ep != nil && ep.Switch != nil {
		return true
	}
	for _, v := range e.Ready.Variants {
		if v.Endpoint != nil && v.Endpoint.Switch != nil {
			return true
		}
	}
	return false
}

// NoSleepMessage is the message for an exit delay of a sidecar of the
// preset that cannot be written: the spec's kubernetesVersion has no sleep
// action, which comes with 1.SleepActionMinor, and the sidecar has no
// sleepCommand, because its image has no sleep binary or because the
// config set sleepCommand to an empty list. It offers only what works at
// that version: mode native where native sidecars are served, and the
// sidecar's own exit setting.
func (s *Spec) NoSleepMessage(preset string) string {
	e, _ := s.preset(preset)
	return noSleepMessage(e, s.version)
}

// noSleepMessage is NoSleepMessage for the entry at kubernetesVersion v.
func noSleepMessage(e CatalogEntry, v Version) string {
	why := fmt.Sprintf("the %s image has no sleep binary", e.Name)
	fixes := []string{fmt.Sprintf("set kubernetesVersion to 1.%d or newer (the lifecycle sleep action)", SleepActionMinor)}
	if v.AtLeast(NativeSidecarMinor) {
		fixes = append(fixes, "use mode native (kubelet stops native sidecars after the application)")
	}
	fixes = append(fixes, "give sleepCommand (a sleep binary the image has)")
	if e.Exit != nil && e.Exit.NoSleep != "" {
		fixes = append(fixes, "drop waitBeforeExit and "+e.Exit.NoSleep)
	} else {
		fixes = append(fixes, "drop waitBeforeExit")
	}
	last := len(fixes) - 1
	return fmt.Sprintf("%s and kubernetesVersion %s has no sleep action: %s, or %s", why, v.String(), strings.Join(fixes[:last], ", "), fixes[last])
}
