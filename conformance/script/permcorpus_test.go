package script

import (
	"strings"
	"testing"
)

func TestExpectedRuleForCall(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		entry permCommand
		want  *string
	}{
		{permCommand{Want: "unknown"}, nil},
		{permCommand{Want: "segments", Segments: []string{"ls", "pwd"}}, nil},
		{permCommand{Want: "segments", Segments: []string{"git   status  -s"}}, str("git status -s")},
		{permCommand{Want: "segments", Segments: []string{"echo  'a  b'"}}, str("echo  'a  b'")},
		{permCommand{Want: "segments", Segments: []string{"ls\t-la"}}, str("ls\t-la")},
		{permCommand{Want: "segments", Segments: []string{"ls  #x"}}, str("ls  #x")},
	}
	for _, tt := range tests {
		got := expectedRuleForCall(tt.entry)
		if (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
			t.Errorf("expectedRuleForCall(%q) = %s, want %s", tt.entry.Segments, jsonText(got), jsonText(tt.want))
		}
	}
}

func TestCitePattern(t *testing.T) {
	re := citePattern("PERM-3, PERM-9")
	for reason, want := range map[string]bool{
		"PERM-3: every segment":        true,
		"PERM-36: command outranks":    false,
		"see PERM-9 and PERM-39":       true,
		"PERM-39: unknown":             false,
		"PERM-30; PERM-3 also applies": true,
	} {
		if got := re.MatchString(reason); got != want {
			t.Errorf("cites PERM-3 or PERM-9 in %q = %v, want %v", reason, got, want)
		}
	}
	if citePattern("") != nil {
		t.Error("an empty list must select everything")
	}
}

func TestDescribeRule(t *testing.T) {
	h, ls := backgroundHandleRule, `ls "x"`
	for _, tt := range []struct {
		content *string
		want    string
	}{
		{nil, ""},
		{&h, "Retrieve or kill background shell commands"},
		{&ls, `Run bash commands matching "ls "x""`},
	} {
		if got := describeRule(tt.content); got != tt.want {
			t.Errorf("describeRule(%s) = %q, want %q", jsonText(tt.content), got, tt.want)
		}
	}
}

func TestShowShortensOnRuneBoundary(t *testing.T) {
	long := strings.Repeat("é", 200)
	got := show(long)
	if !strings.HasSuffix(got, "…(400 bytes)") || strings.Contains(got, `\x`) {
		t.Errorf("show of a long string = %s", got)
	}
	if show("ls") != `"ls"` {
		t.Errorf("show(ls) = %s", show("ls"))
	}
}
