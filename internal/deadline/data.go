// Package deadline holds a pod to the deadlines of the nodes it may land
// on: spot notices, a Karpenter NodePool's terminationGracePeriod, the
// cluster-autoscaler's cap on scale-down, kubelet's graceful node
// shutdown. The facts are data with their sources (nodedeadlines.yaml);
// node classes come from the config and from the input's Nodes, NodePools
// and cluster-autoscaler; a pod's placement (nodeSelector, required node
// affinity, tolerations) says which classes hold it.
package deadline

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/factdata"
)

//go:embed nodedeadlines.yaml
var factsYAML []byte

// Facts are what the function knows of node deadlines, as
// nodedeadlines.yaml states them, each with its source.
type Facts struct {
	// Sources are the repositories and pages the facts were read in, by key.
	Sources map[string]Source `json:"sources"`
	// Providers are the named defaults a node class may take.
	Providers []Provider `json:"providers"`
	// NodePool is where a Karpenter NodePool holds its deadline.
	NodePool NodePoolFacts `json:"nodePool"`
	// Autoscaler is the cluster-autoscaler's cap on scale-down.
	Autoscaler AutoscalerFacts `json:"autoscaler"`
	// NodeShutdown is kubelet's graceful node shutdown.
	NodeShutdown ShutdownFacts `json:"nodeShutdown"`
	// SidecarTail is the time sidecars get after the grace ends.
	SidecarTail Seconds `json:"sidecarTail"`
}

// Source is a repository at a version, or a page.
type Source struct {
	Repository string `json:"repository,omitempty"`
	Version    string `json:"version,omitempty"`
	Page       string `json:"page,omitempty"`
}

// String names the source: owner/name@version, or the page.
func (s Source) String() string {
	if s.Page != "" {
		return s.Page
	}
	return s.Repository + "@" + s.Version
}

// Seconds is a duration, what it stands for, and where it was read.
type Seconds struct {
	Seconds int64  `json:"seconds"`
	Says    string `json:"says"`
	Source  string `json:"source"`
}

// Provider is a kind of node whose deadline is known: its deadline for
// regular pods (and critical pods, where it differs), the labels and
// taints its nodes carry, and how to keep a pod off it.
type Provider struct {
	Name       string      `json:"name"`
	Title      string      `json:"title"`
	Deadline   Seconds     `json:"deadline"`
	Critical   *Seconds    `json:"critical,omitempty"`
	NodeLabels LabelFacts  `json:"nodeLabels"`
	Taints     *TaintFacts `json:"taints,omitempty"`
	ProviderID string      `json:"providerID"`
	PinOff     string      `json:"pinOff"`
}

// LabelFacts are labels and where they were read.
type LabelFacts struct {
	Labels map[string]string `json:"labels"`
	Source string            `json:"source"`
}

// TaintFacts are taints and where they were read.
type TaintFacts struct {
	Taints []Taint `json:"taints"`
	Source string  `json:"source"`
}

// NodePoolFacts say where a Karpenter NodePool holds what the budget reads.
type NodePoolFacts struct {
	Title                  string `json:"title"`
	Group                  string `json:"group"`
	Kind                   string `json:"kind"`
	TerminationGracePeriod string `json:"terminationGracePeriod"`
	Labels                 string `json:"labels"`
	Taints                 string `json:"taints"`
	Requirements           string `json:"requirements"`
	NodeLabel              string `json:"nodeLabel"`
	CapacityType           struct {
		Key      string `json:"key"`
		Spot     string `json:"spot"`
		Provider string `json:"provider"`
	} `json:"capacityType"`
	Says   string `json:"says"`
	Raise  string `json:"raise"`
	Source string `json:"source"`
}

// AutoscalerFacts say how the cluster-autoscaler is known and where its cap is.
type AutoscalerFacts struct {
	Title   string `json:"title"`
	Image   string `json:"image"`
	Flag    string `json:"flag"`
	Default int64  `json:"default"`
	Says    string `json:"says"`
	Raise   string `json:"raise"`
	Source  string `json:"source"`
}

// ShutdownFacts say how kubelet's graceful node shutdown splits its period.
type ShutdownFacts struct {
	CriticalPriorityClasses []string `json:"criticalPriorityClasses"`
	Says                    string   `json:"says"`
	Raise                   string   `json:"raise"`
	Source                  string   `json:"source"`
}

// Data returns the facts, read once; facts that do not read are a bug
// every test reports.
var Data = sync.OnceValue(func() Facts {
	f, err := readFacts(factsYAML)
	if err != nil {
		panic(fmt.Sprintf("nodedeadlines.yaml: %v", err))
	}
	return f
})

// Provider returns the named provider.
func (f Facts) Provider(name string) (Provider, bool) {
	for _, p := range f.Providers {
		if p.Name == name {
			return p, true
		}
	}
	return Provider{}, false
}

// ProviderNames are the providers' names, in the data's order.
func (f Facts) ProviderNames() []string {
	out := make([]string, len(f.Providers))
	for i, p := range f.Providers {
		out[i] = p.Name
	}
	return out
}

// readFacts reads the facts strictly: an unknown field or a fact whose
// source is not a key of sources followed by where it was read is an error.
func readFacts(data []byte) (Facts, error) {
	var f Facts
	if err := factdata.Strict(data, &f); err != nil {
		return Facts{}, err
	}
	for field, source := range f.sourced() {
		for _, part := range strings.Split(source, "; ") {
			key, _, _ := strings.Cut(part, " ")
			if _, ok := f.Sources[key]; !ok || !strings.Contains(part, " ") {
				return Facts{}, fmt.Errorf("%s.source: %q does not start with a key of sources and where it was read", field, part)
			}
		}
	}
	return f, nil
}

// sourced are the source of every fact, by the fact's field.
func (f Facts) sourced() map[string]string {
	out := map[string]string{
		"nodePool": f.NodePool.Source, "autoscaler": f.Autoscaler.Source,
		"nodeShutdown": f.NodeShutdown.Source, "sidecarTail": f.SidecarTail.Source,
	}
	for i, p := range f.Providers {
		at := fmt.Sprintf("providers[%d].", i)
		out[at+"deadline"], out[at+"nodeLabels"] = p.Deadline.Source, p.NodeLabels.Source
		if p.Critical != nil {
			out[at+"critical"] = p.Critical.Source
		}
		if p.Taints != nil {
			out[at+"taints"] = p.Taints.Source
		}
	}
	return out
}
