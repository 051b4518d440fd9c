package permission

import (
	"strings"
	"unicode/utf8"
)

// isECMAScriptSpace reports whether r is in ECMAScript's WhiteSpace or
// LineTerminator set, the set JavaScript's String.prototype.trim() and the
// regular-expression class \s use (PERM-10). The seed's normalisation runs in
// JavaScript, so this set, not Go's, defines what a rule's whitespace is: Go's
// regexp \s is ASCII-only and lacks VT, and unicode.IsSpace adds U+0085 and
// lacks U+FEFF. The 25 code points are spelled out in whitespace_test.go.
func isECMAScriptSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ',
		0x00A0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// Normalize trims s and collapses every run of whitespace inside it to one
// SPACE, with ECMAScript's whitespace set: the seed's
// `text.trim().replace(/\s+/g, " ")` (PERM-11). Bytes that are not valid
// UTF-8 are kept as they are and count as non-space.
func Normalize(s string) string {
	return ref.normalize(s)
}

// normalize is Normalize over the grammar's whitespace predicate.
func (g grammar) normalize(s string) string {
	s = g.trim(s)
	// Fast path: the result is s itself when every whitespace rune in it is
	// already a lone SPACE, which is the common case for rules and segments.
	if g.collapsed(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	inSpace := false
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if n == 1 && r == utf8.RuneError {
			b.WriteByte(s[i])
			inSpace = false
			i++
			continue
		}
		if g.isSpace(r) {
			if !inSpace {
				b.WriteByte(' ')
			}
			inSpace = true
		} else {
			b.WriteString(s[i : i+n])
			inSpace = false
		}
		i += n
	}
	return b.String()
}

// collapsed reports whether s (already trimmed) has no whitespace other
// than single SPACEs, so that normalising it changes nothing.
func (g grammar) collapsed(s string) bool {
	prevSpace := false
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if n == 1 && r == utf8.RuneError {
			prevSpace = false
			continue
		}
		if !g.isSpace(r) {
			prevSpace = false
			continue
		}
		if r != ' ' || prevSpace {
			return false
		}
		prevSpace = true
	}
	return true
}

// trim removes leading and trailing whitespace runes, as JavaScript's trim().
func (g grammar) trim(s string) string {
	start := 0
	for start < len(s) {
		r, n := utf8.DecodeRuneInString(s[start:])
		if (n == 1 && r == utf8.RuneError) || !g.isSpace(r) {
			break
		}
		start += n
	}
	end := len(s)
	for end > start {
		r, n := utf8.DecodeLastRuneInString(s[start:end])
		if (n == 1 && r == utf8.RuneError) || !g.isSpace(r) {
			break
		}
		end -= n
	}
	return s[start:end]
}
