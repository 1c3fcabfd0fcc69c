package explain

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// plain makes text from the input safe on a terminal: every control,
// format or non-printable character is written as its Go escape.
func plain(s string) string { return report.Escape(s) }

// markdownText makes text from the input read as itself in Markdown
// (CommonMark with GitHub's extensions), in a paragraph, a list item, a
// heading or a table cell: control characters are escaped as on a
// terminal, and a backslash goes before every character that can start
// markup there: \ ` * [ ] < > | ~ & $ #, '_' unless it stands between
// letters or digits (no emphasis there), and ':' before a word (GitHub's
// :emoji: codes).
func markdownText(s string) string {
	s = plain(s)
	var b strings.Builder
	prev := ' '
	for i, r := range s {
		next, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
		switch {
		case strings.ContainsRune("\\`*[]<>|~&$#", r),
			r == '_' && !(alnum(prev) && alnum(next)),
			r == ':' && (alnum(next) || next == '_' || next == '+' || next == '-'):
			b.WriteByte('\\')
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

func alnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// markdownCode writes text from the input as a Markdown code span: in
// backticks, more of them than the longest run of backticks in it, with a
// space inside each end when it starts or ends with a backtick or a space.
// A code span shows its text as it is; a table cell still needs its '|'
// escaped, so it is used outside tables only.
func markdownCode(s string) string {
	s = plain(s)
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mermaidSpecial are the characters that can mean something in a Mermaid
// gantt line or to Mermaid's entity codes (#58;), with the markers its
// entity pass uses (ﬂ°°58¶ß).
const mermaidSpecial = "#%;:<>|&\"`{}\\ﬂ¶"

// mermaidText makes text from the input read as itself in a Mermaid gantt
// chart's title, section or task name: control characters are escaped as
// on a terminal, and every character of mermaidSpecial is written as
// Mermaid's entity code for it (':' as #58;), which Mermaid draws as the
// character.
func mermaidText(s string) string {
	s = plain(s)
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(mermaidSpecial, r) {
			fmt.Fprintf(&b, "#%d;", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
