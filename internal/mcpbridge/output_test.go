package mcpbridge

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestOutput reads tool texts by the two conventions a mapping can name.
func TestOutput(t *testing.T) {
	plain, err := Parse([]byte(strings.Replace(fakeMapping, `"exitCode": "status"`, `"exitLine": "exit status: (\\d+|none)"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	js, err := Parse([]byte(strings.Replace(fakeMapping, `"exitCode": "status"`, `"output": "out", "exitCode": "status"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		m    *Mapping
		text string
		out  string
		code int
		ok   bool
	}{
		{"plain with a status line", plain, "hi\nthere\nexit status: 3", "hi\nthere\n", 3, true},
		{"plain, the status line ends in a line feed", plain, "hi\nexit status: 0\n", "hi\n", 0, true},
		{"plain, no output", plain, "exit status: 42", "", 42, true},
		{"plain, no status", plain, "exit status: none", "", 0, false},
		{"plain, the line is not the last", plain, "exit status: 1\nmore", "exit status: 1\nmore", 0, false},
		{"plain, a partial match is not one", plain, "xexit status: 1", "xexit status: 1", 0, false},
		{"json", js, `{"out":"a\nb\n","status":7}`, "a\nb\n", 7, true},
		{"json, killed", js, `{"out":"a","status":null}`, "a", 0, false},
		{"json, no such member", js, `{"status":1}`, `{"status":1}`, 1, true},
		{"json, not an object", js, `MCP error -32603: boom`, `MCP error -32603: boom`, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code, ok := tc.m.output(tc.text)
			if out != tc.out || code != tc.code || ok != tc.ok {
				t.Errorf("output(%q) = %q, %d, %v; want %q, %d, %v", tc.text, out, code, ok, tc.out, tc.code, tc.ok)
			}
		})
	}
}

// TestArgumentsFixedAndDefaults checks that defaults fill what the call
// left out and fixed members replace the call's own.
func TestArgumentsFixedAndDefaults(t *testing.T) {
	m, err := Parse([]byte(strings.Replace(fakeMapping, `"cwd": "dir"}`, `"cwd": "dir", "defaults": {"limit_ms": 0, "login": true}, "fixed": {"shell": "bash"}}`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"command":"ls"}`, `{"cmd":"ls","dir":"/w","limit_ms":0,"login":true,"shell":"bash"}`},
		{`{"command":"ls","timeout":2,"login":false,"shell":"zsh"}`, `{"cmd":"ls","dir":"/w","limit_ms":2000,"login":false,"shell":"bash"}`},
		{`"ls"`, `"ls"`},
	} {
		got, err := m.toolArguments(json.RawMessage(tc.in), "/w")
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: got %s (%v), want %s", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{
		`"exitLine": "("`, `"exitLine": "no group"`, `"exitLine": "(a)(b)"`,
	} {
		if _, err := Parse([]byte(strings.Replace(fakeMapping, `"exitCode": "status"`, bad, 1))); err == nil || !strings.Contains(err.Error(), "exitLine") {
			t.Errorf("%s: got %v, want an exitLine error", bad, err)
		}
	}
}
