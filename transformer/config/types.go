// Package config holds the SidecarLifecycle functionConfig: its types, the
// ConfigMap and empty forms, defaulting and validation. Load is the one place a
// config is read. It also holds the catalog's entry format (CatalogEntry),
// which spec.catalog.entries shares, and the built-in catalog
// (BuiltinCatalog). It imports no package of the function's engine.
package config

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"slices"
	"strings"
)

// Names of the functionConfig kind and its annotation prefix.
const (
	// APIVersion is the functionConfig's apiVersion.
	APIVersion = "fn.sidecar-lifecycle.dev/v1alpha1"
	// Kind is the functionConfig's kind.
	Kind = "SidecarLifecycle"
	// AnnotationPrefix starts every annotation the function reads or writes.
	AnnotationPrefix = "sidecar-lifecycle.dev/"
	// DefaultKubernetesVersion is the oldest cluster assumed when none is given.
	DefaultKubernetesVersion = "1.30"
	// KubernetesVersionAuto follows the oldest kubelet among the input's
	// Nodes, and DefaultKubernetesVersion when the input has none.
	KubernetesVersionAuto = "auto"
)

// Per-workload annotations the function reads and writes.
const (
	// AnnotationSkip set to "true" leaves the workload (or a Namespace's workloads) alone.
	AnnotationSkip = AnnotationPrefix + "skip"
	// AnnotationMode overrides spec.mode for the workload.
	AnnotationMode = AnnotationPrefix + "mode"
	// AnnotationWaitBeforeExit overrides every sidecar's waitBeforeExit for the workload.
	AnnotationWaitBeforeExit = AnnotationPrefix + "wait-before-exit"
	// AnnotationAppDrainDelay overrides spec.app.drainDelay for the workload.
	AnnotationAppDrainDelay = AnnotationPrefix + "app-drain-delay"
	// AnnotationConfigHash is stamped on pod templates with rolloutOnChange.
	AnnotationConfigHash = AnnotationPrefix + "config-hash"
)

// Mode says how sidecars are made to start first and stop last.
type Mode string

// Modes.
const (
	// ModeOrdered moves sidecars first in spec.containers with hooks.
	ModeOrdered Mode = "ordered"
	// ModeNative converts sidecars to init containers with restartPolicy Always.
	ModeNative Mode = "native"
	// ModeAuto is native from Kubernetes 1.29, ordered below.
	ModeAuto Mode = "auto"
)

// Action says whether the function edits workloads or only checks them.
type Action string

// Actions.
const (
	// ActionMutate edits the workloads.
	ActionMutate Action = "mutate"
	// ActionValidate changes nothing and reports what would change as errors.
	ActionValidate Action = "validate"
)

// IfAbsent says what to do when a sidecar's container is not in the pod.
type IfAbsent string

// IfAbsent policies.
const (
	// IfAbsentAnnotate sets the mesh's own annotations on the pod template.
	IfAbsentAnnotate IfAbsent = "annotate"
	// IfAbsentSkip leaves the workload alone.
	IfAbsentSkip IfAbsent = "skip"
	// IfAbsentFail reports an error.
	IfAbsentFail IfAbsent = "fail"
)

// GracePolicy says what to do when terminationGracePeriodSeconds is too short.
type GracePolicy string

// Grace period policies.
const (
	// GraceRaise raises the grace period and reports it.
	GraceRaise GracePolicy = "raise"
	// GraceWarn leaves the grace period with a warning.
	GraceWarn GracePolicy = "warn"
	// GraceKeep leaves the grace period silently.
	GraceKeep GracePolicy = "keep"
)

// ExistingHooks says what to do with a sidecar hook the function did not write.
type ExistingHooks string

// Existing hook policies.
const (
	// HooksKeep keeps the hook and warns.
	HooksKeep ExistingHooks = "keep"
	// HooksReplace replaces the hook.
	HooksReplace ExistingHooks = "replace"
	// HooksFail reports an error.
	HooksFail ExistingHooks = "fail"
)

// HealthCheck says what to do when a sidecar's health endpoints, which its
// wait command and startup probe need, are off or out of kubelet's reach.
type HealthCheck string

// Health check policies.
const (
	// HealthCheckEnable switches them on and makes them reachable by kubelet, with the settings the sidecar's catalog entry names.
	HealthCheckEnable HealthCheck = "enable"
	// HealthCheckRequire reports an error that says what to add.
	HealthCheckRequire HealthCheck = "require"
)

// SidecarLifecycle is the functionConfig.
type SidecarLifecycle struct {
	// APIVersion is fn.sidecar-lifecycle.dev/v1alpha1.
	APIVersion string `json:"apiVersion,omitempty"`
	// Kind is SidecarLifecycle.
	Kind string `json:"kind,omitempty"`
	// Metadata is the config's object metadata.
	Metadata metav1.ObjectMeta `json:"metadata,omitempty"`
	// Spec is what the function does.
	Spec Spec `json:"spec,omitempty"`

	fromConfigMap bool
}

// Spec is the body of the functionConfig.
type Spec struct {
	// KubernetesVersion is the oldest kubelet the output must run on (default "1.30"); auto follows the input's Nodes.
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	// Mode says how the sidecars are made to start first and stop last.
	Mode Mode `json:"mode,omitempty"`
	// Action says whether the workloads are edited or only checked.
	Action Action `json:"action,omitempty"`
	// Targets selects the workloads; default every pod-bearing workload.
	Targets Targets `json:"targets,omitempty"`
	// Sidecars lists the sidecars in start order: the first starts first and stops last.
	Sidecars []Sidecar `json:"sidecars,omitempty"`
	// App holds settings for the application containers.
	App App `json:"app,omitempty"`
	// TerminationGracePeriod keeps terminationGracePeriodSeconds consistent.
	TerminationGracePeriod TerminationGracePeriod `json:"terminationGracePeriod,omitempty"`
	// ExistingHooks says what to do with a sidecar hook the function did not write.
	ExistingHooks ExistingHooks `json:"existingHooks,omitempty"`
	// RolloutOnChange stamps sidecar-lifecycle.dev/config-hash on pod templates.
	RolloutOnChange bool `json:"rolloutOnChange,omitempty"`
	// PodSpecPaths adds workload kinds (CRDs) and where their pod spec is.
	PodSpecPaths []PodSpecPath `json:"podSpecPaths,omitempty"`
	// Catalog says how the sidecars of the catalog are recognised, and adds entries of the config's own.
	Catalog Catalog `json:"catalog,omitempty"`
	// Nodes declares the nodes the workloads may run on and how long each gives a pod when it goes away, for inputs without Nodes.
	Nodes Nodes `json:"nodes,omitempty"`

	version Version
}

// Version is the parsed KubernetesVersion, valid after Validate; for auto,
// the version the config was last set to (see AtVersion), at first
// DefaultKubernetesVersion.
func (s Spec) Version() Version { return s.version }

// VersionAuto reports whether KubernetesVersion is auto: the version to
// follow is the oldest kubelet among the input's Nodes.
func (s Spec) VersionAuto() bool { return s.KubernetesVersion == KubernetesVersionAuto }

// Targets selects workloads: any include entry matches, and exclude wins.
type Targets struct {
	// Include lists selectors of which any may match; empty means every workload.
	Include []Selector `json:"include,omitempty"`
	// Exclude lists selectors that take a workload out again.
	Exclude []Selector `json:"exclude,omitempty"`
}

// Selector matches a workload when every field it sets matches.
type Selector struct {
	// Group is the API group, exact or glob.
	Group string `json:"group,omitempty"`
	// Version is the API version, exact or glob.
	Version string `json:"version,omitempty"`
	// Kind is the kind, exact or glob.
	Kind string `json:"kind,omitempty"`
	// Name is the name, exact or glob.
	Name string `json:"name,omitempty"`
	// Namespace is the namespace, exact or glob.
	Namespace string `json:"namespace,omitempty"`
	// LabelSelector is a Kubernetes label selector on the workload's labels.
	LabelSelector string `json:"labelSelector,omitempty"`
	// AnnotationSelector is a label-selector expression on the workload's annotations.
	AnnotationSelector string `json:"annotationSelector,omitempty"`
}

// Sidecar is one sidecar container and how it starts and stops.
type Sidecar struct {
	// Name is the container name; defaults to the preset's container.
	Name string `json:"name,omitempty"`
	// Preset names the catalog entry that holds the sidecar's facts.
	Preset string `json:"preset,omitempty"`
	// WaitForReady is the ordered-mode postStart command that blocks until ready.
	WaitForReady *Exec `json:"waitForReady,omitempty"`
	// StartupProbe is what kubelet waits on in native mode.
	StartupProbe *corev1.Probe `json:"startupProbe,omitempty"`
	// WaitBeforeExit is the ordered-mode preStop delay; 0 means none; auto waits for the application's longest preStop.
	WaitBeforeExit DurationOrAuto `json:"waitBeforeExit,omitempty"`
	// SleepCommand is used for the delay when the sleep action is unavailable.
	SleepCommand []string `json:"sleepCommand,omitempty"`
	// IfAbsent says what to do when the container is not in the pod; annotate only for a preset whose injector the function writes annotations for.
	IfAbsent IfAbsent `json:"ifAbsent,omitempty"`
	// HealthCheck says what to do when the sidecar's health endpoints, which its wait command and startup probe need, are off or unreachable by kubelet; only for a preset whose catalog entry says how to switch them on (ready.endpoint.switch).
	HealthCheck HealthCheck `json:"healthCheck,omitempty"`
	// CloudSQLProxy holds healthCheck under its older name, cloudSQLProxy.healthCheck.
	CloudSQLProxy *CloudSQLProxy `json:"cloudSQLProxy,omitempty"`

	// Recognise says the name was not given: in each workload the sidecar
	// is the container its preset recognises, by name or image.
	Recognise bool `json:"-"`
	// FromCatalog says the config lists no sidecars and this is an entry of
	// the catalog: a workload is reported on where it is recognised, and
	// where its injector is switched on it counts as injected.
	FromCatalog bool `json:"-"`
}

// Catalog is how the function recognises the sidecars of its catalog.
type Catalog struct {
	// Recognise, true by default, recognises each entry of the catalog, when no sidecars are listed, by its container names, its images and its injector's switches, and reports each; false applies each entry by its first container name only.
	Recognise *bool `json:"recognise,omitempty"`
	// Entries are sidecars of the config's own, with the fields of the built-in catalog's files; a sidecar names one as its preset, and with no sidecars listed each is recognised like the built-in ones.
	Entries []CatalogEntry `json:"entries,omitempty"`
}

// preset returns the named preset: an entry of the config's own, or of
// the built-in catalog.
func (s *Spec) preset(name string) (CatalogEntry, bool) {
	return resolvePreset(s.Catalog.Entries, name)
}

// switchingPresets lists the presets whose catalog entry says how to
// switch their health endpoints on, sorted: those healthCheck applies to.
func (s *Spec) switchingPresets() []string {
	var names []string
	for _, name := range builtinPresetNames() {
		if p, _ := builtinPreset(name); p.switchesEndpoint() {
			names = append(names, name)
		}
	}
	for _, e := range s.Catalog.Entries {
		if e.switchesEndpoint() {
			names = append(names, e.Name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// presetNames lists every preset name the config can use, sorted.
func (s *Spec) presetNames() string {
	names := builtinPresetNames()
	for _, e := range s.Catalog.Entries {
		names = append(names, e.Name)
	}
	slices.Sort(names)
	return strings.Join(slices.Compact(names), ", ")
}

// Recognising reports whether the catalog's entries are recognised by
// name, image and injector switch.
func (c Catalog) Recognising() bool { return c.Recognise == nil || *c.Recognise }

// CloudSQLProxy holds a sidecar's healthCheck under its older name.
type CloudSQLProxy struct {
	// HealthCheck is the sidecar's healthCheck, under its older name.
	HealthCheck HealthCheck `json:"healthCheck,omitempty"`
}

// Exec is a command run in the container.
type Exec struct {
	// Command is the argv of the command.
	Command []string `json:"command,omitempty"`
}

// App holds settings for the application containers.
type App struct {
	// DrainDelay is a preStop sleep for application containers without a preStop.
	DrainDelay Duration `json:"drainDelay,omitempty"`
}

// TerminationGracePeriod says how terminationGracePeriodSeconds is kept consistent.
type TerminationGracePeriod struct {
	// Policy says what to do when the grace period is shorter than the longest preStop plus the margin.
	Policy GracePolicy `json:"policy,omitempty"`
	// Margin is added to the longest preStop (default 10s).
	Margin Duration `json:"margin,omitempty"`
}

// Nodes declares node classes and the kubelets' graceful node shutdown, which
// bound the termination budget of the pods that may land on them.
type Nodes struct {
	// Classes are the kinds of nodes the workloads may run on; a pod is held to each class its nodeSelector, required node affinity and tolerations let it land on.
	Classes []NodeClass `json:"classes,omitempty"`
	// Shutdown is the kubelets' graceful node shutdown (shutdownGracePeriod and shutdownGracePeriodCriticalPods); off when unset.
	Shutdown NodeShutdown `json:"shutdown,omitempty"`
}

// NodeClass is one kind of node: the labels and taints its nodes carry, and
// the deadline it gives a pod when a node goes away.
type NodeClass struct {
	// Name names the class in findings.
	Name string `json:"name"`
	// Provider names a default of the function's node deadline data (such as aws-spot): its deadline, labels and taints.
	Provider string `json:"provider,omitempty"`
	// Labels are labels its nodes carry; a label the class does not list may be anything.
	Labels map[string]string `json:"labels,omitempty"`
	// Taints are taints its nodes carry.
	Taints []Taint `json:"taints,omitempty"`
	// Deadline is the longest a pod on it is given once its node goes away; it overrides the provider's.
	Deadline Duration `json:"deadline,omitempty"`
}

// Taint is a node taint.
type Taint struct {
	// Key is the taint's key.
	Key string `json:"key"`
	// Value is the taint's value.
	Value string `json:"value,omitempty"`
	// Effect is NoSchedule, PreferNoSchedule or NoExecute.
	Effect string `json:"effect"`
}

// NodeShutdown is the kubelet's graceful node shutdown, as its
// configuration names it.
type NodeShutdown struct {
	// GracePeriod is shutdownGracePeriod: how long the node delays its shutdown.
	GracePeriod Duration `json:"gracePeriod,omitempty"`
	// CriticalPodsGracePeriod is shutdownGracePeriodCriticalPods: the part of gracePeriod kept for critical pods; regular pods get the rest.
	CriticalPodsGracePeriod Duration `json:"criticalPodsGracePeriod,omitempty"`
}

// PodSpecPath names a workload kind and the slash-separated path of its pod spec.
type PodSpecPath struct {
	// Group is the kind's API group.
	Group string `json:"group,omitempty"`
	// Version is the API version; empty matches every version.
	Version string `json:"version,omitempty"`
	// Kind is the workload kind.
	Kind string `json:"kind"`
	// Path is the pod spec's path, such as spec/template/spec.
	Path string `json:"path"`
}
