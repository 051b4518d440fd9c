package permission

import (
	"slices"
	"unicode/utf16"
)

// jsSegmentMatchesRule is a second, independent model of the seed's
// matcher, written the way JavaScript evaluates it: over UTF-16 code units,
// with String.prototype.trim, /\s+/g and startsWith spelled out. FuzzMatch
// compares the reference against it.
func jsSegmentMatchesRule(segment, rule string) bool {
	s, r := utf16.Encode([]rune(segment)), utf16.Encode([]rune(rule))
	if !jsSensitive(s) && !jsSensitive(r) {
		s, r = jsNormalize(s), jsNormalize(r)
	}
	if n := len(r); n >= 2 && r[n-2] == ':' && r[n-1] == '*' {
		prefix := jsTrim(r[:n-2])
		if len(prefix) == 0 {
			return false
		}
		withSpace := append(slices.Clone(prefix), ' ')
		return slices.Equal(s, prefix) || (len(s) >= len(withSpace) && slices.Equal(s[:len(withSpace)], withSpace))
	}
	return slices.Equal(s, r)
}

// jsSpaces is ECMAScript's WhiteSpace and LineTerminator set as UTF-16 code
// units, listed independently of isECMAScriptSpace.
var jsSpaces = map[uint16]bool{
	0x09: true, 0x0A: true, 0x0B: true, 0x0C: true, 0x0D: true, 0x20: true, 0xA0: true, 0x1680: true,
	0x2000: true, 0x2001: true, 0x2002: true, 0x2003: true, 0x2004: true, 0x2005: true, 0x2006: true,
	0x2007: true, 0x2008: true, 0x2009: true, 0x200A: true, 0x2028: true, 0x2029: true, 0x202F: true,
	0x205F: true, 0x3000: true, 0xFEFF: true,
}

func jsSensitive(u []uint16) bool {
	for _, c := range u {
		switch c {
		case '"', '\'', '\\', '\t', '\n', '#':
			return true
		}
	}
	return false
}

func jsTrim(u []uint16) []uint16 {
	for len(u) > 0 && jsSpaces[u[0]] {
		u = u[1:]
	}
	for len(u) > 0 && jsSpaces[u[len(u)-1]] {
		u = u[:len(u)-1]
	}
	return u
}

func jsNormalize(u []uint16) []uint16 {
	u = jsTrim(u)
	out := make([]uint16, 0, len(u))
	for i := 0; i < len(u); i++ {
		if !jsSpaces[u[i]] {
			out = append(out, u[i])
			continue
		}
		for i+1 < len(u) && jsSpaces[u[i+1]] {
			i++
		}
		out = append(out, ' ')
	}
	return out
}
