package permission

import "mvdan.cc/sh/v3/syntax"

// flatLimit is the longest command the segmenter hands to the parser
// without first proving it flat (PERM-52). mvdan.cc/sh parses nested
// constructs by recursion, one Go stack frame chain per level: 400,000
// levels of `$(` exhaust Go's 1 GB stack and kill the process, and nested
// `if` or `[[ !` take time quadratic in the depth. 4096 bytes bound both
// (at most a few thousand levels: a few megabytes of stack, milliseconds),
// and every command of the corpus that is unknown for a nested construct
// is shorter, so their reasons stay the parser's.
const flatLimit = 4096

// flatStop names the first construct that takes a command out of the flat
// subset the grammar allows (PERM-52), or is "" when there is none. The
// flat subset is words of literal text, single-quoted text and
// double-quoted text without `$` or backticks, joined by blanks and the
// operators `;` `&` `|` and newline, with no reserved word as the first
// word of a simple command and no comment. Every construct it reports
// makes a command unknown by another clause (PERM-22 to PERM-24, PERM-28,
// PERM-29), so the scan only decides early, in one pass and constant
// space, what the parse would decide.
func flatStop(command string) string {
	const (
		plain = iota
		single
		double
	)
	state := plain
	wordStart, commandWord := true, true
	start := 0 // where the current word began, while it is plain text
	plainWord := true
	endWord := func(i int) string {
		if !wordStart && commandWord && plainWord && syntax.IsKeyword(command[start:i]) {
			return "reserved word " + command[start:i]
		}
		if !wordStart {
			commandWord = false
		}
		wordStart = true
		return ""
	}
	for i := 0; i < len(command); i++ {
		b := command[i]
		switch state {
		case single:
			if b == '\'' {
				state = plain
			}
			continue
		case double:
			switch b {
			case '\\':
				i++
			case '$', '`':
				return "an expansion in double quotes"
			case '"':
				state = plain
			}
			continue
		}
		switch b {
		case ' ', '\t':
			if r := endWord(i); r != "" {
				return r
			}
			continue
		case '\n', ';', '&', '|':
			if r := endWord(i); r != "" {
				return r
			}
			commandWord = true
			continue
		case '(', ')', '{', '}', '[', ']', '*', '?', '$', '`', '<', '>':
			return "nesting, expansion, glob or redirection character " + string(b)
		case '#':
			if wordStart {
				return "a comment"
			}
		}
		if wordStart {
			wordStart, start, plainWord = false, i, true
		}
		switch b {
		case '\'':
			state, plainWord = single, false
		case '"':
			state, plainWord = double, false
		case '\\':
			plainWord = false
			i++
		}
	}
	if state != plain {
		return "an unterminated quote"
	}
	return endWord(len(command))
}
