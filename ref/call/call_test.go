package call

import (
	"math"
	"testing"
)

func TestParse(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name string
		raw  string
		want Operation
		rej  string
	}{
		{"run", `{"command":"ls"}`, Operation{Kind: Run, Command: "ls"}, ""},
		{"run with timeout and background", `{"command":"ls","timeout":2.5,"background":true}`,
			Operation{Kind: Run, Command: "ls", Timeout: f(2.5), Background: true}, ""},
		{"retrieve", `{"handle":"h"}`, Operation{Kind: Retrieve, Handle: "h"}, ""},
		{"kill", `{"handle":"h","kill":true}`, Operation{Kind: Kill, Handle: "h"}, ""},
		{"kill must be exactly true", `{"handle":"h","kill":"true"}`, Operation{Kind: Retrieve, Handle: "h"}, ""},
		{"placeholders ignored", `{"command":"ls","handle":"","timeout":null,"kill":false}`, Operation{Kind: Run, Command: "ls"}, ""},
		{"string timeout ignored", `{"command":"ls","timeout":"5"}`, Operation{Kind: Run, Command: "ls"}, ""},
		{"last duplicate wins", `{"command":"a","command":"b"}`, Operation{Kind: Run, Command: "b"}, ""},
		{"names are case-sensitive", `{"command":"ls","Command":"rm x","Handle":"h","Kill":true,"Timeout":-1,"Background":true}`,
			Operation{Kind: Run, Command: "ls"}, ""},
		{"case variant after the name", `{"Command":"rm x","command":"ls","COMMAND":"rm y"}`, Operation{Kind: Run, Command: "ls"}, ""},
		{"surrounding space", " \n{\"command\":\"ls\"}\n", Operation{Kind: Run, Command: "ls"}, ""},

		{"string", `"ls"`, Operation{}, ReasonNotObject},
		{"null", `null`, Operation{}, ReasonNotObject},
		{"number", `1`, Operation{}, ReasonNotObject},
		{"not json", `{command: ls}`, Operation{}, ReasonNotObject},
		{"empty input", ``, Operation{}, ReasonNotObject},
		{"array", `["ls"]`, Operation{}, ReasonNoOperation},
		{"ambiguous", `{"command":"ls","handle":"h"}`, Operation{}, ReasonAmbiguous},
		{"stray timeout", `{"handle":"h","timeout":0}`, Operation{}, StrayFieldsPrefix + "timeout."},
		{"stray both", `{"handle":"h","background":true,"timeout":1}`, Operation{}, StrayFieldsPrefix + "timeout, background."},
		{"kill with command", `{"command":"ls","kill":true}`, Operation{}, ReasonKillNeeds},
		{"empty handle", `{"handle":""}`, Operation{}, ReasonEmptyHandle},
		{"null handle", `{"handle":null}`, Operation{}, ReasonEmptyHandle},
		{"numeric handle", `{"handle":3}`, Operation{}, ReasonNoOperation},
		{"nothing", `{}`, Operation{}, ReasonNoOperation},
		{"case variant only", `{"Command":"ls","HANDLE":"h"}`, Operation{}, ReasonNoOperation},
		{"numeric command", `{"command":3}`, Operation{}, ReasonNoOperation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Parse([]byte(tt.raw))
			if tt.rej != "" {
				if got.OK || got.Reason != tt.rej {
					t.Fatalf("Parse(%s) = %+v, want rejection %q", tt.raw, got, tt.rej)
				}
				return
			}
			if !got.OK {
				t.Fatalf("Parse(%s) rejected: %s", tt.raw, got.Reason)
			}
			op := got.Operation
			if op.Kind != tt.want.Kind || op.Command != tt.want.Command || op.Handle != tt.want.Handle || op.Background != tt.want.Background {
				t.Fatalf("Parse(%s) = %+v, want %+v", tt.raw, op, tt.want)
			}
			if (op.Timeout == nil) != (tt.want.Timeout == nil) || (op.Timeout != nil && *op.Timeout != *tt.want.Timeout) {
				t.Fatalf("Parse(%s) timeout = %v, want %v", tt.raw, op.Timeout, tt.want.Timeout)
			}
		})
	}
}

func TestParseOverflowingNumberIsInfinity(t *testing.T) {
	got := Parse([]byte(`{"command":"ls","timeout":-1e400}`))
	if !got.OK || got.Operation.Timeout == nil || !math.IsInf(*got.Operation.Timeout, -1) {
		t.Fatalf("Parse with -1e400 = %+v, want timeout -Inf", got)
	}
}

func FuzzParseNeverPanics(f *testing.F) {
	for _, s := range []string{`{"command":"ls"}`, `{"handle":"h","kill":true}`, `[]`, `1e400`, `{"timeout":1e400}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		p := Parse(raw)
		if p.OK == (p.Reason != "") {
			t.Fatalf("Parse(%q) = %+v: exactly one of OK and Reason must be set", raw, p)
		}
		if p.OK && p.Operation.Command == "" && p.Operation.Handle == "" {
			t.Fatalf("Parse(%q) accepted an operation with neither command nor handle", raw)
		}
	})
}
