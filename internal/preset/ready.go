package preset

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Flag syntaxes of an EndpointSwitch: how a sidecar parses its arguments.
const (
	// PFlag is spf13/pflag's: --name=value or --name value, a boolean flag
	// alone or as --name=false, up to "--".
	PFlag = "pflag"
	// GoFlag is Go's flag package's: -name or --name, =value or a separate
	// value for a flag that is not boolean, up to the first argument that
	// is not a flag.
	GoFlag = "goflag"
)

// Readiness is how one form of a sidecar tells it is ready: its entry's
// own, or one of the entry's variants.
type Readiness struct {
	// Variant names the form; empty for the entry's own.
	Variant string
	// Endpoint is the readiness endpoint; nil when the catalog knows none.
	Endpoint *Endpoint
	// Wait is the command that blocks until the sidecar is ready; nil when
	// the form has none.
	Wait *Wait
	// StartupProbe is native mode's probe; nil when the catalog gives none.
	StartupProbe *corev1.Probe
}

// ReadinessFor returns how a container of the sidecar tells it is ready,
// by its image and its program (command[0], empty when the image's
// entrypoint runs): the first variant of the entry that recognises it,
// else the entry's own.
func (p Preset) ReadinessFor(image, program string) Readiness {
	r := p.Ready
	if r == nil {
		return Readiness{}
	}
	for _, v := range r.Variants {
		if v.recognises(image, program) {
			return readiness(v.Name, v.Endpoint, v.Wait, v.StartupProbe)
		}
	}
	return readiness("", r.Endpoint, r.Wait, r.StartupProbe)
}

// readiness copies a form's facts, so that the caller cannot change the catalog's.
func readiness(variant string, ep *Endpoint, wait *Wait, probe *ProbeFact) Readiness {
	out := Readiness{Variant: variant}
	if ep != nil {
		c := *ep
		out.Endpoint = &c
	}
	if wait != nil {
		c := *wait
		out.Wait = &c
	}
	if probe != nil && probe.Probe != nil {
		out.StartupProbe = probe.Probe.DeepCopy()
	}
	return out
}

// recognises reports whether a container is the variant, by its image or its program.
func (v Variant) recognises(image, program string) bool {
	for _, im := range v.Images {
		if MatchImage(im.Pattern, image) {
			return true
		}
	}
	for _, prog := range v.Programs {
		if program != "" && path.Base(program) == prog.Name {
			return true
		}
	}
	return false
}

// SwitchesEndpoint reports whether the catalog says how the function
// switches the sidecar's readiness endpoint on, for the entry or one of
// its variants: the sidecars the config's healthCheck applies to.
func (p Preset) SwitchesEndpoint() bool {
	if p.Ready == nil {
		return false
	}
	if ep := p.Ready.Endpoint; ep != nil && ep.Switch != nil {
		return true
	}
	for _, v := range p.Ready.Variants {
		if v.Endpoint != nil && v.Endpoint.Switch != nil {
			return true
		}
	}
	return false
}

// Dashes starts a flag as the sidecar writes it: "-" for goflag, "--" for pflag.
func (s EndpointSwitch) Dashes() string {
	if s.Flags == GoFlag {
		return "-"
	}
	return "--"
}

// Version is a vendor's version: major, minor and patch.
type Version [3]int

// ParseVersion reads "2.8.0", "v2.8", or an image tag such as
// "2.14.1-alpine": two or three numbers, an optional leading v, anything
// after a "-" ignored.
func ParseVersion(s string) (Version, bool) {
	var v Version
	s, _, _ = strings.Cut(strings.TrimPrefix(s, "v"), "-")
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return v, false
	}
	for i, part := range parts {
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

// Less reports whether v is older than w.
func (v Version) Less(w Version) bool {
	for i := range v {
		if v[i] != w[i] {
			return v[i] < w[i]
		}
	}
	return false
}

// ImageOlder reports whether an image's tag names a version older than
// since. An image without a version in its tag (latest, a digest only) and
// an empty since are taken as new enough.
func ImageOlder(image, since string) bool {
	want, ok := ParseVersion(since)
	if !ok {
		return false
	}
	ref, _, _ := strings.Cut(image, "@")
	i := strings.LastIndex(ref, ":")
	if i < 0 || strings.Contains(ref[i:], "/") {
		return false
	}
	have, ok := ParseVersion(ref[i+1:])
	return ok && have.Less(want)
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
var flagName = regexp.MustCompile(FlagNamePattern)

// FlagNamePattern is the pattern of a Setting's flag.
const FlagNamePattern = `^[^-= \t][^= \t]*$`

// SincePattern is the pattern of a since: empty, or a version ParseVersion reads.
const SincePattern = `^$|^v?[0-9]+\.[0-9]+(\.[0-9]+)?(-.*)?$`

// check lists what is wrong with an EndpointSwitch, at its field path.
func (s EndpointSwitch) check(at string) []error {
	var errs []error
	add := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if s.Flags != PFlag && s.Flags != GoFlag {
		add(at+".flags", "%q is not %s or %s", s.Flags, PFlag, GoFlag)
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
	case Loopback(s.Reachable):
		add(at+".reachable", "%q is a loopback address, which kubelet does not reach", s.Reachable)
	}
	return errs
}

// checkSince reports a since that is not a version.
func checkSince(add func(field, format string, args ...any), field, since string) {
	if _, ok := ParseVersion(since); since != "" && !ok {
		add(field, "%q is not a version such as 2.8.0", since)
	}
}

// Loopback reports whether an address is reachable from inside the
// container only: localhost, 127.0.0.0/8 and ::1, with or without brackets.
func Loopback(address string) bool {
	a := strings.Trim(address, "[]")
	return a == "localhost" || a == "::1" || strings.HasPrefix(a, "127.")
}
