package permission

import "strings"

// GrammarSensitive reports whether s contains a character the rule grammar
// treats as significant: a double or single quote, a backslash, a TAB, a LF
// or a '#' (PERM-12). When either side of a comparison is grammar-sensitive,
// the seed compares both raw, because collapsing whitespace inside quotes or
// across an escape would make two different commands look equal.
func GrammarSensitive(s string) bool {
	return strings.ContainsAny(s, "\"'\\\t\n#")
}

// SegmentMatchesRule reports whether one segment matches one rule's content,
// exactly as the seed's segmentMatchesRule (PERM-11 to PERM-16).
func SegmentMatchesRule(segment, rule string) bool {
	return ref.segmentMatchesRule(segment, rule)
}

func (g grammar) segmentMatchesRule(segment, rule string) bool {
	return g.prepareRule(rule).matches(g.prepare(segment))
}

// text is a segment or inner command ready to be compared with any number
// of rules: PERM-12's test and PERM-11's normalisation are done once per
// call, not once per rule (PERM-53).
type text struct {
	raw       string
	sensitive bool
	norm      string // raw normalised; unset when sensitive, since it is never compared
}

func (g grammar) prepare(s string) text {
	t := text{raw: s, sensitive: GrammarSensitive(s)}
	if !t.sensitive {
		t.norm = g.normalize(s)
	}
	return t
}

// rule is one rule's content in both the forms PERM-12 may compare: raw,
// and normalised when it is not grammar-sensitive. For a prefix rule
// (PERM-13) each form keeps its prefix.
type rule struct {
	sensitive bool
	raw, norm form
}

type form struct {
	text   string
	prefix bool // text is a prefix: the content ended in `:*` (PERM-13)
}

func (g grammar) prepareRule(content string) rule {
	r := rule{sensitive: GrammarSensitive(content), raw: g.form(content)}
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

// matches is the seed's segmentMatchesRule (PERM-11 to PERM-16) on
// prepared sides.
func (r rule) matches(t text) bool {
	// PERM-12: one grammar-sensitive side makes both sides raw.
	segment, f := t.raw, r.raw
	if !t.sensitive && !r.sensitive {
		segment, f = t.norm, r.norm
	}
	if !f.prefix {
		return segment == f.text // PERM-16
	}
	if f.text == "" {
		return false // PERM-14
	}
	// PERM-15: the word boundary is exactly one SPACE; a TAB is not one.
	return segment == f.text ||
		(len(segment) > len(f.text) && segment[len(f.text)] == ' ' && strings.HasPrefix(segment, f.text))
}
