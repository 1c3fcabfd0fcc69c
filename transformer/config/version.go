package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Version is a Kubernetes minor version such as 1.30.
type Version struct {
	Major, Minor int
}

// ParseVersion accepts "1.30", "v1.30" and "1.30.2" (the patch is ignored).
func ParseVersion(s string) (Version, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	parts := strings.Split(t, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Version{}, fmt.Errorf("%q is not a Kubernetes version such as \"1.30\"", s)
	}
	var nums [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if errors.Is(err, strconv.ErrRange) {
			return Version{}, fmt.Errorf("%q is out of range: no Kubernetes version has a number that large; write one such as \"1.30\"", s)
		}
		if err != nil || n < 0 {
			return Version{}, fmt.Errorf("%q is not a Kubernetes version such as \"1.30\"", s)
		}
		nums[i] = n
	}
	if nums[0] != 1 {
		return Version{}, fmt.Errorf("%q is not a Kubernetes 1.x version", s)
	}
	return Version{Major: nums[0], Minor: nums[1]}, nil
}

// AtLeast reports whether v is the given 1.minor version or newer.
func (v Version) AtLeast(minor int) bool {
	return v.Major > 1 || (v.Major == 1 && v.Minor >= minor)
}

// String formats the version as "1.30".
func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// Minimum Kubernetes minor versions for the features the function writes.
const (
	// SleepActionMinor is the first minor with lifecycle sleep actions on by default.
	SleepActionMinor = 30
	// NativeSidecarMinor is the first minor with native sidecars on by default.
	NativeSidecarMinor = 29
)
