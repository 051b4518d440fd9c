package client

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/apexcheck/apexcheck/protocol"
)

// startFake starts a shell implementation that completes the handshake and
// answers the first request after it with answer.
func startFake(t *testing.T, answer string) *Client {
	t.Helper()
	script := `read -r hello
echo '{"id":"r1","type":"hello","protocol":1,"implementation":{"name":"fake","version":"0","language":"sh"},"capabilities":[]}'
read -r req
echo '` + answer + `'
read -r rest`
	c, err := Start([]string{"sh", "-c", script}, os.Environ(), t.TempDir(), 20*time.Second, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Kill() })
	return c
}

var call = protocol.Request{Type: protocol.TypeCall, Cwd: "/", Arguments: []byte(`{"command":"true"}`)}

// TestMiscasedTypeIsNotAResult: a response whose only type member is
// "TYPE" is not a result, as JSON.parse would not read one (PROTO-20);
// the error says the implementation sent TYPE, not type.
func TestMiscasedTypeIsNotAResult(t *testing.T) {
	c := startFake(t, `{"ID":"r2","TYPE":"result","result":{"text":"x"}}`)
	resp, err := c.Roundtrip(call, 20*time.Second)
	if err == nil {
		t.Fatalf("read %+v as a response", resp)
	}
	if !errors.Is(err, ErrBroken) {
		t.Errorf("error %v does not wrap ErrBroken", err)
	}
	for _, want := range []string{"the implementation sent stdout line 2", "not a protocol message",
		"with member ID, not id, member TYPE, not type", `\"TYPE\":\"result\"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not contain %q:\n%v", want, err)
		}
	}
}

// TestMiscasedIDIsNotTheID: "ID" does not carry the id; the error names it.
func TestMiscasedIDIsNotTheID(t *testing.T) {
	c := startFake(t, `{"ID":"r2","type":"result","result":{"text":"x"}}`)
	_, err := c.Roundtrip(call, 20*time.Second)
	if err == nil || !strings.Contains(err.Error(), `unknown id ""`) || !strings.Contains(err.Error(), "member ID, not id") {
		t.Fatalf("error %v, want one about an unknown id naming member ID", err)
	}
}

// TestMiscasedIsErrorIsNotTheFlag: "IsError":true does not make the result
// an error, and CaseNote names the member for the scenario's failure.
func TestMiscasedIsErrorIsNotTheFlag(t *testing.T) {
	c := startFake(t, `{"id":"r2","type":"result","result":{"text":"x","IsError":true}}`)
	p, err := c.Send(call)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Await(p, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Result == nil || resp.Result.IsError {
		t.Fatalf("result %+v: IsError taken for isError", resp.Result)
	}
	if note := p.CaseNote(); !strings.Contains(note, "the implementation sent it with member result.IsError, not result.isError") {
		t.Errorf("CaseNote = %q", note)
	}
}

// TestCaseNoteOnlyWhenTheRealMemberIsMissing: a miscased member beside the
// real one changes nothing and is not noted.
func TestCaseNoteOnlyWhenTheRealMemberIsMissing(t *testing.T) {
	if got := miscased([]byte(`{"id":"r2","type":"result","TYPE":"error","result":{"text":"x","isError":false,"IsError":true}}`)); len(got) != 0 {
		t.Errorf("miscased = %q, want none", got)
	}
}
