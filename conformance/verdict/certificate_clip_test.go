package verdict

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"eleven chars", 10, "eleven ch…"},
		{"ééééé", 3, "éé…"},
	} {
		if got := clip(tc.in, tc.n); got != tc.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
	long := strings.Repeat("0", 1<<20)
	if got := clip(long, maxReasonRunes); utf8.RuneCountInString(got) != maxReasonRunes {
		t.Errorf("clip of 1 MiB kept %d runes, want %d", utf8.RuneCountInString(got), maxReasonRunes)
	}
}
