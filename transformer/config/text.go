package config

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The message text of the config's errors: the same words as every other
// message of the function, which internal/report writes (Quote, Found,
// Escape); the config keeps these copies so that it depends on no internal
// package, and TestTextAgrees holds them to report's.

// maxQuoted is how many characters of an input value a message shows.
const maxQuoted = 60

// quote returns an input value for a message: shortened to its first
// characters, in double quotes, with every control, format and
// non-printable character escaped as in Go source (%q). Every name or value
// that comes from the input goes through Quote before it is printed.
func quote(s string) string {
	if utf8.RuneCountInString(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	n := 0
	for i := range s {
		if n == maxQuoted {
			return strconv.Quote(s[:i]) + "…"
		}
		n++
	}
	return strconv.Quote(s)
}

// found says in a few words what a node holds, for "found ..." in a
// message: a scalar's type as the YAML reader resolves it (YAML 1.2, as
// yaml.v3 reads it: -5 and 0x10 are integers, 1e3 a float, yes a string;
// a decimal integer too long for 64 bits is still an integer) and its value, or the kind and size of a list or mapping. It never
// prints a node's contents.
func found(n *yaml.Node) string {
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 1 {
			return found(n.Content[0])
		}
		return "a document"
	case yaml.MappingNode:
		return counted(len(n.Content)/2, "a mapping", "key")
	case yaml.SequenceNode:
		return counted(len(n.Content), "a list", "entry")
	case yaml.AliasNode:
		return "an alias"
	}
	switch tag := n.ShortTag(); tag {
	case yaml.NodeTagNull:
		return "null"
	case yaml.NodeTagString:
		return "the string " + quote(n.Value)
	case yaml.NodeTagInt:
		return "the integer " + literal(n.Value)
	case yaml.NodeTagFloat:
		if wholeNumber.MatchString(n.Value) {
			// yaml.v3 resolves an integer past 64 bits as a float; the
			// YAML 1.2 core schema reads it as an integer.
			return "the integer " + literal(n.Value) + pastInt64(n.Value)
		}
		return "the float " + literal(n.Value)
	case yaml.NodeTagBool:
		return "the boolean " + literal(n.Value)
	case "!!timestamp":
		return "the timestamp " + literal(n.Value)
	case "!!binary":
		return "binary data"
	default:
		return "the value " + quote(n.Value) + " tagged " + literal(tag)
	}
}

// wholeNumber is an integer in decimal, with an optional sign.
var wholeNumber = regexp.MustCompile(`^[-+]?[0-9]+$`)

// pastInt64 says that a decimal integer is out of the int64 range, or
// returns "".
func pastInt64(v string) string {
	if _, err := strconv.ParseInt(v, 10, 64); !errors.Is(err, strconv.ErrRange) {
		return ""
	}
	if strings.HasPrefix(v, "-") {
		return ", past the int64 minimum " + strconv.FormatInt(math.MinInt64, 10)
	}
	return ", past the int64 maximum " + strconv.FormatInt(math.MaxInt64, 10)
}

// literalText is a scalar that reads the same without quotes: the
// characters of YAML numbers, booleans, timestamps and tags.
var literalText = regexp.MustCompile(`^[A-Za-z0-9._:+!/-]+$`)

// literal returns a number, boolean or timestamp from the input for a
// message as it is written (-5, 1e3, 0x10), shortened as Quote shortens;
// anything that would not read the same without quotes is quoted.
func literal(s string) string {
	if !literalText.MatchString(s) {
		return quote(s)
	}
	if len(s) > maxQuoted {
		return s[:maxQuoted] + "…"
	}
	return s
}

func counted(n int, what, noun string) string {
	switch n {
	case 0:
		return "an empty " + strings.TrimPrefix(what, "a ")
	case 1:
		return fmt.Sprintf("%s of 1 %s", what, noun)
	}
	if noun == "entry" {
		return fmt.Sprintf("%s of %d entries", what, n)
	}
	return fmt.Sprintf("%s of %d %ss", what, n, noun)
}

// escape replaces every character of s that unicode.IsPrint rejects
// (control and format characters such as bidirectional overrides, line and
// paragraph separators),
// and every byte that is not UTF-8, with its Go escape (\n, \x1b,
// \u2028); the rest of s is kept as it is.
func escape(s string) string {
	if safe(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsPrint(r):
			b.WriteRune(r)
		default:
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}

func safe(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return utf8.ValidString(s) && allPrintable(s)
		}
	}
	return true
}

func allPrintable(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}
