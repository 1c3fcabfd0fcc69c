package report

import (
	"fmt"
	"strings"

	"github.com/kptdev/krm-functions-sdk/go/fn"
)

// Kind is what a finding is about: a stable id from a small closed set,
// which a results writer may use as a rule id (SARIF's ruleId).
// docs/results.md lists them.
type Kind string

// The kinds of finding.
const (
	// KindEdit is a change the function made, or with action validate
	// would make.
	KindEdit Kind = "edit"
	// KindRecognition is a sidecar of the catalog recognised in a
	// workload, or what its recognition means for the edit.
	KindRecognition Kind = "recognition"
	// KindFieldValue is a field the function reads or writes that holds a
	// value of the wrong type or out of range, an annotation of the
	// function's included.
	KindFieldValue Kind = "field-value"
	// KindInput is an item that cannot be read as it is: a duplicate key,
	// aliases that expand past the bounds, a List that cannot be edited.
	KindInput Kind = "input"
	// KindPlacement is a sidecar that is not where the function can order
	// it: absent with ifAbsent: fail, an init container in ordered mode, a
	// pod left as it is.
	KindPlacement Kind = "placement"
	// KindHook is a lifecycle hook the function cannot write or keep as
	// asked: one it did not write, a preStop the image cannot run, a sleep
	// longer than the grace period.
	KindHook Kind = "hook"
	// KindReadiness is a sidecar whose readiness the function cannot wait
	// for as asked: its health endpoints, probes and wait commands.
	KindReadiness Kind = "readiness"
	// KindGracePeriod is a grace period that does not cover the sidecars'
	// exit, or that kubelet cannot count.
	KindGracePeriod Kind = "grace-period"
	// KindBudget is a break of the termination budget: a container or a
	// load balancer that outlives what the pod's shutdown allows.
	KindBudget Kind = "termination-budget"
	// KindNodeDeadline is a node deadline (a spot notice, a NodePool's
	// terminationGracePeriod, the autoscaler's cap, graceful node
	// shutdown) that ends a pod's shutdown before it is done.
	KindNodeDeadline Kind = "node-deadline"
	// KindMeshAnnotation is a mesh annotation that works against the
	// function's mode, or that it cannot read.
	KindMeshAnnotation Kind = "mesh-annotation"
	// KindConfig is a field of the functionConfig that is not valid.
	KindConfig Kind = "config"
	// KindKubelet is a field that a kubelet of the input's Nodes does not
	// serve, or what the run read of the Nodes' kubelets.
	KindKubelet Kind = "kubelet-version"
	// KindController is an object of the input that another object
	// controls, checked through its controller rather than on its own.
	KindController Kind = "controller"
	// KindSummary is the run's closing count of what it did.
	KindSummary Kind = "summary"
)

// Kinds are every kind of finding, in the order docs/results.md lists
// them.
func Kinds() []Kind {
	return []Kind{KindEdit, KindRecognition, KindFieldValue, KindInput, KindPlacement, KindHook,
		KindReadiness, KindGracePeriod, KindBudget, KindNodeDeadline, KindMeshAnnotation, KindConfig, KindKubelet, KindController, KindSummary}
}

// Base is what a Field's path starts from.
type Base int

// The bases of a field path.
const (
	// InItem is a path from the item's root.
	InItem Base = iota
	// InPodSpec is a path from the workload's pod spec.
	InPodSpec
	// InPodMeta is a path from the metadata of the workload's pod
	// template (the pod's own for a Pod).
	InPodMeta
)

// Field is the field a finding is about: its path in kpt's form
// (spec.template.spec.containers[name=linkerd-proxy].lifecycle.preStop;
// a list entry by index, containers[1], where the input is named by its
// place), from Base, and the value it holds and the one the function
// writes, where they are known.
type Field struct {
	// Path is the field's path from Base.
	Path string
	// Base is what Path starts from.
	Base Base
	// Current is the value the field holds, or nil.
	Current any
	// Proposed is the value the function writes, or nil.
	Proposed any
}

// At is the field at a path from the item's root.
func At(path string) Field { return Field{Path: path} }

// Pod is the field at a path from the pod spec; an empty path is the pod
// spec.
func Pod(path string) Field { return Field{Path: path, Base: InPodSpec} }

// Container is a field of the container named name in the pod spec's list
// (containers or initContainers); with no sub-path, the container.
func Container(list, name string, sub ...string) Field {
	return Pod(join(append([]string{list + "[name=" + name + "]"}, sub...)...))
}

// Annotation is an annotation of the pod template's metadata.
func Annotation(key string) Field {
	return Field{Path: "annotations[" + key + "]", Base: InPodMeta}
}

// Values returns the field with the value it holds and the one the
// function writes; nil for either that is not known.
func (f Field) Values(current, proposed any) Field {
	f.Current, f.Proposed = current, proposed
	return f
}

// join joins path pieces with ".", skipping empty ones.
func join(pieces ...string) string {
	var out []string
	for _, p := range pieces {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, ".")
}

// Finding is one thing found in an item: what it is about (Kind), where
// (Field), how grave (Severity) and the one-line message (Detail). It
// keeps its type until the results are built (see Results).
type Finding struct {
	// Kind is what the finding is about.
	Kind Kind
	// Severity is the result's severity with action mutate.
	Severity fn.Severity
	// Field is the field the finding is about.
	Field Field
	// Detail is the message, one safe line (see Clean).
	Detail string
}

// String is the finding's message.
func (f Finding) String() string { return f.Detail }

// NewFinding is a finding with its message formatted and made one safe
// line.
func NewFinding(kind Kind, sev fn.Severity, at Field, format string, args ...any) Finding {
	return Finding{Kind: kind, Severity: sev, Field: at, Detail: Clean(fmt.Sprintf(format, args...))}
}

// Findings are the findings of one kind of a log, in order.
type Findings []Finding

// Strings are the findings' messages.
func (fs Findings) Strings() []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Detail
	}
	return out
}

// Finder is an error that knows the finding it is: its kind and field.
type Finder interface {
	error
	Finding() Finding
}

// KindTag is the tag of a result that holds its finding's kind, for the
// report writers (see KindOf). The ResourceList's results are written
// without it (see Untagged): they stay as they were.
const KindTag = "kind"

// WorkloadsTag is the tag of a warning said once of several workloads:
// how many. A report lists the warning once for each of them instead
// (engine.Engine.SharedEach). The ResourceList's results are written
// without it.
const WorkloadsTag = "workloads"

// KindOf is the kind of finding a result is, from its KindTag (every
// result is built from a finding: see Result).
func KindOf(r *fn.Result) Kind { return Kind(r.Tags[KindTag]) }

// Untagged is the results without their KindTag and WorkloadsTag, as a
// ResourceList carries them: the results that have one are copied, the
// others shared.
func Untagged(results fn.Results) fn.Results {
	out := make(fn.Results, len(results))
	for i, r := range results {
		out[i] = r
		if _, ok := r.Tags[KindTag]; !ok {
			continue
		}
		c := *r
		c.Tags = nil
		for k, v := range r.Tags {
			if k != KindTag && k != WorkloadsTag {
				if c.Tags == nil {
					c.Tags = map[string]string{}
				}
				c.Tags[k] = v
			}
		}
		out[i] = &c
	}
	return out
}
