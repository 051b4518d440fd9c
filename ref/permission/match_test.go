package permission

import (
	"strings"
	"testing"
)

// TestSegmentMatchesRuleDirect covers matcher inputs the wire corpus cannot
// carry, because their segment is not a command that classifies as itself
// (Unicode spaces, CR and untrimmed text in the segment). rules.json covers
// the rest.
func TestSegmentMatchesRuleDirect(t *testing.T) {
	tests := []struct {
		segment, rule string
		want          bool
	}{
		{"git\u00a0status", "git status", true},  // both sides normalise
		{"git status\u3000", "git status", true}, // trailing U+3000 trimmed
		{"ls\r", "ls", true},                     // the trim a CR-refusing segmenter guards against
		{"git\u0085status", "git status", false}, // U+0085 is text
		{" ls ", "ls", true},                     // non-sensitive: trimmed
		{" ls ", "ls:*", true},                   // …also before the prefix test
		{" 'ls' ", "'ls'", false},                // sensitive: not trimmed
		{"ls\u00a0-la", "ls:*", true},            // NBSP normalised into a word boundary
		{"ls\u00a0'a'", "ls:*", false},           // …but not when the compare is raw
		{"ls", ":*", false},                      // empty prefix
		{"", "", true},                           // equal empty text
		{"", ":*", false},                        // empty prefix even against empty text
		{"a\xff b", "a\xff:*", true},             // invalid bytes compare as bytes
		{"a\xffb", "a\xfe:*", false},             // different invalid bytes differ
		{"echo \U0001F600 x", "echo \U0001F600:*", true},
	}
	for _, tt := range tests {
		if got := SegmentMatchesRule(tt.segment, tt.rule); got != tt.want {
			t.Errorf("SegmentMatchesRule(%q, %q) = %v, want %v", tt.segment, tt.rule, got, tt.want)
		}
	}
}

func TestGrammarSensitive(t *testing.T) {
	for _, s := range []string{`"`, `'`, `\`, "\t", "\n", "#", "a#b"} {
		if !GrammarSensitive(s) {
			t.Errorf("GrammarSensitive(%q) = false", s)
		}
	}
	for _, s := range []string{"", "ls -la", "\r", "\v", "\u00a0", "`", "$", ";"} {
		if GrammarSensitive(s) {
			t.Errorf("GrammarSensitive(%q) = true", s)
		}
	}
	// Long texts take another path: each character, first and last.
	long := strings.Repeat("ls -la `$;\r ", 30)
	if GrammarSensitive(long) {
		t.Errorf("GrammarSensitive of %d bytes without one = true", len(long))
	}
	for _, c := range grammarSensitive {
		for _, s := range []string{string(c) + long, long + string(c)} {
			if !GrammarSensitive(s) {
				t.Errorf("GrammarSensitive of %d bytes with %q = false", len(s), c)
			}
		}
	}
}
