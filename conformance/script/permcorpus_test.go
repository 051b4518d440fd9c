package script

import (
	"io/fs"
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

// TestCorpusMemberNamesAreExact: a corpus entry's "Command" is an unknown
// member, an error, never the entry's command; the embedded corpus parses.
func TestCorpusMemberNamesAreExact(t *testing.T) {
	if got, err := parseCorpus[permCommand]([]byte(`[{"command":"ls","want":"unknown","class":"c","reason":"r"}]`)); err != nil || got[0].Command != "ls" {
		t.Fatalf("parseCorpus = %+v, %v", got, err)
	}
	for _, tt := range []struct{ data, member string }{
		{`[{"Command":"rm -rf /","want":"unknown","class":"c","reason":"r"}]`, `"[0].Command"`},
		{`[{"rule":"ls:*","segment":"ls","Match":true,"reason":"r"}]`, `"[0].Match"`},
		{`[{"rules":[{"source":"s","Behavior":"deny"}],"arguments":{},"decision":"ask","reason":"r"}]`, `"[0].rules[0].Behavior"`},
	} {
		var err error
		switch {
		case strings.Contains(tt.data, `"rules"`):
			_, err = parseCorpus[permEngineEntry]([]byte(tt.data))
		case strings.Contains(tt.data, `"rule"`):
			_, err = parseCorpus[permRuleEntry]([]byte(tt.data))
		default:
			_, err = parseCorpus[permCommand]([]byte(tt.data))
		}
		if err == nil || !strings.Contains(err.Error(), tt.member) || !strings.Contains(err.Error(), "exact") {
			t.Errorf("parseCorpus(%s) = %v, want an error naming member %s", tt.data, err, tt.member)
		}
	}
	for name, parse := range map[string]func([]byte) error{
		"commands.json": func(b []byte) error { _, err := parseCorpus[permCommand](b); return err },
		"rules.json":    func(b []byte) error { _, err := parseCorpus[permRuleEntry](b); return err },
		"engine.json":   func(b []byte) error { _, err := parseCorpus[permEngineEntry](b); return err },
	} {
		data, err := fs.ReadFile(permCorpus, name)
		if err != nil {
			t.Fatal(err)
		}
		if err := parse(data); err != nil {
			t.Errorf("embedded %s: %v", name, err)
		}
	}
}
