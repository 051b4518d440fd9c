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
	// PERM-12: one grammar-sensitive side makes both sides raw.
	if !GrammarSensitive(segment) && !GrammarSensitive(rule) {
		segment = g.normalize(segment)
		rule = g.normalize(rule)
	}
	// PERM-13: `:*` is looked for after normalisation (or on the raw rule),
	// and the prefix before it is trimmed with ECMAScript's set.
	if strings.HasSuffix(rule, ":*") {
		prefix := g.trim(rule[:len(rule)-2])
		if prefix == "" {
			return false // PERM-14
		}
		// PERM-15: the word boundary is exactly one SPACE; a TAB is not one.
		return segment == prefix ||
			(len(segment) > len(prefix) && segment[len(prefix)] == ' ' && strings.HasPrefix(segment, prefix))
	}
	return segment == rule // PERM-16
}
