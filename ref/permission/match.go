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
	if len(s) < 256 {
		return strings.ContainsAny(s, grammarSensitive)
	}
	// A long text (a 1 MiB segment): one vectorised IndexByte per
	// character is many times faster than testing each byte against the
	// set, and it is where the time goes (PERM-53).
	for i := 0; i < len(grammarSensitive); i++ {
		if strings.IndexByte(s, grammarSensitive[i]) >= 0 {
			return true
		}
	}
	return false
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

// textIndex holds the texts deny rules are compared with, grouped by first
// byte, so that a rule is compared only with the texts that can match it
// (PERM-53): a chain of 175,000 wrappers has as many inner commands, and a
// hundred deny rules compared with each took longer than classifying the
// command. matches rejects at once a text whose first byte is an ASCII
// non-blank other than the first byte of the rule's form it compares, so
// only the texts starting with the first byte of the rule's raw or
// normalised form, and those starting with a blank, a non-ASCII byte or
// nothing, can match.
type textIndex struct {
	all []text
	// byFirst holds the texts with an ASCII non-blank first byte, ordered
	// by it: those starting with b are byFirst[from[b]:from[b+1]]. Nil
	// for a few texts, which are compared with every rule.
	byFirst []text
	from    [utf8.RuneSelf + 1]int
	others  []text
}

// indexFrom is the number of texts from which a textIndex groups them:
// below it, grouping costs more than comparing.
const indexFrom = 32

func newTextIndex(texts []text, isSpace func(rune) bool) *textIndex {
	x := &textIndex{all: texts}
	if len(texts) < indexFrom {
		return x
	}
	grouped := func(t text) bool {
		return t.s != "" && t.s[0] < utf8.RuneSelf && !isSpace(rune(t.s[0]))
	}
	// A counting sort: count, place each group, fill.
	var count [utf8.RuneSelf]int
	for _, t := range texts {
		if grouped(t) {
			count[t.s[0]]++
		} else {
			x.others = append(x.others, t)
		}
	}
	for b := range utf8.RuneSelf {
		x.from[b+1] = x.from[b] + count[b]
	}
	x.byFirst = make([]text, x.from[utf8.RuneSelf])
	next := x.from
	for _, t := range texts {
		if grouped(t) {
			x.byFirst[next[t.s[0]]] = t
			next[t.s[0]]++
		}
	}
	return x
}

// some reports whether r matches some text (PERM-4).
func (x *textIndex) some(r rule) bool {
	raw, norm := r.raw.text, r.norm.text
	if x.byFirst == nil || raw == "" || !r.sensitive && norm == "" {
		return some(x.all, r.matches)
	}
	if some(x.others, r.matches) || some(x.starting(raw[0]), r.matches) {
		return true
	}
	return !r.sensitive && norm[0] != raw[0] && some(x.starting(norm[0]), r.matches)
}

// starting returns the grouped texts whose first byte is b: none when b is
// not ASCII.
func (x *textIndex) starting(b byte) []text {
	if b >= utf8.RuneSelf {
		return nil
	}
	return x.byFirst[x.from[b]:x.from[b+1]]
}
