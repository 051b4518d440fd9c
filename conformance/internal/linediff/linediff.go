package linediff

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Diff returns a compact line diff of want and got: "-" lines only
// in want, "+" lines only in got, and up to context unchanged lines
// around each change, with "@@ -a,b +c,d @@" hunk headers. A line
// holding control characters or invalid UTF-8 is shown Go-quoted, and
// when one text ends in a newline and the other does not, the last line
// without one says so: no difference is invisible. It returns "" when the texts are equal.
func Diff(want, got string, context int) string {
	if want == got {
		return ""
	}
	a, b := splitLines(want), splitLines(got)
	// The common head and tail need no dynamic programming; they are most
	// of a long output that differs in one place.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]diffOp, 0, len(a)+len(b))
	for i := 0; i < pre; i++ {
		ops = append(ops, diffOp{' ', a[i]})
	}
	ops = append(ops, middleDiff(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for i := len(a) - suf; i < len(a); i++ {
		ops = append(ops, diffOp{' ', a[i]})
	}
	// The end of the last line is worth a mark only where the two texts
	// differ in it.
	markEnd := strings.HasSuffix(want, "\n") != strings.HasSuffix(got, "\n")
	return hunks(ops, context, markEnd)
}

type diffOp struct {
	kind byte // ' ', '-' or '+'
	line string
}

// maxLCS bounds the table of the longest common subsequence (cells);
// beyond it the differing middles are shown whole, one after the other.
const maxLCS = 4 << 20

// middleDiff diffs the differing middles by longest common subsequence.
func middleDiff(a, b []string) []diffOp {
	var ops []diffOp
	if len(a)*len(b) > maxLCS {
		for _, l := range a {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range b {
			ops = append(ops, diffOp{'+', l})
		}
		return ops
	}
	// lcs[i][j] is the LCS length of a[i:] and b[j:].
	lcs := make([][]int32, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(b)+1)
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
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i]})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	return ops
}

// hunks formats ops as unified-diff hunks with context lines.
func hunks(ops []diffOp, context int, markEnd bool) string {
	var b strings.Builder
	// aLine and bLine count lines before each op, 1-based when printed.
	aAt, bAt := make([]int, len(ops)+1), make([]int, len(ops)+1)
	for i, op := range ops {
		aAt[i+1], bAt[i+1] = aAt[i], bAt[i]
		if op.kind != '+' {
			aAt[i+1]++
		}
		if op.kind != '-' {
			bAt[i+1]++
		}
	}
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(0, i-context)
		end := i
		// Extend the hunk while the next change is within 2×context.
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			next := end
			for next < len(ops) && ops[next].kind == ' ' {
				next++
			}
			if next == len(ops) || next-end > 2*context {
				end = min(len(ops), end+context)
				break
			}
			end = next
		}
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", aAt[start]+1, aAt[end]-aAt[start], bAt[start]+1, bAt[end]-bAt[start])
		for _, op := range ops[start:end] {
			b.WriteByte(op.kind)
			b.WriteString(showLine(op.line, markEnd))
			b.WriteByte('\n')
		}
		i = end
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// splitLines splits s into lines that keep their "\n".
func splitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// showLine renders one line of a diff; with markEnd, a line without a
// final newline says so.
func showLine(l string, markEnd bool) string {
	body, nl := strings.CutSuffix(l, "\n")
	plain := utf8.ValidString(body)
	for _, r := range body {
		if r < 0x20 && r != '\t' || r == 0x7f {
			plain = false
		}
	}
	if !plain {
		body = strconv.Quote(body)
	}
	if !nl && markEnd {
		body += " ⟨no newline at end⟩"
	}
	return body
}
