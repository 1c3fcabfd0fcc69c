package preset

import "github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"

// The catalog's entry format is the config's (spec.catalog.entries holds
// entries of the same format): a built-in entry is a file of
// transformer/config/catalog/, read and checked by package config. These
// are its types under the names the engine has always used.
type (
	Entry             = config.CatalogEntry
	Source            = config.Source
	Named             = config.Named
	ImagePattern      = config.ImagePattern
	Ready             = config.Ready
	Variant           = config.Variant
	Endpoint          = config.Endpoint
	EndpointSwitch    = config.EndpointSwitch
	EnvFacts          = config.EnvFacts
	Setting           = config.Setting
	Wait              = config.Wait
	ProbeFact         = config.ProbeFact
	ImageFacts        = config.ImageFacts
	Exit              = config.Exit
	Delay             = config.Delay
	NativePreStopFact = config.NativePreStopFact
	InjectorFacts     = config.InjectorFacts
	SwitchFact        = config.SwitchFact
	NativeFact        = config.NativeFact
	Since             = config.Since
	Annotations       = config.Annotations
	KeyValue          = config.KeyValue
	FieldValue        = config.FieldValue
	KeyFormat         = config.KeyFormat
	RecordFact        = config.RecordFact
	Word              = config.Word
	AnnotatedArg      = config.AnnotatedArg
	Dialect           = config.Dialect
	WebhookFact       = config.WebhookFact
	SelectorFact      = config.SelectorFact
	ExpressionFact    = config.ExpressionFact
	RefusalFact       = config.RefusalFact
	InvalidFact       = config.InvalidFact
)

// Dialects.
const (
	LinkerdDialect = config.LinkerdDialect
	IstioDialect   = config.IstioDialect
	GenericDialect = config.GenericDialect
)

// ReadEntry reads one catalog entry from YAML or JSON (config.ReadCatalogEntry).
func ReadEntry(data []byte) (Entry, error) { return config.ReadCatalogEntry(data) }
