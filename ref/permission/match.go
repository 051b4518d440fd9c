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
	return g.prepareRule(rule).matches(text{segment, GrammarSensitive(segment)})
}

// text is one text a rule is compared with, a segment or an inner command,
// with whether it is grammar-sensitive (PERM-12). An inner command is a
// suffix of its segment, so the segmenter knows this for all of them from
// one pass over the segment; finding it again per text would make a chain
// of n wrappers cost n² (PERM-47). A text is made once per call and
// compared with every rule (PERM-53).
type text struct {
	s   string
	raw bool
}

// rule is one rule's content in both the forms PERM-12 may compare: raw,
// and normalised when it is not grammar-sensitive. For a prefix rule
// (PERM-13) each form keeps its prefix. A rule is prepared once per call,
// whatever the number of texts it is compared with (PERM-53).
type rule struct {
	g         grammar
	sensitive bool
	raw, norm form
}

type form struct {
	text   string
	prefix bool // text is a prefix: the content ended in `:*` (PERM-13)
}

func (g grammar) prepareRule(content string) rule {
	r := rule{g: g, sensitive: GrammarSensitive(content), raw: g.form(content)}
	if !r.sensitive {
		r.norm = g.form(g.normalize(content))
	}
	return r
}

// form looks for `:*` after normalisation (or on the raw rule), and trims
// the prefix before it with ECMAScript's set (PERM-13).
func (g grammar) form(content string) form {
	if strings.HasSuffix(content, ":*") {
		return form{text: g.trim(content[:len(content)-2]), prefix: true}
	}
	return form{text: content}
}

// matches is the seed's segmentMatchesRule (PERM-11 to PERM-16) on a
// prepared rule and a text whose sensitivity is known. It reads only as
// much of the text as the rule needs, so comparing a rule with many long
// inner commands costs the rule's length per text, not the text's.
func (r rule) matches(t text) bool {
	// PERM-12: one grammar-sensitive side makes both sides raw.
	f, norm := r.raw, false
	if !t.raw && !r.sensitive {
		f, norm = r.norm, true
	}
	// A text starts with the rule's first byte or does not match; its
	// first byte is its normalised first byte unless it is a blank. Most
	// rules differ from most texts there, so this spares reading a head.
	if len(f.text) > 0 && len(t.s) > 0 && t.s[0] != f.text[0] &&
		(!norm || t.s[0] < utf8.RuneSelf && !r.g.isSpace(rune(t.s[0]))) {
		return false
	}
	// The head of the compared text: one byte more than the rule, to see
	// the text go on (PERM-16) or the word boundary (PERM-15).
	n := len(f.text) + 1
	var buf [64]byte
	var h []byte
	all := true
	if norm {
		h, all = r.g.normalizedHead(buf[:0], t.s, n)
	} else if len(t.s) > n {
		h, all = append(buf[:0], t.s[:n]...), false
	} else {
		h = append(buf[:0], t.s...)
	}
	if !f.prefix {
		return all && string(h) == f.text // PERM-16
	}
	if f.text == "" {
		return false // PERM-14
	}
	// PERM-15: the word boundary is exactly one SPACE; a TAB is not one.
	return (all && string(h) == f.text) ||
		(len(h) > len(f.text) && h[len(f.text)] == ' ' && string(h[:len(f.text)]) == f.text)
}

// normalizedHead appends to dst the start of g.normalize(s): all of it,
// and true, when it is shorter than n bytes; otherwise at least n bytes of
// it, and false. It reads s only up to there (and across the blanks that
// follow), which is what keeps matches' cost to the rule's length.
func (g grammar) normalizedHead(dst []byte, s string, n int) ([]byte, bool) {
	b := dst
	space := false // a run of blanks is pending: one SPACE, if a non-blank follows
	for i := 0; i < len(s); {
		if len(b) >= n {
			return b, false
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
	return b, true // trailing blanks are trimmed: they never get written
}
