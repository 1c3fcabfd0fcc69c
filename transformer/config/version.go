package config

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Version is a Kubernetes minor version such as 1.30.
type Version struct {
	Major, Minor int
}

// versionRE matches the versions ParseVersion accepts.
var versionRE = regexp.MustCompile(versionNumberPattern)

// longNumbersRE matches a 1.x version whose numbers are longer than
// versionPattern allows.
var longNumbersRE = regexp.MustCompile(`^v?1\.[0-9]+(\.[0-9]+)?$`)

// otherMajorRE matches a version of another major than 1.
var otherMajorRE = regexp.MustCompile(`^v?[0-9]+\.`)

// ParseVersion accepts "1.30", "v1.30" and "1.30.2" (the patch is ignored):
// versionNumberPattern, which the schema gives besides auto (see
// Spec.VersionAuto).
func ParseVersion(s string) (Version, error) {
	switch {
	case versionRE.MatchString(s):
		minor, _ := strconv.Atoi(strings.Split(strings.TrimPrefix(s, "v"), ".")[1]) // at most 4 digits
		return Version{Major: 1, Minor: minor}, nil
	case longNumbersRE.MatchString(s):
		return Version{}, fmt.Errorf("%q is out of range: no Kubernetes version has a number that large; write one such as \"1.30\"", s)
	case otherMajorRE.MatchString(s) && !strings.HasPrefix(strings.TrimPrefix(s, "v"), "1."):
		return Version{}, fmt.Errorf("%q is not a Kubernetes 1.x version", s)
	}
	return Version{}, fmt.Errorf("%q is not a Kubernetes version such as \"1.30\"", s)
}

// AtLeast reports whether v is the given 1.minor version or newer.
func (v Version) AtLeast(minor int) bool {
	return v.Major > 1 || (v.Major == 1 && v.Minor >= minor)
}

// String formats the version as "1.30".
func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// Minimum Kubernetes minor versions for the features the function writes:
// the first minor whose kubelet serves each with its feature gate on by
// default (internal/kubelet/features.yaml holds them with their sources,
// and a test holds these equal to it).
const (
	// SleepActionMinor is the first minor with lifecycle sleep actions on by default.
	SleepActionMinor = 30
	// NativeSidecarMinor is the first minor with native sidecars on by default.
	NativeSidecarMinor = 29
)
