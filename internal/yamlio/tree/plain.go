package tree

import "strings"

// PlainString reports whether the encoder writes a string plain and as it
// is, and every YAML reader, 1.1 or 1.2, reads it back as that string. It holds printable ASCII
// with no ": ", " #", ":" at the end, space at either end or "---" at the
// start, and starts with a letter, "/", "$" or "_" (and is not a word YAML
// reads as a boolean or null), with "--" or "-" and a letter, or with a
// digit when it also holds a character no number or timestamp has (500m,
// 128Mi, 30s, 25%).
func PlainString(s string) bool {
	if s == "" || !PrintableASCII(s) || s[0] == ' ' || s[len(s)-1] == ' ' || s[len(s)-1] == ':' ||
		strings.Contains(s, ": ") || strings.Contains(s, " #") || strings.HasPrefix(s, "---") {
		return false
	}
	switch c := s[0]; {
	case isLetter(c):
		return LetterString(s)
	case c == '/' || c == '$' || c == '_':
		return true
	case c == '-':
		return len(s) > 1 && (isLetter(s[1]) || s[1] == '-')
	case c >= '0' && c <= '9':
		return strings.Trim(s, "0123456789+-._: eExXoObBtTzZabcdfABCDF") != ""
	}
	return false
}

// LetterString reports whether s starts with an ASCII letter and is not a
// word YAML 1.1 or 1.2 reads as a boolean or null: written plain or
// quoted, every reader reads it as a string.
func LetterString(s string) bool {
	return s != "" && isLetter(s[0]) && !specialWords[strings.ToLower(s)]
}

// specialWords are the plain words YAML 1.1 or 1.2 reads as booleans or
// null, in lower case.
var specialWords = map[string]bool{
	"true": true, "false": true, "null": true, "yes": true, "no": true, "on": true, "off": true, "y": true, "n": true,
}

// PrintableASCII reports whether s holds only printable ASCII characters:
// no control character, no line break, nothing above 0x7e.
func PrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// WordByte reports whether c may be part of a key or value that the line
// scans (scan.Scan, package elide) read as one plain word: an ASCII
// letter or digit, or one of _ . / -.
func WordByte(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '/' || c == '-'
}
