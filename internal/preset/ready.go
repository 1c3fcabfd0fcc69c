package preset

import (
	"path"
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
		if variantRecognises(v, image, program) {
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
func variantRecognises(v Variant, image, program string) bool {
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

// Loopback reports whether an address is reachable from inside the
// container only: localhost, 127.0.0.0/8 and ::1, with or without brackets.
func Loopback(address string) bool {
	a := strings.Trim(address, "[]")
	return a == "localhost" || a == "::1" || strings.HasPrefix(a, "127.")
}
