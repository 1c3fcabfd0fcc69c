package examples_test

import (
	"fmt"
	"strings"
)

// diff returns a unified-style line diff of want and got: lines only in
// want start with "-", lines only in got with "+", and up to three lines
// of context surround each change.
func diff(want, got string) string {
	a, b := strings.SplitAfter(want, "\n"), strings.SplitAfter(got, "\n")
	// lcs[i][j] is the length of the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		op   byte
		text string
		num  int // line number in got, or in want for removed lines
	}
	var lines []line
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			lines = append(lines, line{' ', a[i], j + 1})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			lines = append(lines, line{'-', a[i], i + 1})
			i++
		default:
			lines = append(lines, line{'+', b[j], j + 1})
			j++
		}
	}
	const context = 3
	var out strings.Builder
	last := -1
	for k, l := range lines {
		if l.op == ' ' && !changeNear(len(lines), k, context, func(n int) bool { return lines[n].op != ' ' }) {
			continue
		}
		if last < 0 || k != last+1 {
			fmt.Fprintf(&out, "@@ line %d @@\n", l.num)
		}
		text := strings.TrimSuffix(l.text, "\n")
		if !strings.HasSuffix(l.text, "\n") && l.op != ' ' {
			text += " (no newline at end)"
		}
		fmt.Fprintf(&out, "%c %s\n", l.op, text)
		last = k
	}
	return out.String()
}

// changeNear reports whether changed(n) holds for some n in [0, count)
// within dist of k.
func changeNear(count, k, dist int, changed func(int) bool) bool {
	for n := max(0, k-dist); n <= min(count-1, k+dist); n++ {
		if changed(n) {
			return true
		}
	}
	return false
}
