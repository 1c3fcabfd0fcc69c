package config

import (
	corev1 "k8s.io/api/core/v1"
)

// CatalogEntry is one sidecar of the catalog as its file states it: every
// fact the function knows of the sidecar, each block with the source it was
// read in. The built-in entries are the files in catalog/ (BuiltinCatalog);
// a functionConfig adds its own in spec.catalog.entries, with the same
// fields (docs/catalog.md).
type CatalogEntry struct {
	// Name is the preset's name: lower-case letters, digits and dashes.
	Name string `json:"name"`
	// Title is one line for the catalog table.
	Title string `json:"title,omitempty"`
	// Mesh says the sidecar carries the pod's network traffic (its injector's
	// init containers redirect it): it starts before every other sidecar.
	Mesh bool `json:"mesh,omitempty"`
	// Sources are the places the facts were read, by key.
	Sources map[string]Source `json:"sources,omitempty"`
	// Containers are the container names that recognise the sidecar; the first is its default name.
	Containers []Named `json:"containers,omitempty"`
	// Images are the images that recognise the sidecar, with any tag or digest.
	Images []ImagePattern `json:"images,omitempty"`
	// InitContainers are the vendor's own init containers, which run before the sidecar.
	InitContainers []Named `json:"initContainers,omitempty"`
	// Ready is how the sidecar tells it is ready.
	Ready *Ready `json:"ready,omitempty"`
	// Image is what the sidecar's image holds.
	Image *ImageFacts `json:"image,omitempty"`
	// Exit is how the sidecar stops.
	Exit *Exit `json:"exit,omitempty"`
	// Injector is the admission webhook that adds the sidecar to pods.
	Injector *InjectorFacts `json:"injector,omitempty"`
	// LeaveAlone are the vendor's own words on a pod that its sidecar there
	// runs as the vendor wrote it: any one of them leaves the pod as it is.
	LeaveAlone []Word `json:"leaveAlone,omitempty"`
}

// Source is a repository at the tag or commit a fact was read at.
type Source struct {
	// Repository is owner/name on GitHub.
	Repository string `json:"repository"`
	// Version is a tag, a branch at a commit, or a commit.
	Version string `json:"version"`
}

// Named is a container name and where it was read.
type Named struct {
	// Name is the container name.
	Name string `json:"name"`
	// Source is "<source key> <path>".
	Source string `json:"source,omitempty"`
}

// ImagePattern recognises images: [registry/]repository, any tag or digest.
type ImagePattern struct {
	// Pattern is the image without tag or digest; "*" matches within one
	// path segment, a leading "**/" any registry and path prefix.
	Pattern string `json:"pattern"`
	// Source is "<source key> <path>".
	Source string `json:"source,omitempty"`
}

// Ready is how a sidecar tells it is ready.
type Ready struct {
	// Endpoint is its readiness endpoint.
	Endpoint *Endpoint `json:"endpoint,omitempty"`
	// Wait is a command in its image that blocks until it is ready.
	Wait *Wait `json:"wait,omitempty"`
	// StartupProbe is native mode's probe when the config gives none.
	StartupProbe *ProbeFact `json:"startupProbe,omitempty"`
	// Variants are forms of the sidecar that tell it another way, such as
	// an older major version under another image: the first that
	// recognises a container replaces endpoint, wait and startupProbe for it.
	Variants []Variant `json:"variants,omitempty"`
}

// Variant is a form of a sidecar that tells it is ready another way.
type Variant struct {
	// Name names the form in messages, such as "the v1 proxy".
	Name string `json:"name"`
	// Images are the images that recognise the form, with any tag or digest.
	Images []ImagePattern `json:"images,omitempty"`
	// Programs are the programs that recognise the form: the last path
	// segment of the container's command[0].
	Programs []Named `json:"programs,omitempty"`
	// Endpoint is its readiness endpoint.
	Endpoint *Endpoint `json:"endpoint,omitempty"`
	// Wait is a command in its image that blocks until it is ready; none
	// when the form has no such command.
	Wait *Wait `json:"wait,omitempty"`
	// StartupProbe is native mode's probe when the config gives none.
	StartupProbe *ProbeFact `json:"startupProbe,omitempty"`
}

// Endpoint is a sidecar's HTTP readiness endpoint.
type Endpoint struct {
	// Path is the HTTP path.
	Path string `json:"path"`
	// Paths are the other paths its server answers on: a probe of the
	// container's own on one of them needs the endpoint switched on too.
	Paths []string `json:"paths,omitempty"`
	// Port is the port it is served on by default.
	Port int32 `json:"port,omitempty"`
	// On says it is served without any flag or setting.
	On bool `json:"on,omitempty"`
	// Address is the address it binds by default; empty is every interface.
	Address string `json:"address,omitempty"`
	// Source is "<source key> <path>".
	Source string `json:"source,omitempty"`
	// Switch is how the sidecar reads the endpoint's settings, with which
	// the function switches it on, makes kubelet reach it and reads its
	// port; nil when the function can do none of that.
	Switch *EndpointSwitch `json:"switch,omitempty"`
}

// EndpointSwitch is how a sidecar reads the settings of its readiness endpoint:
// each a flag, and an environment variable that sets the same when the
// flag is not given.
type EndpointSwitch struct {
	// Flags is how the sidecar parses its arguments: pflag (--name=value
	// or --name value, a boolean flag alone, up to "--") or goflag (Go's
	// flag package: -name or --name, up to the first argument that is not
	// a flag).
	Flags string `json:"flags"`
	// BoolFlags are the sidecar's flags that take no separate value, for
	// goflag, which cannot tell otherwise whether the next argument is a
	// flag's value or ends the flags.
	BoolFlags []string `json:"boolFlags,omitempty"`
	// Env is how the sidecar reads settings from its environment; nil when it does not.
	Env *EnvFacts `json:"env,omitempty"`
	// On is the boolean setting that switches the endpoint on.
	On Setting `json:"on"`
	// Address is the setting of the address the endpoint binds; nil when
	// it always binds the endpoint's address.
	Address *Setting `json:"address,omitempty"`
	// Reachable is the address the function writes in Address so that
	// kubelet's probes, sent to the pod IP, reach the endpoint.
	Reachable string `json:"reachable,omitempty"`
	// Port is the setting of the endpoint's port; nil when it is always the
	// endpoint's port.
	Port *Setting `json:"port,omitempty"`
	// ConfigFile is the flag that names a file of settings, which the
	// function cannot read.
	ConfigFile string `json:"configFile,omitempty"`
	// As names whom the function follows when it switches the endpoint on
	// this way, for its messages.
	As string `json:"as,omitempty"`
	// Source is "<source key> <path>", for flags, boolFlags, reachable,
	// configFile and as.
	Source string `json:"source,omitempty"`
}

// EnvFacts is how a sidecar reads settings from its environment.
type EnvFacts struct {
	// Prefix starts the name of every variable the sidecar reads: a
	// container that sets one is configured through its environment, and
	// the function writes its settings there too.
	Prefix string `json:"prefix"`
	// Since is the sidecar's oldest version that reads them.
	Since string `json:"since,omitempty"`
	// Source is "<source key> <path>".
	Source string `json:"source,omitempty"`
}

// Setting is one setting of a sidecar: a flag, and the environment
// variable that sets the same when the flag is not given.
type Setting struct {
	// Flag is the flag's name, without dashes.
	Flag string `json:"flag"`
	// Env is the variable's name; empty when none sets it.
	Env string `json:"env,omitempty"`
	// Since is the sidecar's oldest version that reads the flag.
	Since string `json:"since,omitempty"`
	// Source is "<source key> <path>".
	Source string `json:"source,omitempty"`
}

// Wait is a command in a sidecar's image that blocks until the sidecar is
// ready, and how it is told where the readiness endpoint is.
type Wait struct {
	// Command is the argv.
	Command []string `json:"command"`
	// PortFlag is the command's flag for the port it polls: the function
	// sets it to the port the endpoint is served on, and adds it when the
	// command lacks it. Empty when the command polls the endpoint's
	// default port always.
	PortFlag string `json:"portFlag,omitempty"`
	// AddressFlag is the command's flag for the address it polls, which
	// is localhost unless given: the function adds it when the endpoint
	// binds an address localhost does not reach.
	AddressFlag string `json:"addressFlag,omitempty"`
	// Since is the sidecar's oldest version whose image has the command.
	Since string `json:"since,omitempty"`
	// Source is "<source key> <path>".
	Source string `json:"source,omitempty"`
}

// ProbeFact is a probe and where it was read.
type ProbeFact struct {
	// Probe is the probe.
	Probe *corev1.Probe `json:"probe"`
	// Source is "<source key> <path>".
	Source string `json:"source,omitempty"`
}

// ImageFacts is what a sidecar's image holds.
type ImageFacts struct {
	// Shell says a shell (sh) is in the image.
	Shell bool `json:"shell,omitempty"`
	// Sleep is a sleep binary in the image; empty when it has none.
	Sleep []string `json:"sleep,omitempty"`
	// ShellTags are parts of the tags of the repository's images that have
	// a shell although its default image has none (an -alpine variant).
	ShellTags []string `json:"shellTags,omitempty"`
	// NoShellTags, when given, are the parts of the only tags whose images
	// have no shell (Envoy's distroless- tags beside its Ubuntu ones).
	NoShellTags []string `json:"noShellTags,omitempty"`
	// Source is "<source key> <path>".
	Source string `json:"source,omitempty"`
}

// Exit is how a sidecar stops.
type Exit struct {
	// SIGTERM says in one line what the sidecar does on SIGTERM.
	SIGTERM string `json:"sigterm,omitempty"`
	// Delays are the sidecar's own exit settings, which the termination budget reads.
	Delays []Delay `json:"delays,omitempty"`
	// NoSleep says what the sidecar offers instead of a preStop sleep when its image has none.
	NoSleep string `json:"noSleep,omitempty"`
	// NativePreStop is the preStop its injector writes on its native sidecar.
	NativePreStop *NativePreStopFact `json:"nativePreStop,omitempty"`
	// Source is "<source key> <path>", for sigterm and noSleep.
	Source string `json:"source,omitempty"`
}

// Delay is one exit setting of a sidecar: how long it keeps running after
// the pod starts shutting down.
type Delay struct {
	// Annotation is the pod template annotation that holds the setting.
	Annotation string `json:"annotation,omitempty"`
	// Env is the container environment variable that holds the setting.
	Env string `json:"env,omitempty"`
	// Field is the key in the annotation's value, when that is a YAML or
	// JSON mapping; keys of nested mappings are joined with dots
	// (proxyMetadata.EXIT_ON_ZERO_ACTIVE_CONNECTIONS).
	Field string `json:"field,omitempty"`
	// Default is the value when the setting is absent, a duration.
	Default string `json:"default,omitempty"`
	// Format is duration ("30s"), seconds ("30"), or boolean: a switch
	// that, when true, keeps the sidecar after SIGTERM until its open
	// connections have closed, for at least Minimum; when false or absent,
	// the next setting decides.
	Format string `json:"format,omitempty"`
	// Minimum is the shortest time the sidecar stays under a boolean
	// setting, a duration.
	Minimum string `json:"minimum,omitempty"`
	// Source is "<source key> <path>".
	Source string `json:"source,omitempty"`
}

// UntilIdle reports whether the setting is a boolean switch that keeps the
// sidecar until its open connections have closed.
func (d Delay) UntilIdle() bool { return d.Format == formatBoolean }

// NativePreStopFact is the preStop a sidecar's injector writes on its native sidecar.
type NativePreStopFact struct {
	// Command is the preStop exec.
	Command []string `json:"command"`
	// ArgAnnotation is the argument of Command that a pod annotation sets.
	ArgAnnotation *AnnotatedArg `json:"argAnnotation,omitempty"`
	// Source is "<source key> <path>".
	Source string `json:"source,omitempty"`
}

// InjectorFacts is the admission webhook that adds a sidecar to pods.
type InjectorFacts struct {
	// Enabled are the switches of which any one makes the injector add the sidecar.
	Enabled []SwitchFact `json:"enabled,omitempty"`
	// Disabled are the switches with which the injector leaves the pod alone.
	Disabled []SwitchFact `json:"disabled,omitempty"`
	// OptOuts are the workload's switches that turn the sidecar's ordering off.
	OptOuts []SwitchFact `json:"optOuts,omitempty"`
	// Native is the injector's per-workload native sidecar switch.
	Native *NativeFact `json:"native,omitempty"`
	// Annotate is the dialect of the annotations the function writes for the injector.
	Annotate Dialect `json:"annotate,omitempty"`
	// Annotations are the annotations the function writes for the injector.
	Annotations *Annotations `json:"annotations,omitempty"`
	// Record is the annotation in which the injector lists the containers
	// it added, which it reads when it injects the pod again; the function
	// keeps it true to a proxy that became a native sidecar.
	Record *RecordFact `json:"record,omitempty"`
	// Ordering says what the injector itself offers to start the sidecar first and stop it last.
	Ordering string `json:"ordering,omitempty"`
	// Webhooks are the webhooks of the injector's configuration as its
	// chart renders them by default (see WebhookFact).
	Webhooks []WebhookFact `json:"webhooks,omitempty"`
	// Refuses are the pods its code leaves alone whatever the switches say.
	Refuses []RefusalFact `json:"refuses,omitempty"`
	// Source is "<source key> <path>", for ordering.
	Source string `json:"source,omitempty"`
}

// SwitchFact is one injector switch: an annotation or a label with a value.
type SwitchFact struct {
	// Annotation is the annotation's key.
	Annotation string `json:"annotation,omitempty"`
	// Label is the label's key.
	Label string `json:"label,omitempty"`
	// Field is the key in the annotation's value, when that is a YAML or JSON mapping.
	Field string `json:"field,omitempty"`
	// Value is the value that sets the switch; "*" is any value.
	Value string `json:"value"`
	// Namespace says the injector reads the switch on the pod's Namespace too.
	Namespace bool `json:"namespace,omitempty"`
	// UnlessLabel is a pod template label that, with any value, wins over
	// the switch: the switch counts only where the label is absent (Istio
	// reads its inject label before its inject annotation).
	UnlessLabel string `json:"unlessLabel,omitempty"`
	// Source is "<source key> <path>".
	Source string `json:"source,omitempty"`
}

// NativeFact is an injector's per-workload native sidecar switch.
type NativeFact struct {
	// Keys are its annotations, in the order the injector reads them.
	Keys []string `json:"keys,omitempty"`
	// Boolean says the injector parses the value as a boolean.
	Boolean bool `json:"boolean,omitempty"`
	// Default is where the injector writes native sidecars by default.
	Default *Since `json:"default,omitempty"`
	// NoStartupProbe says the native sidecar the injector writes has no startupProbe: kubelet starts the application without waiting for it to be ready.
	NoStartupProbe bool `json:"noStartupProbe,omitempty"`
	// Source is "<source key> <path>".
	Source string `json:"source,omitempty"`
}

// Since names the versions from which a behaviour holds.
type Since struct {
	// Kubernetes is the oldest Kubernetes version, such as "1.29".
	Kubernetes string `json:"kubernetes,omitempty"`
	// Version is the vendor's oldest version.
	Version string `json:"version,omitempty"`
}

// Annotations are the pod template annotations with which the function asks
// an injector of the generic dialect to order its sidecar.
type Annotations struct {
	// Ordered hold the application until the sidecar is ready.
	Ordered []FieldValue `json:"ordered,omitempty"`
	// ExitDelay holds the sidecar's exit delay.
	ExitDelay *KeyFormat `json:"exitDelay,omitempty"`
	// Native makes the injector add a native sidecar.
	Native *KeyValue `json:"native,omitempty"`
	// Source is "<source key> <path>".
	Source string `json:"source,omitempty"`
}

// KeyValue is an annotation with its value.
type KeyValue struct {
	// Key is the annotation's key.
	Key string `json:"key"`
	// Value is its value.
	Value string `json:"value"`
}

// FieldValue is an annotation with its value, or with the value of one key
// of its value when that is a YAML or JSON mapping.
type FieldValue struct {
	// Key is the annotation's key.
	Key string `json:"key"`
	// Field is the key in the annotation's value, a YAML or JSON mapping:
	// the istio dialect's alone, which keeps every other key.
	Field string `json:"field,omitempty"`
	// Value is its value.
	Value string `json:"value"`
}

// KeyFormat is an annotation that holds a duration.
type KeyFormat struct {
	// Key is the annotation's key.
	Key string `json:"key"`
	// Field is the key in the annotation's value, a YAML or JSON mapping:
	// the istio dialect's alone, which keeps every other key.
	Field string `json:"field,omitempty"`
	// Format is duration ("30s") or seconds ("30").
	Format string `json:"format,omitempty"`
}

// RecordFact is the annotation in which an injector lists the containers it added.
type RecordFact struct {
	// Annotation is the annotation's key.
	Annotation string `json:"annotation"`
	// Source is "<source key> <path>".
	Source string `json:"source,omitempty"`
}

// Word is a vendor's own word on a pod that its sidecar there runs as the
// vendor wrote it and must not be ordered by the function: a label or an
// annotation of the pod template, or an environment variable of one of the
// pod's containers, with a value.
type Word struct {
	// Annotation is the annotation's key.
	Annotation string `json:"annotation,omitempty"`
	// Label is the pod template label's key.
	Label string `json:"label,omitempty"`
	// Env is the name of an environment variable of any container of the pod.
	Env string `json:"env,omitempty"`
	// Value is the value that says the word; "*" is any value.
	Value string `json:"value"`
	// Unless are values that do not say it, though Value matches them: a
	// comma-separated value holding any one of them does not (Istio's
	// injection templates: "sidecar,spire" still injects the sidecar).
	Unless []string `json:"unless,omitempty"`
	// Says is what the word means, for the message that names it.
	Says string `json:"says"`
	// Source is "<source key> <path>".
	Source string `json:"source,omitempty"`
}

// WebhookFact is one webhook of an injector's MutatingWebhookConfiguration
// as the vendor's chart renders it with default values: the injector sees
// a pod only when its Namespace matches NamespaceSelector and its labels
// match ObjectSelector (Kubernetes label selectors; a nil one matches all).
// Any one of an injector's webhooks reaching the pod is enough.
type WebhookFact struct {
	// Name is the webhook's name in the configuration.
	Name string `json:"name"`
	// NamespaceSelector selects by the Namespace's labels.
	NamespaceSelector *SelectorFact `json:"namespaceSelector,omitempty"`
	// ObjectSelector selects by the pod's labels.
	ObjectSelector *SelectorFact `json:"objectSelector,omitempty"`
	// Values names the chart values that change the selectors.
	Values string `json:"values,omitempty"`
	// Source is "<source key> <path>".
	Source string `json:"source,omitempty"`
}

// SelectorFact is a Kubernetes label selector.
type SelectorFact struct {
	// MatchLabels are labels that must have the given values.
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
	// MatchExpressions are requirements, all of which must hold.
	MatchExpressions []ExpressionFact `json:"matchExpressions,omitempty"`
}

// ExpressionFact is one requirement of a label selector.
type ExpressionFact struct {
	// Key is the label's key.
	Key string `json:"key"`
	// Operator is In, NotIn, Exists or DoesNotExist.
	Operator string `json:"operator"`
	// Values are the values In and NotIn compare with.
	Values []string `json:"values,omitempty"`
}

// RefusalFact is a pod an injector's code leaves alone whatever its
// switches and webhooks say.
//
// The refusal holds when any one of its fields does.
type RefusalFact struct {
	// HostNetwork: the pod uses the node's network.
	HostNetwork bool `json:"hostNetwork,omitempty"`
	// Namespaces: the pod is in one of these Namespaces.
	Namespaces []string `json:"namespaces,omitempty"`
	// Containers: the pod has a container or init container of one of
	// these names (a proxy already there).
	Containers []string `json:"containers,omitempty"`
	// Images: the pod has a container or init container whose image starts
	// with one of these.
	Images []string `json:"images,omitempty"`
	// InitContainers and InitImages are Containers and Images read on the
	// init containers alone.
	InitContainers []string `json:"initContainers,omitempty"`
	InitImages     []string `json:"initImages,omitempty"`
	// Labels: the pod template has one of these labels with the value
	// given, "*" for any value.
	Labels map[string]string `json:"labels,omitempty"`
	// Annotations: the pod has one of these annotations with the value
	// given, "*" for any value but empty.
	Annotations map[string]string `json:"annotations,omitempty"`
	// Invalid: the pod, or its Namespace, has the annotation with a value
	// the injector does not accept.
	Invalid *InvalidFact `json:"invalid,omitempty"`
	// Says is why, for messages.
	Says string `json:"says"`
	// Source is "<source key> <path>".
	Source string `json:"source,omitempty"`
}

// InvalidFact is an annotation whose value an injector checks, refusing
// the pod when it is none of the values it accepts.
type InvalidFact struct {
	// Annotation is the annotation's key.
	Annotation string `json:"annotation"`
	// Values are the values the injector accepts.
	Values []string `json:"values"`
	// Namespace says the injector reads the annotation on the pod's Namespace too.
	Namespace bool `json:"namespace,omitempty"`
}
