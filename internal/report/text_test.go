package report_test

import (
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

func TestQuote(t *testing.T) {
	long := strings.Repeat("é", 100)
	for in, want := range map[string]string{
		"web":            `"web"`,
		"a\nb":           `"a\nb"`,
		"\x1b[31mred":    `"\x1b[31mred"`,
		"rtl\u202eevil":  `"rtl\u202eevil"`,
		"sep\u2028line":  `"sep\u2028line"`,
		long:             `"` + strings.Repeat("é", 60) + `"…`,
		"bad \xff utf-8": `"bad \xff utf-8"`,
	} {
		if got := report.Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestResource(t *testing.T) {
	for _, tc := range []struct{ kind, ns, name, want string }{
		{"Deployment", "shop", "web", "Deployment shop/web"},
		{"Namespace", "", "shop", "Namespace shop"},
		{"Pod", "", "", "Pod with no name"},
		{"", "", "x", "resource x"},
		{"Pod", "a b", "web\n::error::x", `Pod "a b"/"web\n::error::x"`},
		{"Kind\x1b[0m", "n", "p", `"Kind\x1b[0m" n/p`},
	} {
		if got := report.Resource(tc.kind, tc.ns, tc.name); got != tc.want {
			t.Errorf("Resource(%q, %q, %q) = %s, want %s", tc.kind, tc.ns, tc.name, got, tc.want)
		}
	}
}

func TestFound(t *testing.T) {
	for in, want := range map[string]string{
		"foo":                   `the string "foo"`,
		"'5'":                   `the string "5"`,
		"5":                     "the integer 5",
		"1e23":                  "the float 1e23",
		"true":                  "the boolean true",
		"-5":                    "the integer -5",
		`"-5"`:                  `the string "-5"`,
		"0x10":                  "the integer 0x10",
		"+5":                    "the integer +5",
		"1_000":                 "the integer 1_000",
		"-.inf":                 "the float -.inf",
		"yes":                   `the string "yes"`,
		"on":                    `the string "on"`,
		"2001-12-14":            "the timestamp 2001-12-14",
		"!!binary aGVsbG8=":     "binary data",
		"!vault secret":         `the value "secret" tagged !vault`,
		strings.Repeat("9", 99): "the integer " + strings.Repeat("9", 60) + "…, past the int64 maximum 9223372036854775807",
		"99999999999999999999":  "the integer 99999999999999999999, past the int64 maximum 9223372036854775807",
		"-99999999999999999999": "the integer -99999999999999999999, past the int64 minimum -9223372036854775808",
		"09":                    "the integer 09",
		"1.5":                   "the float 1.5",
		"null":                  "null",
		"{}":                    "an empty mapping",
		"{a: 1}":                "a mapping of 1 key",
		"{a: 1, b: 2}":          "a mapping of 2 keys",
		"[]":                    "an empty list",
		"[1]":                   "a list of 1 entry",
		"[1, 2, 3]":             "a list of 3 entries",
		`"line\nbreak"`:         `the string "line\nbreak"`,
		strings.Repeat("x", 99): `the string "` + strings.Repeat("x", 60) + `"…`,
	} {
		n, err := yaml.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := report.Found(n.YNode()); got != want {
			t.Errorf("Found(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestClean: kyaml's node-kind error loses its node dump, whatever wraps
// it, and the message is one line.
func TestClean(t *testing.T) {
	list, err := yaml.Parse(strings.Repeat("- entry\n", 400))
	if err != nil {
		t.Fatal(err)
	}
	kyamlErr := yaml.ErrorIfInvalid(list, yaml.MappingNode)
	if !strings.Contains(kyamlErr.Error(), "node contents") {
		t.Fatalf("kyaml's error no longer dumps the node: %v", kyamlErr)
	}
	wrapped := fmt.Errorf("spec.template.spec.containers[1].lifecycle: %w", kyamlErr)
	if got, want := report.Clean(wrapped.Error()), "spec.template.spec.containers[1].lifecycle: expected a mapping, found a list"; got != want {
		t.Errorf("Clean = %q, want %q", got, want)
	}
	if got, want := report.Clean("a\nb\x1b[0m\n"), `a\nb\x1b[0m`; got != want {
		t.Errorf("Clean = %q, want %q", got, want)
	}
	if got := report.Clean(`moved "é" to the front`); got != `moved "é" to the front` {
		t.Errorf("Clean changed printable text: %q", got)
	}
}

// TestLogCleans: every message a filter records is one safe line.
func TestLogCleans(t *testing.T) {
	var log report.Log
	log.Change(report.Pod("containers"), "set %s", "a\nb")
	log.Warn(report.KindHook, report.Pod("containers"), "warn %s", "\x1b[31m")
	log.FailWith(yaml.ErrorIfInvalid(yaml.NewScalarRNode("x"), yaml.SequenceNode))
	for _, findings := range []report.Findings{log.Changes, log.Warnings, log.Errors} {
		got := findings.Strings()
		if len(got) != 1 || strings.ContainsAny(got[0], "\n\x1b") || strings.Contains(got[0], "node contents") {
			t.Errorf("not one clean line: %q", got)
		}
	}
	if want := "expected a list, found a scalar"; log.Errors[0].Detail != want {
		t.Errorf("error = %q, want %q", log.Errors[0], want)
	}
}
