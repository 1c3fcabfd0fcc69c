package config

import (
	"fmt"
	"path"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/labels"
)

// Validate checks every field, parses durations and the version in place, and
// returns an Errors list naming each bad field.
func (c *SidecarLifecycle) Validate() error {
	var errs Errors
	add := func(p, msg string) { errs.add(c.path(p), msg) }
	s := &c.Spec

	v, err := ParseVersion(s.KubernetesVersion)
	if s.VersionAuto() {
		v, err = ParseVersion(DefaultKubernetesVersion)
	}
	if err != nil {
		add("spec.kubernetesVersion", err.Error())
	}
	s.version = v
	oneOf(add, "spec.mode", string(s.Mode), ModeOrdered, ModeNative, ModeAuto)
	oneOf(add, "spec.action", string(s.Action), ActionMutate, ActionValidate)
	oneOf(add, "spec.terminationGracePeriod.policy", string(s.TerminationGracePeriod.Policy), GraceRaise, GraceWarn, GraceKeep)
	oneOf(add, "spec.existingHooks", string(s.ExistingHooks), HooksKeep, HooksReplace, HooksFail)
	margin := &s.TerminationGracePeriod.Margin
	if !parseDelay(add, "spec.terminationGracePeriod.margin", margin, 0) {
		margin.Value = 0
	}
	parseDelay(add, "spec.app.drainDelay", &s.App.DrainDelay, margin.Value)
	if err == nil {
		checkModeVersion(add, s)
	}

	validateEntries(add, s.Catalog.Entries)
	seen := map[string]int{}
	for i := range s.Sidecars {
		validateSidecar(add, fmt.Sprintf("spec.sidecars[%d]", i), &s.Sidecars[i], s, err == nil)
		name := s.Sidecars[i].Name
		if j, dup := seen[name]; dup && name != "" {
			add(fmt.Sprintf("spec.sidecars[%d].name", i), fmt.Sprintf("%q is already the name of spec.sidecars[%d], and a container is ordered once: "+
				"remove this entry or merge it into spec.sidecars[%d]", name, j, j))
		}
		seen[name] = i
	}
	for i, sel := range s.Targets.Include {
		validateSelector(add, fmt.Sprintf("spec.targets.include[%d]", i), sel)
	}
	for i, sel := range s.Targets.Exclude {
		validateSelector(add, fmt.Sprintf("spec.targets.exclude[%d]", i), sel)
	}
	for i, p := range s.PodSpecPaths {
		at := fmt.Sprintf("spec.podSpecPaths[%d]", i)
		if p.Kind == "" {
			add(at+".kind", "is required")
		}
		if strings.Trim(p.Path, "/") == "" {
			add(at+".path", "is required, such as spec/template/spec")
		}
		if b, ok := builtInKind(p.Group, p.Kind); ok && strings.Trim(p.Path, "/") != b.Path {
			group := "group " + b.Group
			if b.Group == "" {
				group = "the core group"
			}
			add(at, fmt.Sprintf("redefines the built-in kind %s (%s), whose pod spec is at %s: remove this entry", b.Kind, group, b.Path))
		}
	}
	validateNodes(add, &s.Nodes)
	return errs.orNil()
}

// validateNodes checks the node classes and the graceful node shutdown:
// names given once, a deadline or a provider, taint effects kubelet knows.
func validateNodes(add func(string, string), n *Nodes) {
	names := map[string]int{}
	for i := range n.Classes {
		c := &n.Classes[i]
		at := fmt.Sprintf("spec.nodes.classes[%d]", i)
		if c.Name == "" {
			add(at+".name", "is required")
		} else if j, dup := names[c.Name]; dup {
			add(at+".name", fmt.Sprintf("%q is already the name of spec.nodes.classes[%d]", c.Name, j))
		}
		names[c.Name] = i
		if c.Provider != "" && !isKeyName(c.Provider) {
			add(at+".provider", fmt.Sprintf("%q is not a provider name (lower-case letters, digits and dashes)", c.Provider))
		}
		parseDeadline(add, at+".deadline", &c.Deadline)
		if !c.Deadline.IsSet() && c.Provider == "" {
			add(at, "needs a deadline or a provider")
		}
		for k, t := range c.Taints {
			if t.Key == "" {
				add(fmt.Sprintf("%s.taints[%d].key", at, k), "is required")
			}
			oneOf(add, fmt.Sprintf("%s.taints[%d].effect", at, k), t.Effect, "NoSchedule", "PreferNoSchedule", "NoExecute")
		}
	}
	parseDeadline(add, "spec.nodes.shutdown.gracePeriod", &n.Shutdown.GracePeriod)
	parseDeadline(add, "spec.nodes.shutdown.criticalPodsGracePeriod", &n.Shutdown.CriticalPodsGracePeriod)
}

// parseDeadline parses a duration that is not negative, in place.
func parseDeadline(add func(string, string), at string, d *Duration) {
	if !d.IsSet() {
		d.Value = 0
		return
	}
	v, err := ParseDuration(d.Raw)
	if err == nil && v < 0 {
		err = fmt.Errorf("%q is negative", d.Raw)
	}
	if err != nil {
		add(at, err.Error())
		d.Value = 0
		return
	}
	d.Value = v
}

// isKeyName reports whether s is lower-case letters, digits and dashes.
func isKeyName(s string) bool {
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			return false
		}
	}
	return s != ""
}

// validateEntries checks the config's own catalog entries: each as the
// built-in ones are checked, its probe as a sidecar's, under a name of its
// own.
func validateEntries(add func(string, string), entries []CatalogEntry) {
	names := map[string]int{}
	for i, e := range entries {
		at := fmt.Sprintf("spec.catalog.entries[%d]", i)
		for _, err := range e.Check() {
			field, msg, _ := strings.Cut(err.Error(), ": ")
			add(at+"."+field, msg)
		}
		if e.Ready != nil && e.Ready.StartupProbe != nil {
			validateProbe(add, at+".ready.startupProbe.probe", e.Ready.StartupProbe.Probe)
		}
		for j, v := range readyVariants(e) {
			if v.StartupProbe != nil {
				validateProbe(add, fmt.Sprintf("%s.ready.variants[%d].startupProbe.probe", at, j), v.StartupProbe.Probe)
			}
		}
		if _, builtin := builtinPreset(e.Name); builtin {
			add(at+".name", fmt.Sprintf("%q is an entry of the built-in catalog: choose another name, or name the built-in preset in spec.sidecars", e.Name))
		}
		if j, dup := names[e.Name]; dup {
			add(at+".name", fmt.Sprintf("%q is already the name of spec.catalog.entries[%d]", e.Name, j))
		}
		names[e.Name] = i
	}
}

// readyVariants are an entry's variants; none when it has no ready block.
func readyVariants(e CatalogEntry) []Variant {
	if e.Ready == nil {
		return nil
	}
	return e.Ready.Variants
}

func validateSidecar(add func(string, string), at string, sc *Sidecar, s *Spec, versionOK bool) {
	p, ok := s.preset(sc.Preset)
	if !ok {
		add(at+".preset", fmt.Sprintf("unknown preset %q: use one of %s", sc.Preset, s.presetNames()))
	}
	if sc.Name == "" && ok && !sc.Recognise {
		add(at+".name", "is required when preset is none")
	}
	if sc.WaitForReady != nil && len(sc.WaitForReady.Command) == 0 {
		add(at+".waitForReady.command", "must not be empty")
	}
	validateProbe(add, at+".startupProbe", sc.StartupProbe)
	if ok {
		oneOf(add, at+".ifAbsent", string(sc.IfAbsent), IfAbsentAnnotate, IfAbsentSkip, IfAbsentFail)
		if sc.IfAbsent == IfAbsentAnnotate && !p.annotates() {
			add(at+".ifAbsent", fmt.Sprintf("preset %s has no mesh annotations to set: use skip or fail", p.Name))
		}
	}
	validateHealthCheck(add, at, sc, s, p, ok)
	if !parseDelayOrAuto(add, at+".waitBeforeExit", &sc.WaitBeforeExit, s.TerminationGracePeriod.Margin.Value) || !ok || !versionOK {
		return
	}
	checkSleepVersion(add, at, sc, s, p)
}

// checkModeVersion checks that the version serves the mode.
func checkModeVersion(add func(string, string), s *Spec) {
	if s.Mode == ModeNative && !s.version.AtLeast(NativeSidecarMinor) {
		add("spec.mode", fmt.Sprintf("native sidecars need kubernetesVersion >= 1.%d, got %s: use mode ordered or auto", NativeSidecarMinor, s.version))
	}
}

// checkSleepVersion checks that a sidecar's exit delay can be written at
// the version: the sleep action, or its sleepCommand.
func checkSleepVersion(add func(string, string), at string, sc *Sidecar, s *Spec, p CatalogEntry) {
	if (sc.WaitBeforeExit.Value > 0 || sc.WaitBeforeExit.IsAuto()) && s.Mode == ModeOrdered && !s.version.AtLeast(SleepActionMinor) && len(sc.SleepCommand) == 0 {
		add(at+".waitBeforeExit", noSleepMessage(p, s.version))
	}
}

// AtVersion returns a copy of the validated config whose version is v, as
// auto follows the oldest kubelet (see Spec.VersionAuto), with the errors
// of the checks that depend on the version. The copy shares the config's
// lists, which neither changes.
func (c *SidecarLifecycle) AtVersion(v Version) (*SidecarLifecycle, error) {
	at := *c
	s := &at.Spec
	s.version = v
	var errs Errors
	add := func(p, msg string) { errs.add(at.path(p), msg) }
	checkModeVersion(add, s)
	for i := range s.Sidecars {
		sc := &s.Sidecars[i]
		if p, ok := s.preset(sc.Preset); ok {
			checkSleepVersion(add, fmt.Sprintf("spec.sidecars[%d]", i), sc, s, p)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return &at, nil
}

// validateHealthCheck checks a sidecar's healthCheck, or its older
// spelling cloudSQLProxy.healthCheck, which it then takes as healthCheck:
// one of enable and require, for a preset whose catalog entry says how to
// switch its health endpoints on; not both.
func validateHealthCheck(add func(string, string), at string, sc *Sidecar, s *Spec, p CatalogEntry, ok bool) {
	field, v := at+".healthCheck", sc.HealthCheck
	if sc.CloudSQLProxy != nil {
		if sc.HealthCheck != "" {
			add(at+".cloudSQLProxy", "is the older name of healthCheck: give only healthCheck")
			return
		}
		field, v = at+".cloudSQLProxy", sc.CloudSQLProxy.HealthCheck
	}
	switch {
	case field == at+".healthCheck" && v == "":
	case ok && !p.switchesEndpoint():
		add(field, fmt.Sprintf("applies to presets whose catalog entry says how to switch their health endpoints on (%s), not %s: remove it", strings.Join(s.switchingPresets(), ", "), p.Name))
	case v == "":
		sc.HealthCheck = HealthCheckEnable
	case field == at+".cloudSQLProxy":
		oneOf(add, field+".healthCheck", string(v), HealthCheckEnable, HealthCheckRequire)
		sc.HealthCheck = v
	default:
		oneOf(add, field, string(v), HealthCheckEnable, HealthCheckRequire)
	}
}

func validateSelector(add func(string, string), at string, sel Selector) {
	for _, f := range [][2]string{{"group", sel.Group}, {"version", sel.Version}, {"kind", sel.Kind}, {"name", sel.Name}, {"namespace", sel.Namespace}} {
		if _, err := path.Match(f[1], ""); err != nil {
			add(at+"."+f[0], fmt.Sprintf("%q is not a valid glob", f[1]))
		}
	}
	if _, err := labels.Parse(sel.LabelSelector); err != nil {
		add(at+".labelSelector", err.Error())
	}
	if _, err := labels.Parse(sel.AnnotationSelector); err != nil {
		add(at+".annotationSelector", err.Error())
	}
}

// parseDelay parses a delay in place, and reports it unless it is valid and
// at most MaxDelay, also with margin added.
func parseDelay(add func(string, string), at string, d *Duration, margin time.Duration) bool {
	if !d.IsSet() {
		d.Value = 0
		return true
	}
	v, err := ParseDelay(d.Raw, margin)
	if err != nil {
		add(at, err.Error())
		return false
	}
	d.Value = v
	return true
}

func oneOf[T ~string](add func(string, string), at, value string, allowed ...T) {
	names := make([]string, len(allowed))
	for i, a := range allowed {
		if string(a) == value {
			return
		}
		names[i] = string(a)
	}
	add(at, fmt.Sprintf("%q is not one of %s", value, strings.Join(names, ", ")))
}

// path maps a spec field path to the ConfigMap key it came from, for configs
// given as a ConfigMap.
func (c *SidecarLifecycle) path(p string) string {
	if !c.fromConfigMap {
		return p
	}
	if key, ok := configMapPaths[p]; ok {
		return key
	}
	return p
}
