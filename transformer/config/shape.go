package config

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// A shape describes how one config value is written and which Go value it
// decodes into. The shapes of SidecarLifecycle, configShape, are the one
// description of the config's types: the reader checks a config against
// them and decodes it in the same walk (read.go), and Schema writes them as
// the JSON schema (schema.go). describe builds them from the Go types and
// their JSON tags; the types in specialShapes are written their own way.
type shape struct {
	kind kind
	// bits is the size of a kindInt.
	bits int
	// lo and hi bound a kindInt's value, which Validate checks; they are
	// the range of its bits unless valueShapes narrows them.
	lo, hi int64
	// nonEmpty is set when the reader rejects an empty kindString or
	// kindList: an empty value is then a mistake, not the field left out.
	// Enums and durations are never empty.
	nonEmpty bool
	// pattern is the regular expression a kindString matches, which
	// Validate checks.
	pattern string
	// enum lists the values of a kindEnum.
	enum []string
	// auto is set when a kindDuration may also be "auto" (DurationOrAuto).
	auto bool
	// elem is the shape of a kindList's entries or a kindMap's values.
	elem *shape
	// fields are a kindObject's fields, in the order of the Go struct.
	fields []*field
	// byName finds a kindObject's field by its YAML name.
	byName map[string]*field
}

// kind says how a value is written.
type kind int

// Kinds of values.
const (
	// kindObject is a struct: a mapping of its fields; other keys are unknown.
	kindObject kind = iota
	// kindMap is a map with string keys: a mapping of elem values.
	kindMap
	// kindList is a slice: a list of elem entries.
	kindList
	// kindString is a string; any other scalar must be quoted.
	kindString
	// kindBool is true or false.
	kindBool
	// kindInt is an integer of at most bits bits.
	kindInt
	// kindEnum is a non-empty string that Validate checks is one of enum.
	kindEnum
	// kindDuration is a Duration: a non-empty string or a number, which
	// Validate parses.
	kindDuration
	// kindPort is an intstr.IntOrString: a 32-bit integer or a string.
	kindPort
	// kindTime is a metav1.Time: an RFC 3339 timestamp.
	kindTime
	// kindJSON is a metav1.FieldsV1: a mapping kept as JSON.
	kindJSON
)

// field is one field of a kindObject.
type field struct {
	// name is the field's YAML (JSON) name.
	name string
	// index is the Go field's index sequence, through embedded structs.
	index []int
	// doc is the Go field's doc comment, for the schema.
	doc string
	// required is set when the field must be given: its JSON tag has no
	// omitempty and it is not a pointer, which is absent when nil.
	required bool
	// validated is set when Validate reports the required field's absence,
	// with what to give, rather than the reader.
	validated bool
	// shape is how the field's value is written.
	shape *shape
}

// specialShapes are the types that are not written as their Go kind says:
// the config's enums and durations, and the Kubernetes types that decode
// themselves.
var specialShapes = map[reflect.Type]*shape{
	reflect.TypeFor[Mode]():               enumShape(ModeOrdered, ModeNative, ModeAuto),
	reflect.TypeFor[Action]():             enumShape(ActionMutate, ActionValidate),
	reflect.TypeFor[IfAbsent]():           enumShape(IfAbsentAnnotate, IfAbsentSkip, IfAbsentFail),
	reflect.TypeFor[GracePolicy]():        enumShape(GraceRaise, GraceWarn, GraceKeep),
	reflect.TypeFor[ExistingHooks]():      enumShape(HooksKeep, HooksReplace, HooksFail),
	reflect.TypeFor[HealthCheck]():        enumShape(HealthCheckEnable, HealthCheckRequire),
	reflect.TypeFor[Duration]():           {kind: kindDuration},
	reflect.TypeFor[DurationOrAuto]():     {kind: kindDuration, auto: true},
	reflect.TypeFor[intstr.IntOrString](): {kind: kindPort},
	reflect.TypeFor[metav1.Time]():        {kind: kindTime},
	reflect.TypeFor[metav1.FieldsV1]():    {kind: kindJSON},
}

// validatedPresence lists the required fields, as "Type.Field", whose
// absence Validate reports with what to give: the reader leaves them to
// it, so that such a field is reported once, with the other problems of its
// entry. A field listed here is required even when its JSON tag says
// omitempty (a command).
var validatedPresence = map[string]bool{
	"PodSpecPath.Kind": true, "PodSpecPath.Path": true,
	"HTTPGetAction.Port": true, "TCPSocketAction.Port": true, "GRPCAction.Port": true,
	"Exec.Command": true, "ExecAction.Command": true, "ProbeFact.Probe": true,
}

// versionNumberPattern is a Kubernetes version as kubernetesVersion takes
// it: 1.30, v1.30 or 1.30.2.
const versionNumberPattern = `^v?1\.[0-9]{1,4}(\.[0-9]{1,4})?$`

// versionPattern is what kubernetesVersion takes: a version, or auto.
const versionPattern = `^auto$|` + versionNumberPattern

// presetName is a preset's name: lower-case letters, digits and dashes.
const presetName = `^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`

// delayPattern is an exit setting's default: a duration or a number of seconds.
const delayPattern = `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$|^[0-9]+$`

// imagePattern is an image pattern: an optional **/ prefix, then path
// segments, the last without a tag or digest.
const imagePattern = `^(\*\*/)?([^/*]*(\*[^/*]+)*\*?/)*[^/*:@]*(\*[^/*:@]+)*\*?$`

// portNumber is the shape of a port given as a number.
var portNumber = &shape{kind: kindInt, bits: 32, lo: 1, hi: 65535}

// command is the shape of an argv: at least one argument.
var command = &shape{kind: kindList, nonEmpty: true, elem: &shape{kind: kindString}}

// valueShapes are the shapes, by "Type.Field", of the fields whose values
// Validate restricts further than their Go type does: the schema says what
// Validate accepts, and the reader what it rejects before Validate.
var valueShapes = map[string]*shape{
	"Spec.KubernetesVersion":              {kind: kindString, nonEmpty: true, pattern: versionPattern},
	"Sidecar.Preset":                      {kind: kindString, nonEmpty: true, pattern: presetName},
	"CatalogEntry.Name":                   {kind: kindString, nonEmpty: true, pattern: presetName},
	"EndpointSwitch.Flags":                enumShape(pflagSyntax, goflagSyntax),
	"EnvFacts.Prefix":                     {kind: kindString, nonEmpty: true},
	"Setting.Flag":                        {kind: kindString, nonEmpty: true, pattern: flagNamePattern},
	"Setting.Since":                       {kind: kindString, pattern: sincePattern},
	"EnvFacts.Since":                      {kind: kindString, pattern: sincePattern},
	"Wait.Since":                          {kind: kindString, pattern: sincePattern},
	"Variant.Name":                        {kind: kindString, nonEmpty: true},
	"InjectorFacts.Annotate":              enumShape(dialects...),
	"Delay.Format":                        enumShape(formatDuration, formatSeconds, formatBoolean),
	"Delay.Minimum":                       {kind: kindString, pattern: delayPattern},
	"KeyFormat.Format":                    enumShape(formatDuration, formatSeconds),
	"Delay.Default":                       {kind: kindString, pattern: delayPattern},
	"ImagePattern.Pattern":                {kind: kindString, nonEmpty: true, pattern: imagePattern},
	"Sidecar.SleepCommand":                {kind: kindList, nonEmpty: true, elem: &shape{kind: kindString, nonEmpty: true}},
	"Exec.Command":                        command,
	"ExecAction.Command":                  command,
	"GRPCAction.Port":                     portNumber,
	"Probe.InitialDelaySeconds":           {kind: kindInt, bits: 32, lo: 0, hi: math.MaxInt32},
	"Probe.TimeoutSeconds":                {kind: kindInt, bits: 32, lo: 0, hi: math.MaxInt32},
	"Probe.PeriodSeconds":                 {kind: kindInt, bits: 32, lo: 0, hi: math.MaxInt32},
	"Probe.FailureThreshold":              {kind: kindInt, bits: 32, lo: 0, hi: math.MaxInt32},
	"Probe.SuccessThreshold":              {kind: kindInt, bits: 32, lo: 0, hi: 1},
	"Probe.TerminationGracePeriodSeconds": {kind: kindInt, bits: 64, lo: 1, hi: math.MaxInt64},
}

// configShape describes the SidecarLifecycle functionConfig.
var configShape = describe(reflect.TypeFor[SidecarLifecycle]())

// enumShape is the shape of a string type with the given values.
func enumShape[T ~string](values ...T) *shape {
	s := &shape{kind: kindEnum}
	for _, v := range values {
		s.enum = append(s.enum, string(v))
	}
	return s
}

// structShapes are the shapes of the struct types described so far: a type
// used in two places (a probe) has one shape.
var structShapes = map[reflect.Type]*shape{}

// describe returns the shape of a Go type. It panics on a type the reader
// could not decode, so that a new config field of such a type fails every
// test until it has a shape.
func describe(t reflect.Type) *shape {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s, ok := specialShapes[t]; ok {
		return s
	}
	if s, ok := structShapes[t]; ok {
		return s
	}
	unmarshaler := reflect.TypeFor[json.Unmarshaler]()
	if t.Implements(unmarshaler) || reflect.PointerTo(t).Implements(unmarshaler) {
		panic(fmt.Sprintf("config type %s decodes itself: give it a shape in specialShapes", t))
	}
	switch t.Kind() {
	case reflect.Struct:
		s := &shape{kind: kindObject, byName: map[string]*field{}}
		structShapes[t] = s
		s.addFields(t, nil)
		return s
	case reflect.Slice:
		return &shape{kind: kindList, elem: describe(t.Elem())}
	case reflect.Map:
		if t.Key().Kind() == reflect.String {
			return &shape{kind: kindMap, elem: describe(t.Elem())}
		}
	case reflect.String:
		return &shape{kind: kindString}
	case reflect.Bool:
		return &shape{kind: kindBool}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &shape{kind: kindInt, bits: t.Bits(), lo: math.MinInt64 >> (64 - t.Bits()), hi: math.MaxInt64 >> (64 - t.Bits())}
	}
	panic(fmt.Sprintf("config type %s has no shape", t))
}

// addFields adds a struct's JSON fields to an object shape, with the fields
// of embedded structs (corev1.Probe's ProbeHandler) as its own, as
// encoding/json reads them.
func (s *shape) addFields(t reflect.Type, index []int) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		at := append(slices.Clip(index), i)
		switch {
		case name == "-":
			continue
		case name == "" && f.Anonymous && f.Type.Kind() == reflect.Struct:
			s.addFields(f.Type, at)
			continue
		case !f.IsExported():
			continue
		case name == "":
			name = f.Name
		}
		if _, dup := s.byName[name]; dup {
			panic(fmt.Sprintf("config type %s has two fields named %q", t, name))
		}
		key := t.Name() + "." + f.Name
		fd := &field{
			name:      name,
			index:     at,
			required:  validatedPresence[key] || (!slices.Contains(strings.Split(opts, ","), "omitempty") && f.Type.Kind() != reflect.Pointer),
			validated: validatedPresence[key],
			shape:     valueShapes[key],
		}
		if fd.shape == nil {
			fd.shape = describe(f.Type)
		}
		fd.doc = docOf(t, f, fd.shape)
		s.fields = append(s.fields, fd)
		s.byName[name] = fd
	}
}

// docOf is the doc comment of a field of the config's own types, with
// its values and default when it has a fixed set of them. The catalog
// entry's types have none in the schema: docs/catalog.md describes them.
func docOf(t reflect.Type, f reflect.StructField, s *shape) string {
	if t.PkgPath() != reflect.TypeFor[Spec]().PkgPath() || catalogTypes()[t] {
		return ""
	}
	return fieldDocs[t.Name()+"."+f.Name] + valuesDoc(t, f, s)
}

// catalogTypes are the struct types of a catalog entry: CatalogEntry and
// every struct of this package it holds.
var catalogTypes = sync.OnceValue(func() map[reflect.Type]bool {
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || t.PkgPath() != reflect.TypeFor[Spec]().PkgPath() || seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			walk(t.Field(i).Type)
		}
	}
	walk(reflect.TypeFor[CatalogEntry]())
	return seen
})
