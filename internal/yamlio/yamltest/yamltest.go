// Package yamltest holds the YAML text that the fuzz targets of the scans
// and of the drivers are seeded with: every line break and escape class
// of YAML, and the values the writer writes otherwise than they came.
package yamltest

// Breaks are the line breaks yaml.v3 knows besides LF and CRLF: a lone
// CR, NEL (U+0085), LS (U+2028) and PS (U+2029). It breaks a line at each
// of them in every context: in a comment, a plain or quoted scalar, a
// block scalar and between tokens.
var Breaks = []string{"\r", "\u0085", "\u2028", "\u2029"}

// Escapes are escapes of a double-quoted scalar: one of every class
// yaml.v3 reads (a character, a code of 2, 4 or 8 hex digits, a line
// break), and some it refuses ("\/", "\q", a short code).
var Escapes = []string{`\0`, `\a`, `\b`, `\t`, "\\\t", `\n`, `\v`, `\f`, `\r`, `\e`, `\ `, `\"`, `\'`, `\\`, `\N`, `\_`, `\L`, `\P`,
	`\x41`, `\xe9`, `\u00e9`, `\u2028`, `\U0001F600`, "\\\n  ", `\/`, `\q`, `\x4`, `\u12`}

// ScalarClasses are values for a key at column 0 or 2 that carry every
// line break of YAML in a plain, quoted and block scalar and in a
// comment, every escape class in a double-quoted scalar, and the values
// the writer writes otherwise than they came ("<<", "~", "null", a quoted
// empty string, "[]", "{}" as annotations): the fuzz targets' seeds for
// what the scans must decline or read as the parser does.
func ScalarClasses() []string {
	values := []string{"<<", "~", "null", "''", "[]", "{}"}
	for _, b := range append([]string{"\n", "\r\n"}, Breaks...) {
		values = append(values, "x"+b+"kind: Pod", "x # c"+b+"kind: Pod", "'x"+b+"y'", `"x`+b+`y"`, "|\n      x"+b+"kind: Pod")
	}
	for _, e := range Escapes {
		values = append(values, `"x`+e+`y"`)
	}
	return values
}
