package linediff

import (
	"fmt"
	"strings"
	"testing"
)

func TestLineDiff(t *testing.T) {
	seq := func(from, to int) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			fmt.Fprintln(&b, i)
		}
		return b.String()
	}
	tests := []struct {
		name, want, got, diff string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"neither ends in a newline", "a", "b", "@@ -1,1 +1,1 @@\n-a\n+b"},
		{"one line", "hi\n", "nope\n", "@@ -1,1 +1,1 @@\n-hi\n+nope"},
		{"final newline", "hi", "hi\n", "@@ -1,1 +1,1 @@\n-hi ⟨no newline at end⟩\n+hi"},
		{"control characters", "a\x1b[0m\n", "a\n", "@@ -1,1 +1,1 @@\n-\"a\\x1b[0m\"\n+a"},
		{"empty want", "", "x\n", "@@ -1,0 +1,1 @@\n+x"},
		{"a change in a long text keeps 3 lines of context",
			seq(1, 2000), seq(1, 999) + "x\n" + seq(1001, 2000),
			"@@ -997,7 +997,7 @@\n 997\n 998\n 999\n-1000\n+x\n 1001\n 1002\n 1003"},
		{"two distant changes are two hunks",
			seq(1, 20), "0\n" + seq(2, 19) + "y\n",
			"@@ -1,4 +1,4 @@\n-1\n+0\n 2\n 3\n 4\n@@ -17,4 +17,4 @@\n 17\n 18\n 19\n-20\n+y"},
		{"an insertion", "a\nc\n", "a\nb\nc\n", "@@ -1,2 +1,3 @@\n a\n+b\n c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Diff(tt.want, tt.got, 3); got != tt.diff {
				t.Errorf("Diff =\n%s\nwant\n%s", got, tt.diff)
			}
		})
	}
}
