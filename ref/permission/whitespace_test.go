package permission

import (
	"slices"
	"testing"
	"unicode"
)

// ecmaScriptSpaces spells out the 25 code points of ECMAScript's
// WhiteSpace and LineTerminator sets (ECMA-262 §12.2, §12.3), against which
// isECMAScriptSpace is checked over every rune.
var ecmaScriptSpaces = []rune{
	'\t', '\n', '\v', '\f', '\r', ' ', 0x00A0, 0x1680,
	0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200A,
	0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF,
}

func TestECMAScriptSpaceSet(t *testing.T) {
	if len(ecmaScriptSpaces) != 25 {
		t.Fatalf("ecmaScriptSpaces has %d code points, want 25", len(ecmaScriptSpaces))
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if got, want := isECMAScriptSpace(r), slices.Contains(ecmaScriptSpaces, r); got != want {
			t.Errorf("isECMAScriptSpace(%U) = %v, want %v", r, got, want)
		}
	}
	// The code points where Go's sets and ECMAScript's differ.
	for _, r := range []rune{0x85, 0x180E, 0x200B, 0x2060} {
		if isECMAScriptSpace(r) {
			t.Errorf("%U must not be ECMAScript whitespace", r)
		}
	}
	for _, r := range []rune{'\v', 0xFEFF} {
		if !isECMAScriptSpace(r) {
			t.Errorf("%U must be ECMAScript whitespace", r)
		}
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"ls", "ls"},
		{"git status", "git status"},
		{"  git   status  ", "git status"},
		{"git\t\tstatus\n", "git status"},
		{"\u00a0git\u3000\u2028status\ufeff", "git status"},
		{"git\v\fstatus\r", "git status"},
		{"git\u0085status", "git\u0085status"},
		{"git \u0085 status", "git \u0085 status"},
		{"git\u200bstatus", "git\u200bstatus"},
		{" \u00a0 ", ""},
		{"a\xff  b", "a\xff b"},    // invalid bytes are kept and are not space
		{"\xff\xfe", "\xff\xfe"},   // nothing but invalid bytes
		{"a\ufffd b", "a\ufffd b"}, // a real U+FFFD is an ordinary character
		{"a \xa0 b", "a \xa0 b"},   // a lone 0xA0 byte is not NBSP
	}
	for _, tt := range tests {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
