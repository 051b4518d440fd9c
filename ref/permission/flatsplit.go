package permission

import (
	"slices"
	"strings"
)

// flatSegments segments a command that flatStop found flat without the
// parser: it splits the command at its list and pipeline operators and
// cuts each simple command into the words mvdan.cc/sh would find, then
// checks each as a parsed one is checked (flatCall, PERM-17, PERM-53).
// Parsing builds a tree of every operator, word and part of a word, and a
// 1 MiB chain spent most of its time there; this reads the command a few
// times and allocates nothing per word but a reused list of their texts.
//
// It answers only where the grammar is plain: it reports false, having
// checked nothing, for any command where a piece is empty or an operator
// unusual (`;;`, `& &`, a trailing `&&`), where a command word holds
// `=` (maybe an assignment) or is a declaration builtin (the parser's own
// nodes), or where the command ends in a
// backslash; the parser then decides those. TestFlatSegments
// compares its words with the parser's.
func (s *segmenter) flatSegments() bool {
	// The check pass counts the simple commands and the words of the
	// longest, so that the segments and the words are each collected in
	// one allocation of the right size: append would grow a long list by
	// a quarter at a time, copying it again and again.
	n, most := 0, 0
	if !flatSplit(s.src, nil, func(words int) bool { n, most = n+1, max(most, words); return true }) {
		return false
	}
	s.segments = make([]string, 0, n)
	s.words = slices.Grow(s.words[:0], most)
	s.wordsUsed = max(s.wordsUsed, most)
	flatSplit(s.src, &s.words, func(int) bool { return s.flatCall() })
	return true
}

// flatSplit calls piece for each simple command of a flat command, in
// source order, with its number of words, until piece returns false, and
// reports whether the command's structure is one flatSegments answers
// for. With words non-nil, *words holds the simple command's words when
// piece is called (the list is emptied for each). With piece nil it only
// checks the structure.
func flatSplit(src string, words *[]rawWord, piece func(words int) bool) bool {
	i := skipBlanks(src, 0, true)
	for {
		// A simple command: words up to an operator or the end.
		if i == len(src) || isOperatorByte(src[i]) {
			return false // an empty command where one is required
		}
		if words != nil {
			*words = (*words)[:0]
		}
		first, n := true, 0
		for ; i < len(src) && !isOperatorByte(src[i]); n++ {
			end, ok := wordEnd(src, i)
			if !ok {
				return false
			}
			if words != nil {
				*words = append(*words, rawWord{text: src[i:end], start: i})
			}
			if first {
				if declarationBuiltins[src[i:end]] {
					return false // the parser's DeclClause or LetClause
				}
				for j := i; j < end; j++ {
					if src[j] == '=' {
						return false // maybe an assignment (PERM-25)
					}
				}
				first = false
			}
			i = skipBlanks(src, end, false)
		}
		if piece != nil && !piece(n) {
			return true
		}
		if i == len(src) {
			return true
		}
		// An operator: && || | |& and then a command, possibly after
		// newlines; ; & and newline, then a command or the end.
		binary := false
		switch {
		case i+1 < len(src) && (src[i:i+2] == "&&" || src[i:i+2] == "||" || src[i:i+2] == "|&"):
			i += 2
			binary = true
		case src[i] == '|':
			i++
			binary = true
		default: // ; & or newline
			i++
		}
		i = skipBlanks(src, i, true)
		if i == len(src) {
			return !binary
		}
	}
}

// isOperatorByte reports whether b ends a word and starts an operator in
// a flat command: flatStop has refused every other such byte (`<>()`).
func isOperatorByte(b byte) bool {
	return b == ';' || b == '&' || b == '|' || b == '\n'
}

// skipBlanks returns the offset of the first byte at or after i that is
// not a SPACE or TAB, nor a newline when newlines is set.
func skipBlanks(src string, i int, newlines bool) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || newlines && src[i] == '\n') {
		i++
	}
	return i
}

// wordEnd returns the end of the word starting at i, which is not a blank
// or operator byte, and false when a backslash ends the command. Quotes
// are closed: flatStop refused a command with one left open.
func wordEnd(src string, i int) (int, bool) {
	for i < len(src) {
		switch src[i] {
		case ' ', '\t', ';', '&', '|', '\n':
			return i, true
		case '\\':
			if i+1 == len(src) {
				return 0, false
			}
			i += 2
		case '\'':
			i++
			for src[i] != '\'' {
				i++
			}
			i++
		case '"':
			i++
			for src[i] != '"' {
				if src[i] == '\\' {
					i++
				}
				i++
			}
			i++
		default:
			i++
		}
	}
	return i, true
}

// flatCall checks the simple command whose words flatSplit has cut into
// s.words, as call checks a parsed one: PERM-27 on its command word,
// PERM-28 and PERM-29 on each word's text (flatWord), then what every
// simple command shares (simple).
func (s *segmenter) flatCall() bool {
	head := s.words[0].text
	if strings.IndexByte(head, '\'') >= 0 || strings.IndexByte(head, '"') >= 0 {
		return s.reject(ReasonCommandWord, "a quoted command word")
	}
	if !s.commandWord(head) {
		return false
	}
	for _, w := range s.words {
		if !s.flatWord(w) {
			return false
		}
	}
	return s.simple(head, s.words)
}

// flatWord applies PERM-28 and PERM-29 to a word of a flat command, part
// by part as word does to the parser's nodes: an unquoted run of text
// (with its backslash escapes), a single-quoted string, or a
// double-quoted one. flatStop has refused `$` and backticks everywhere
// but in single quotes, except escaped: those are refused here, as word
// refuses them (PERM-28).
func (s *segmenter) flatWord(w rawWord) bool {
	t := w.text
	for i := 0; i < len(t); {
		switch t[i] {
		case '\'':
			j := i + 1 + strings.IndexByte(t[i+1:], '\'')
			if !s.excuse(w.start+i, w.start+j) {
				return false
			}
			if strings.IndexByte(t[i+1:j], '`') >= 0 {
				return s.reject(ReasonExpansion, "a backtick")
			}
			i = j + 1
		case '"':
			j := i + 1
			for t[j] != '"' {
				if t[j] == '\\' {
					j++
				}
				j++
			}
			// flatStop refused `$` and backticks here, but not escaped.
			if strings.ContainsAny(t[i+1:j], "$`") {
				return s.reject(ReasonExpansion, "$ or a backtick in double quotes")
			}
			i = j + 1
		default:
			j := i
			for j < len(t) && t[j] != '\'' && t[j] != '"' {
				if t[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j, len(t))
			if i == 0 && t[0] == '~' {
				return s.reject(ReasonTilde, "a leading ~")
			}
			if class, bad := unquotedLit(t[i:j]); bad {
				return s.reject(class, "in "+t[i:j])
			}
			i = j
		}
	}
	return true
}
