package protocol

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnmarshalRequest(t *testing.T) {
	tru := true
	tests := []struct {
		name string
		line string
		want Request
	}{
		{"exact names", `{"id":"a","type":"call","cwd":"/w","arguments":{"command":"ls"}}`,
			Request{ID: "a", Type: "call", Cwd: "/w", Arguments: json.RawMessage(`{"command":"ls"}`)}},
		{"case variant is unknown", `{"id":"a","TYPE":"call","Cwd":"/w","Arguments":{"command":"ls"}}`,
			Request{ID: "a"}},
		{"case variant after the member", `{"id":"a","type":"permission","TYPE":"call","arguments":{"command":"rm x"},"Arguments":{"command":"ls"}}`,
			Request{ID: "a", Type: "permission", Arguments: json.RawMessage(`{"command":"rm x"}`)}},
		{"case variant before the member", `{"Arguments":{"command":"ls"},"arguments":{"command":"rm x"},"TYPE":"call","type":"permission","id":"a"}`,
			Request{ID: "a", Type: "permission", Arguments: json.RawMessage(`{"command":"rm x"}`)}},
		{"nested case variant", `{"id":"a","options":{"CommandPrefix":"p","shellPath":"/s"},"session":{"ID":"x"},"rules":[{"Source":"u","behavior":"allow"}]}`,
			Request{ID: "a", Options: &ToolOptions{ShellPath: "/s"}, Session: &Session{}, Rules: []Rule{{Behavior: "allow"}}}},
		{"last duplicate wins", `{"id":"a","id":"b","type":"call","type":"abort","target":"x","target":"y"}`,
			Request{ID: "b", Type: "abort", Target: "y"}},
		{"duplicate object replaces, not merges", `{"id":"a","options":{"commandPrefix":"p","exposeSessionEnvironment":false},"options":{"shellPath":"/s"}}`,
			Request{ID: "a", Options: &ToolOptions{ShellPath: "/s"}}},
		{"duplicate session replaces", `{"id":"a","session":{"id":"s1","file":"f"},"session":{"id":"s2"}}`,
			Request{ID: "a", Session: &Session{ID: "s2"}}},
		{"duplicate rules replace", `{"id":"a","rules":[{"source":"u","behavior":"allow"}],"rules":[]}`,
			Request{ID: "a", Rules: []Rule{}}},
		{"duplicate raw arguments", `{"id":"a","arguments":{"command":"rm x"},"arguments":{"command":"ls"}}`,
			Request{ID: "a", Arguments: json.RawMessage(`{"command":"ls"}`)}},
		{"null object member", `{"id":"a","options":{"commandPrefix":"p"},"options":null}`,
			Request{ID: "a"}},
		{"pointer to bool", `{"id":"a","options":{"exposeSessionEnvironment":true}}`,
			Request{ID: "a", Options: &ToolOptions{ExposeSessionEnvironment: &tru}}},
		{"unknown members ignored", `{"id":"a","fromTheFuture":{"x":1},"type":"hello","versions":[1]}`,
			Request{ID: "a", Type: "hello", Versions: []int{1}}},
		{"escaped name is the name", `{"\u0069d":"a"}`, Request{ID: "a"}},
		{"null", `null`, Request{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Request
			if err := Unmarshal([]byte(tt.line), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnmarshalErrors(t *testing.T) {
	tests := []struct {
		line, want string
	}{
		{`not json`, "invalid character"},
		{`{"id":"a"`, "unexpected end"},
		{`{"id":7}`, `member "id"`},
		{`{"id":"a","cwd":7}`, `member "cwd"`},
		{`{"id":"a","options":{"shellPath":1}}`, `member "options.shellPath"`},
		{`{"id":"a","options":"x"}`, `member "options"`},
		{`{"id":"a","rules":[{"behavior":false}]}`, `member "rules[0].behavior"`},
		{`{"id":"a","rules":{}}`, `member "rules"`},
		{`[1]`, "cannot unmarshal array"},
	}
	for _, tt := range tests {
		var req Request
		err := Unmarshal([]byte(tt.line), &req)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Unmarshal(%s) = %v, want an error containing %q", tt.line, err, tt.want)
		}
	}
	var req Request
	if err := Unmarshal([]byte(`{}`), req); err == nil {
		t.Error("Unmarshal into a non-pointer succeeded")
	}
}

func TestUnmarshalKnown(t *testing.T) {
	type inner struct {
		Name string `json:"name"`
		Skip string `json:"-"`
	}
	type config struct {
		Inner inner             `json:"inner"`
		Notes map[string]string `json:"notes"`
		Plain string
		List  []*inner `json:"list"`
	}
	var c config
	if err := UnmarshalKnown([]byte(`{"inner":{"name":"n"},"notes":{"A":"x","a":"y"},"Plain":"p","list":[{"name":"l"},null]}`), &c); err != nil {
		t.Fatal(err)
	}
	want := config{Inner: inner{Name: "n"}, Notes: map[string]string{"A": "x", "a": "y"}, Plain: "p", List: []*inner{{Name: "l"}, nil}}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, bad := range []string{`{"Inner":{}}`, `{"inner":{"Name":"n"}}`, `{"plain":"p"}`, `{"list":[{"nmae":"x"}]}`, `{"inner":{"-":"x"}}`} {
		if err := UnmarshalKnown([]byte(bad), &c); err == nil || !strings.Contains(err.Error(), "unknown member") {
			t.Errorf("UnmarshalKnown(%s) = %v, want an unknown member", bad, err)
		}
	}
}

func TestMembers(t *testing.T) {
	m, err := Members([]byte(`{"command":"rm x","Command":"ls","command":"echo last","x":{"a":1,"a":2}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]json.RawMessage{"command": json.RawMessage(`"echo last"`), "Command": json.RawMessage(`"ls"`), "x": json.RawMessage(`{"a":1,"a":2}`)}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, bad := range []string{`[]`, `"x"`, `null`, `{`, ``} {
		if _, err := Members([]byte(bad)); err == nil {
			t.Errorf("Members(%q) succeeded", bad)
		}
	}
}
