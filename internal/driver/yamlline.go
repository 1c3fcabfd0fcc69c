package driver

import (
	"regexp"
	"strconv"
	"strings"
)

// parserProblems are the problems yaml.v3 finds in its parser rather than
// in its scanner. Its message names the line of a parser problem counted
// from 0, so the line before the one the problem is on, and a scanner
// problem's counted from 1 (see parser.fail in its decode.go).
var parserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"did not find expected node content":     true,
	"did not find expected '-' indicator":    true,
	"did not find expected key":              true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found duplicate %YAML directive":        true,
	"found duplicate %TAG directive":         true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// yamlLineStart is the line a yaml.v3 message starts with.
var yamlLineStart = regexp.MustCompile(`^line ([0-9]+): `)

// yamlProblem splits a yaml.v3 error message, without its "yaml: ", into
// the line of the problem, counted from 1 (0 when the message names none),
// and the problem. A parser problem at the end of the text, such as an
// unclosed "[", is at the text's last line, of last.
func yamlProblem(msg string, last int) (int, string) {
	m := yamlLineStart.FindStringSubmatch(msg)
	if m == nil {
		return 0, msg
	}
	n, _ := strconv.Atoi(m[1])
	problem := msg[len(m[0]):]
	if parserProblems[problem] {
		n = min(n+1, max(last, 1))
	}
	return n, problem
}

// lineCount is the number of lines of a text: a last line without a line
// break counts.
func lineCount(text string) int {
	n := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		n++
	}
	return n
}
