package permission

import (
	"slices"
	"testing"
	"unicode"
)

func TestECMAScriptSpaceSet(t *testing.T) {
	if len(ECMAScriptSpaces) != 25 {
		t.Fatalf("ECMAScriptSpaces has %d code points, want 25", len(ECMAScriptSpaces))
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if got, want := isECMAScriptSpace(r), slices.Contains(ECMAScriptSpaces, r); got != want {
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
