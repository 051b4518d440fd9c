package permission

import (
	"slices"

	"mvdan.cc/sh/v3/syntax"
)

// flatSegments segments a command that flatStop found flat without the
// parser: it splits the command at its list and pipeline operators and
// cuts each simple command into the words, with the parts and offsets,
// that mvdan.cc/sh would build, then checks each with s.call as a parsed
// one is checked (PERM-17, PERM-53). Parsing builds a tree of every
// operator and word and a 1 MiB chain spent most of its time there; this
// reads the command twice and allocates nothing per word.
//
// It answers only where the grammar is plain: it reports false, having
// checked nothing, for any command where a piece is empty or an operator
// unusual (`;;`, `& &`, a trailing `&&`), where a command word holds
// `=` (maybe an assignment) or is a declaration builtin (the parser's own
// nodes), or where the command ends in a
// backslash; the parser then decides those. TestFlatSegments
// compares its words with the parser's.
func (s *segmenter) flatSegments() bool {
	// The check pass counts the simple commands, so that the segments
	// are collected in one allocation of the right size: append would
	// grow a long chain's list by a quarter at a time, copying it again
	// and again.
	n := 0
	if !flatSplit(s.src, func(int, int) bool { n++; return true }) {
		return false
	}
	s.segments = make([]string, 0, n)
	var f flatWords
	flatSplit(s.src, func(start, end int) bool {
		c := f.call(s.src, start, end)
		return s.call(c)
	})
	return true
}

// flatSplit calls piece with the span of each simple command of a flat
// command in source order, until piece returns false, and reports whether
// the command's structure is one flatSegments answers for. With piece nil
// it only checks the structure.
func flatSplit(src string, piece func(start, end int) bool) bool {
	i := skipBlanks(src, 0, true)
	for {
		// A simple command: words up to an operator or the end.
		start := i
		if i == len(src) || isOperatorByte(src[i]) {
			return false // an empty command where one is required
		}
		first := true
		for i < len(src) && !isOperatorByte(src[i]) {
			end, ok := wordEnd(src, i)
			if !ok {
				return false
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
		if piece != nil && !piece(start, i) {
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

// flatWords makes the nodes of the simple commands, a chunk at a time:
// growing one slab would copy it again and again for a command of many
// words, where a chunk, once full, is left to the nodes that point into it.
// One simple command's nodes are made over the last chunks of the one
// before: the segmenter keeps no node.
type flatWords struct {
	c       syntax.CallExpr
	args    []*syntax.Word
	scratch []syntax.WordPart
	words   chunk[syntax.Word]
	lits    chunk[syntax.Lit]
	sgls    chunk[syntax.SglQuoted]
	dbls    chunk[syntax.DblQuoted]
	parts   chunk[syntax.WordPart]
}

// chunk hands out runs of Ts from arrays of at least chunkSize.
type chunk[T any] struct{ free []T }

const chunkSize = 256

// take returns n fresh Ts, contiguous.
func (c *chunk[T]) take(n int) []T {
	if cap(c.free)-len(c.free) < n {
		c.free = make([]T, 0, max(chunkSize, n))
	}
	c.free = c.free[:len(c.free)+n]
	return c.free[len(c.free)-n : len(c.free) : len(c.free)]
}

func (c *chunk[T]) new() *T { return &c.take(1)[0] }

// reset makes the current array's Ts free again.
func (c *chunk[T]) reset() { c.free = c.free[:0] }

func pos(offset int) syntax.Pos { return syntax.NewPos(uint(offset), 1, 1) }

// call builds the simple command of src[start:end], whose words flatSplit
// has checked, as mvdan.cc/sh parses it: each unquoted run one Lit holding
// its raw text, each single-quoted string one SglQuoted, each
// double-quoted string one DblQuoted holding one Lit, or none when empty.
func (f *flatWords) call(src string, start, end int) *syntax.CallExpr {
	// One pass over the words first, so that the list of words of a long
	// command is allocated once at its size (append would copy it again
	// and again, a quarter larger each time).
	n := 0
	for i := start; i < end; n++ {
		we, _ := wordEnd(src, i)
		i = skipBlanks(src, we, false)
	}
	f.args = slices.Grow(f.args[:0], n)
	f.words.reset()
	f.lits.reset()
	f.sgls.reset()
	f.dbls.reset()
	f.parts.reset()
	i := start
	for i < end {
		we, _ := wordEnd(src, i)
		f.scratch = f.scratch[:0]
		for i < we {
			switch src[i] {
			case '\'':
				j := i + 1
				for src[j] != '\'' {
					j++
				}
				q := f.sgls.new()
				*q = syntax.SglQuoted{Left: pos(i), Right: pos(j), Value: src[i+1 : j]}
				f.scratch = append(f.scratch, q)
				i = j + 1
			case '"':
				j := i + 1
				for src[j] != '"' {
					if src[j] == '\\' {
						j++
					}
					j++
				}
				q := f.dbls.new()
				*q = syntax.DblQuoted{Left: pos(i), Right: pos(j)}
				if j > i+1 {
					l := f.lits.new()
					*l = syntax.Lit{ValuePos: pos(i + 1), ValueEnd: pos(j), Value: src[i+1 : j]}
					q.Parts = f.parts.take(1)
					q.Parts[0] = l
				}
				f.scratch = append(f.scratch, q)
				i = j + 1
			default:
				j := i
				for j < we && src[j] != '\'' && src[j] != '"' {
					if src[j] == '\\' {
						j++
					}
					j++
				}
				l := f.lits.new()
				*l = syntax.Lit{ValuePos: pos(i), ValueEnd: pos(j), Value: src[i:j]}
				f.scratch = append(f.scratch, l)
				i = j
			}
		}
		w := f.words.new()
		w.Parts = f.parts.take(len(f.scratch))
		copy(w.Parts, f.scratch)
		f.args = append(f.args, w)
		i = skipBlanks(src, we, false)
	}
	f.c.Args = f.args
	return &f.c
}
