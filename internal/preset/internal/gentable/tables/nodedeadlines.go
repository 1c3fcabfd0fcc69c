package tables

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/deadline"
)

// The lines between which docs/configuration.md holds its generated table
// of the node deadlines.
const (
	DeadlinesBegin = "<!-- BEGIN node deadlines table (generated) -->"
	DeadlinesEnd   = "<!-- END node deadlines table -->"
)

// NodeDeadlines renders internal/deadline/nodedeadlines.yaml: one row a
// provider, then the NodePool, the cluster-autoscaler, graceful node
// shutdown and the sidecar tail, each with its source.
func NodeDeadlines(f deadline.Facts) (string, error) {
	var b strings.Builder
	b.WriteString("| deadline | nodes | seconds | what it is | source |\n")
	b.WriteString("| --- | --- | --- | --- | --- |\n")
	row := func(cells ...string) {
		for i := range cells {
			cells[i] = cell(cells[i])
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	for _, p := range f.Providers {
		var labels []string
		for _, k := range slices.Sorted(maps.Keys(p.NodeLabels.Labels)) {
			labels = append(labels, code(k+"="+p.NodeLabels.Labels[k]))
		}
		if p.Taints != nil {
			for _, t := range p.Taints.Taints {
				labels = append(labels, "taint "+code(t.Key+"="+t.Value+":"+t.Effect))
			}
		}
		source, err := citeDeadline(f, p.Deadline.Source)
		if err != nil {
			return "", fmt.Errorf("provider %s: %v", p.Name, err)
		}
		seconds := fmt.Sprint(p.Deadline.Seconds)
		if p.Critical != nil {
			seconds += fmt.Sprintf(" (critical pods %d)", p.Critical.Seconds)
		}
		row(code("provider: "+p.Name)+" ("+p.Title+")", strings.Join(labels, ", "), seconds, p.Deadline.Says, source)
	}
	for _, r := range []struct{ name, nodes, seconds, says, source string }{
		{f.NodePool.Title + " (" + code(f.NodePool.Group+"/"+f.NodePool.Kind) + ")", "its template's labels, requirements and taints, " + code(f.NodePool.NodeLabel), code(strings.ReplaceAll(f.NodePool.TerminationGracePeriod, "/", ".")), f.NodePool.Says, f.NodePool.Source},
		{f.Autoscaler.Title, "every node it scales down", code("--"+f.Autoscaler.Flag) + fmt.Sprintf(", default %d", f.Autoscaler.Default), f.Autoscaler.Says, f.Autoscaler.Source},
		{"graceful node shutdown", "every node", code("spec.nodes.shutdown"), f.NodeShutdown.Says, f.NodeShutdown.Source},
		{"sidecar tail (KEP-753)", "every node", fmt.Sprint(f.SidecarTail.Seconds), f.SidecarTail.Says, f.SidecarTail.Source},
	} {
		source, err := citeDeadline(f, r.source)
		if err != nil {
			return "", fmt.Errorf("%s: %v", r.name, err)
		}
		row(r.name, r.nodes, r.seconds, r.says, source)
	}
	return b.String(), nil
}

// citeDeadline renders a node deadline fact's source: each "<key> <where>"
// as the repository at its version, or the page, and where.
func citeDeadline(f deadline.Facts, source string) (string, error) {
	var cites []string
	for _, part := range strings.Split(source, "; ") {
		key, where, _ := strings.Cut(part, " ")
		s, ok := f.Sources[key]
		if !ok {
			return "", fmt.Errorf("source %q names no entry of sources", part)
		}
		cites = append(cites, code(s.String()+" "+where))
	}
	return strings.Join(cites, "; "), nil
}
