// Package kubelet knows which pod fields a kubelet serves from which
// version on (features.yaml, each fact with its source), reads the kubelet
// versions of the Nodes in an input, and finds where a pod spec uses such
// a field.
package kubelet

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/factdata"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
)

// featuresYAML is the catalog of the fields a kubelet serves from some version on.
//
//go:embed features.yaml
var featuresYAML []byte

// The ids of the features, as features.yaml names them.
const (
	// NativeSidecar is an init container with restartPolicy: Always.
	NativeSidecar = "native-sidecar"
	// SleepAction is a lifecycle hook's sleep action.
	SleepAction = "sleep-action"
	// ZeroSleep is a sleep action of zero seconds.
	ZeroSleep = "zero-sleep"
)

// Facts are the features and the sources they were read in.
type Facts struct {
	// Sources are the places the facts were read, by key.
	Sources map[string]preset.Source `json:"sources"`
	// Features are the fields, in the order the docs list them.
	Features []Feature `json:"features"`
}

// Feature is a pod field that a kubelet serves from some version on.
type Feature struct {
	// ID names the feature (NativeSidecar, SleepAction, ZeroSleep).
	ID string `json:"id"`
	// Title says what it is, in a message.
	Title string `json:"title"`
	// Field is the field, and the value, that uses the feature.
	Field string `json:"field"`
	// Writes says when the function writes the field.
	Writes string `json:"writes"`
	// Gate is the Kubernetes feature gate that switches it on.
	Gate string `json:"gate"`
	// Alpha, OnByDefault and GA are the versions at which the gate came
	// as alpha, was on by default (beta), and went GA.
	Alpha       string `json:"alpha"`
	OnByDefault string `json:"onByDefault"`
	GA          string `json:"ga"`
	// Source is "<source key> <path> (<name>)".
	Source string `json:"source"`
}

// Minor is the minor version from which a kubelet serves the feature:
// its gate's OnByDefault.
func (f Feature) Minor() int {
	m, _ := minorOf(f.OnByDefault) // checked when read
	return m
}

// Catalog returns the features, read once; a catalog that does not read
// is a bug that every test reports.
var Catalog = sync.OnceValue(func() Facts {
	f, err := readFacts(featuresYAML)
	if err != nil {
		panic(fmt.Sprintf("features.yaml: %v", err))
	}
	return f
})

// ByID returns the feature with the id; it must be one of the constants.
func ByID(id string) Feature {
	for _, f := range Catalog().Features {
		if f.ID == id {
			return f
		}
	}
	panic("kubelet: no feature " + id)
}

// readFacts reads the catalog strictly: an unknown field, a version that
// is not 1.N, or a fact without a source of the catalog is an error.
func readFacts(data []byte) (Facts, error) {
	var f Facts
	if err := factdata.Strict(data, &f); err != nil {
		return Facts{}, err
	}
	for _, ft := range f.Features {
		for _, v := range []string{ft.Alpha, ft.OnByDefault, ft.GA} {
			if _, err := minorOf(v); err != nil {
				return Facts{}, fmt.Errorf("%s: %v", ft.ID, err)
			}
		}
		key, _, _ := strings.Cut(ft.Source, " ")
		if _, ok := f.Sources[key]; !ok || !strings.Contains(ft.Source, " ") {
			return Facts{}, fmt.Errorf("%s.source: %q does not start with a key of sources and a path", ft.ID, ft.Source)
		}
	}
	return f, nil
}

// minorOf reads the minor of a version "1.N".
func minorOf(v string) (int, error) {
	minor, ok := strings.CutPrefix(v, "1.")
	n, err := strconv.Atoi(minor)
	if !ok || err != nil {
		return 0, fmt.Errorf("%q is not a version 1.N", v)
	}
	return n, nil
}
