package permission

import (
	"strings"
	"unicode/utf8"
)

// GrammarSensitive reports whether s contains a character the rule grammar
// treats as significant: a double or single quote, a backslash, a TAB, a LF
// or a '#' (PERM-12). When either side of a comparison is grammar-sensitive,
// the seed compares both raw, because collapsing whitespace inside quotes or
// across an escape would make two different commands look equal.
func GrammarSensitive(s string) bool {
	return strings.ContainsAny(s, grammarSensitive)
}

// grammarSensitive are the characters GrammarSensitive looks for.
const grammarSensitive = "\"'\\\t\n#"

// SegmentMatchesRule reports whether one segment matches one rule's content,
// exactly as the seed's segmentMatchesRule (PERM-11 to PERM-16).
func SegmentMatchesRule(segment, rule string) bool {
	return ref.segmentMatchesRule(segment, rule)
}

func (g grammar) segmentMatchesRule(segment, rule string) bool {
	return g.matchText(text{segment, GrammarSensitive(segment)}, rule)
}

// text is one text a rule is compared with, a segment or an inner command,
// with whether it is grammar-sensitive (PERM-12). An inner command is a
// suffix of its segment, so the segmenter knows this for all of them from
// one pass over the segment; finding it again per text would make a chain
// of n wrappers cost n² (PERM-47).
type text struct {
	s   string
	raw bool
}

// matchText is segmentMatchesRule for a text whose sensitivity is known. It
// reads only as much of the text as the rule needs, so comparing a rule
// with many long inner commands costs the rule's length per text, not the
// text's.
func (g grammar) matchText(t text, rule string) bool {
	head := func(n int) (string, bool) {
		if len(t.s) <= n {
			return t.s, true
		}
		return t.s[:n], false
	}
	// PERM-12: one grammar-sensitive side makes both sides raw.
	if !t.raw && !GrammarSensitive(rule) {
		rule = g.normalize(rule)
		head = func(n int) (string, bool) { return g.normalizedHead(t.s, n) }
	}
	// PERM-13: `:*` is looked for after normalisation (or on the raw rule),
	// and the prefix before it is trimmed with ECMAScript's set.
	if strings.HasSuffix(rule, ":*") {
		prefix := g.trim(rule[:len(rule)-2])
		if prefix == "" {
			return false // PERM-14
		}
		// PERM-15: the word boundary is exactly one SPACE; a TAB is not one.
		h, all := head(len(prefix) + 1)
		return (all && h == prefix) ||
			(len(h) > len(prefix) && h[len(prefix)] == ' ' && strings.HasPrefix(h, prefix))
	}
	h, all := head(len(rule) + 1)
	return all && h == rule // PERM-16
}

// normalizedHead is the start of g.normalize(s): all of it, and true, when
// it is shorter than n bytes; otherwise at least n bytes of it, and false.
// It reads s only up to there (and across the blanks that follow), which is
// what keeps matchText's cost to the rule's length.
func (g grammar) normalizedHead(s string, n int) (string, bool) {
	var b []byte
	space := false // a run of blanks is pending: one SPACE, if a non-blank follows
	for i := 0; i < len(s); {
		if len(b) >= n {
			return string(b), false
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !(size == 1 && r == utf8.RuneError) && g.isSpace(r) {
			space = len(b) > 0 // leading blanks are trimmed
			i += size
			continue
		}
		if space {
			b = append(b, ' ')
			space = false
		}
		b = append(b, s[i:i+size]...)
		i += size
	}
	return string(b), true // trailing blanks are trimmed: they never get written
}
