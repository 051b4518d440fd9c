package mcpbridge

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apexcheck/apexcheck/internal/mcpbridge/mcpfake"
	"github.com/apexcheck/apexcheck/protocol"
	"github.com/google/go-cmp/cmp"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == mcpfake.Arg {
		os.Exit(mcpfake.Main(os.Args[2]))
	}
	os.Exit(m.Run())
}

// fakeMapping maps the kit's calls onto the fake server's run tool.
const fakeMapping = mcpfake.Mapping

// session is a bridge to the fake server, driven over the kit's protocol.
type session struct {
	t     *testing.T
	log   string
	in    *io.PipeWriter
	out   chan []byte // the bridge's output lines, closed at its end
	done  chan error
	calls int
}

func startSession(t *testing.T, mapping string) *session {
	t.Helper()
	m, err := Parse([]byte(mapping))
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "server.log")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := Start(ctx, m, []string{os.Args[0], mcpfake.Arg, log}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &session{t: t, log: log, in: inW, out: make(chan []byte, 16), done: make(chan error, 1)}
	go func() {
		defer close(s.out)
		rd := protocol.NewReader(outR)
		for {
			line, err := rd.Line()
			if err != nil {
				return
			}
			s.out <- line
		}
	}()
	go func() {
		err := b.Serve(inR, outW)
		outW.Close()
		s.done <- err
	}()
	t.Cleanup(func() {
		inW.Close()
		go func() {
			for range s.out {
			}
		}()
		// Generous: the bridge waits up to terminateWait for the server.
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			t.Error("the bridge did not stop after its input closed")
		}
	})
	return s
}

func (s *session) send(req protocol.Request) {
	s.t.Helper()
	line, err := protocol.Marshal(req)
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := s.in.Write(append(line, '\n')); err != nil {
		s.t.Fatal(err)
	}
}

// next is the bridge's next response; a bridge that answers nothing
// within the bound fails the test rather than hanging it (30 s is slack
// for a loaded machine: the fake server answers at once).
func (s *session) next() protocol.Response {
	s.t.Helper()
	var line []byte
	select {
	case l, ok := <-s.out:
		if !ok {
			s.t.Fatal("the bridge's output ended")
		}
		line = l
	case <-time.After(30 * time.Second):
		s.t.Fatal("no response from the bridge within 30s")
	}
	var resp protocol.Response
	if err := json.Unmarshal(line, &resp); err != nil {
		s.t.Fatalf("response %s: %v", line, err)
	}
	return resp
}

// call sends a call with the raw arguments and returns its answer.
func (s *session) call(args string) protocol.Response {
	s.t.Helper()
	s.calls++
	id := "c" + string(rune('0'+s.calls))
	s.send(protocol.Request{ID: id, Type: protocol.TypeCall, Arguments: json.RawMessage(args), Cwd: "/work/dir"})
	resp := s.next()
	if resp.ID != id {
		s.t.Fatalf("answer to %s has id %q", id, resp.ID)
	}
	return resp
}

// logged is what the server received, one line per message, waiting until
// it holds want (the server logs asynchronously to the bridge's answers).
func (s *session) logged(want string) string {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second) // slack for a loaded machine
	for {
		data, _ := os.ReadFile(s.log)
		if strings.Contains(string(data), want) || time.Now().After(deadline) {
			return string(data)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func intp(n int) *int { return &n }

func TestBridgeHello(t *testing.T) {
	s := startSession(t, fakeMapping)
	s.send(protocol.Request{ID: "h", Type: protocol.TypeHello, Versions: []int{protocol.Version}})
	got := s.next()
	want := protocol.Response{ID: "h", Type: protocol.TypeHello, Protocol: protocol.Version,
		// The mapping names no version: the server's serverInfo gives it.
		Implementation: &protocol.Implementation{Name: "fake-shell", Version: "9.9.9", Language: "go"},
		Capabilities:   []string{"abort"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hello (-want +got):\n%s", diff)
	}
	s.send(protocol.Request{ID: "h2", Type: protocol.TypeHello, Versions: []int{99}})
	if got := s.next(); got.Error == nil || got.Error.Code != protocol.ErrUnsupported {
		t.Errorf("hello for protocol 99: got %+v, want error unsupported", got)
	}
}

func TestBridgeSetupBeforeCalls(t *testing.T) {
	s := startSession(t, fakeMapping)
	s.call(`{"command":"true"}`)
	cwd, _ := os.Getwd()
	root, _ := json.Marshal(cwd)
	log := s.logged("tools/call")
	lines := strings.Split(strings.TrimSpace(log), "\n")
	want := []string{"initialize 2025-06-18", "notifications/initialized",
		`x/setup {"root":` + string(root) + `,"mode":"open"}`}
	if len(lines) < len(want)+1 {
		t.Fatalf("server log:\n%s", log)
	}
	if diff := cmp.Diff(want, lines[:len(want)]); diff != "" {
		t.Errorf("messages before the first call (-want +got):\n%s", diff)
	}
}

func TestBridgeCalls(t *testing.T) {
	s := startSession(t, fakeMapping)
	for _, tc := range []struct {
		name, args string
		want       protocol.Result
	}{{
		name: "renamed and scaled, cwd added",
		args: `{"command":"ls","timeout":1.5,"extra":[1]}`,
		// The text passes unchanged; the exit status is read from it;
		// isError is the tool's own.
		want: protocol.Result{IsError: true,
			Text:    `{"got":{"cmd":"ls","dir":"/work/dir","extra":[1],"limit_ms":1500},"status":7}`,
			Details: &protocol.Details{Execution: &protocol.Execution{Cwd: "/work/dir", ExitCode: intp(7)}}},
	}, {
		name: "a timeout that is not a number passes unchanged",
		args: `{"command":"ls","timeout":"5"}`,
		want: protocol.Result{IsError: true,
			Text:    `{"got":{"cmd":"ls","dir":"/work/dir","limit_ms":"5"},"status":7}`,
			Details: &protocol.Details{Execution: &protocol.Execution{Cwd: "/work/dir", ExitCode: intp(7)}}},
	}, {
		name: "a null timeout passes unchanged",
		args: `{"command":"ls","timeout":null}`,
		want: protocol.Result{IsError: true,
			Text:    `{"got":{"cmd":"ls","dir":"/work/dir","limit_ms":null},"status":7}`,
			Details: &protocol.Details{Execution: &protocol.Execution{Cwd: "/work/dir", ExitCode: intp(7)}}},
	}, {
		name: "a cwd member in the arguments wins",
		args: `{"command":"ls","dir":"/else"}`,
		want: protocol.Result{IsError: true,
			Text:    `{"got":{"cmd":"ls","dir":"/else"},"status":7}`,
			Details: &protocol.Details{Execution: &protocol.Execution{Cwd: "/work/dir", ExitCode: intp(7)}}},
	}, {
		name: "a case variant of command is another member, passed through",
		args: `{"Command":"rm x","command":"ls"}`,
		want: protocol.Result{IsError: true,
			Text:    `{"got":{"Command":"rm x","cmd":"ls","dir":"/work/dir"},"status":7}`,
			Details: &protocol.Details{Execution: &protocol.Execution{Cwd: "/work/dir", ExitCode: intp(7)}}},
	}, {
		name: "the last of a repeated member wins",
		args: `{"command":"rm x","command":"ls"}`,
		want: protocol.Result{IsError: true,
			Text:    `{"got":{"cmd":"ls","dir":"/work/dir"},"status":7}`,
			Details: &protocol.Details{Execution: &protocol.Execution{Cwd: "/work/dir", ExitCode: intp(7)}}},
	}, {
		name: "a JSON-RPC error is an error result",
		args: `{"command":"fail"}`,
		want: protocol.Result{IsError: true, Text: "MCP error -32603: boom"},
	}, {
		name: "arguments that are not an object reach the tool unchanged",
		args: `5`,
		want: protocol.Result{IsError: true, Text: "MCP error -32602: failed to deserialize parameters"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := s.call(tc.args)
			if got.Type != protocol.TypeResult || got.Result == nil {
				t.Fatalf("got %+v, want a result", got)
			}
			if diff := cmp.Diff(tc.want, *got.Result); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
	if log := s.logged(`tools/call run 5`); !strings.Contains(log, "tools/call run 5\n") {
		t.Errorf("the tool did not receive the raw arguments 5:\n%s", log)
	}
}

func TestBridgeAbortIsCancellation(t *testing.T) {
	s := startSession(t, fakeMapping)
	s.send(protocol.Request{ID: "long", Type: protocol.TypeCall, Arguments: json.RawMessage(`{"command":"hang"}`), Cwd: "/w"})
	s.logged(`"cmd":"hang"`)
	s.send(protocol.Request{ID: "a", Type: protocol.TypeAbort, Target: "long"})
	got := map[string]protocol.Response{}
	for range 2 {
		r := s.next()
		got[r.ID] = r
	}
	if got["a"].Type != protocol.TypeAbort {
		t.Errorf("abort answered %+v", got["a"])
	}
	// The server sent nothing after its cancellation, so the bridge
	// writes nothing in the tool's place (PROTO-24).
	if r := got["long"]; r.Type != protocol.TypeResult || !r.Cancelled || r.Result != nil {
		t.Errorf("aborted call answered %+v, want cancelled with no result", got["long"])
	}
	if log := s.logged("cancelled"); !strings.Contains(log, "cancelled") {
		t.Errorf("the server never received notifications/cancelled:\n%s", log)
	}

	// A call that arrives aborted is not sent, as an MCP host sends no
	// request it has cancelled: nothing runs, and it ends with no result.
	s.send(protocol.Request{ID: "pre", Type: protocol.TypeCall, Arguments: json.RawMessage(`{"command":"hang","n":2}`), Cwd: "/w", Aborted: true})
	if r := s.next(); r.ID != "pre" || !r.Cancelled || r.Result != nil {
		t.Errorf("call sent aborted answered %+v, want cancelled with no result", r)
	}
	s.call(`{"command":"after"}`)
	if log := s.logged(`"cmd":"after"`); strings.Contains(log, `"n":2`) {
		t.Errorf("the call sent aborted reached the server:\n%s", log)
	}
}

func TestBridgeRequests(t *testing.T) {
	s := startSession(t, fakeMapping)
	for _, tc := range []struct {
		req  string
		id   string
		code string
	}{
		{`{"id":"r","type":"render","arguments":{}}`, "r", protocol.ErrUnsupported},
		{`{"id":"p","type":"permission","arguments":{}}`, "p", protocol.ErrUnsupported},
		{`{"id":"x","type":"nonsense"}`, "x", protocol.ErrBadRequest},
		{`{"id":"c","type":"call","arguments":{}}`, "c", protocol.ErrBadRequest}, // no cwd
		{`{"type":"hello"}`, "", protocol.ErrBadRequest},
		// Names are exact (PROTO-20): TYPE is not type, ID is not id.
		{`{"id":"t","TYPE":"call","cwd":"/","arguments":{"command":"ls"}}`, "t", protocol.ErrBadRequest},
		{`{"ID":"i","type":"hello","versions":[1]}`, "", protocol.ErrBadRequest},
		{`{"ID":"i","id":5}`, "", protocol.ErrBadRequest},
		{`{"id":"m","type":"call","CWD":"/","arguments":{"command":"ls"}}`, "m", protocol.ErrBadRequest}, // no cwd
		{`{"id":"d","type":"call","type":"permission","arguments":{}}`, "d", protocol.ErrUnsupported},    // the last type wins
		{`[1]`, "", protocol.ErrBadRequest},
		// A line past the limit is skipped unread, so its id is unknown;
		// the session goes on (the next rows are still answered).
		{strings.Repeat(" ", protocol.MaxLine) + `{"id":"h","type":"hello","versions":[1]}`, "", protocol.ErrBadRequest},
		{`{"id":"x2","type":"nonsense"}`, "x2", protocol.ErrBadRequest},
	} {
		io.WriteString(s.in, tc.req+"\n")
		got := s.next()
		if got.Type != protocol.TypeError || got.Error.Code != tc.code || got.ID != tc.id {
			t.Errorf("%.80s: got %+v, want error %s under id %q", tc.req, got, tc.code, tc.id)
		}
	}
	s.send(protocol.Request{ID: "bye", Type: protocol.TypeShutdown})
	if got := s.next(); got.ID != "bye" || got.Type != protocol.TypeShutdown {
		t.Errorf("shutdown answered %+v", got)
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
		s.done <- nil // for the cleanup
	case <-time.After(30 * time.Second):
		t.Fatal("the bridge did not stop after shutdown")
	}
}

func TestParseRejects(t *testing.T) {
	base := map[string]any{}
	if err := json.Unmarshal([]byte(fakeMapping), &base); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		change func(m map[string]any)
		want   string
	}{
		{"unknown member", func(m map[string]any) { m["tools"] = "run" }, `unknown member "tools"`},
		{"miscased member", func(m map[string]any) { m["Tool"] = m["tool"]; delete(m, "tool") }, `unknown member "Tool"`},
		{"miscased nested member", func(m map[string]any) {
			a := m["arguments"].(map[string]any)
			a["Command"] = a["command"]
		}, `unknown member "arguments.Command"`},
		{"no tool", func(m map[string]any) { delete(m, "tool") }, "tool is empty"},
		{"bad unit", func(m map[string]any) {
			m["arguments"].(map[string]any)["timeout"] = map[string]any{"name": "t", "unit": "min"}
		}, `unit "min"`},
		{"a capability the bridge cannot serve", func(m map[string]any) { m["capabilities"] = []string{"abort", "render"} }, `capability "render"`},
		{"bad rpcError", func(m map[string]any) { m["result"].(map[string]any)["rpcError"] = "ignore" }, "rpcError"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := map[string]any{}
			b, _ := json.Marshal(base)
			json.Unmarshal(b, &m)
			tc.change(m)
			b, _ = json.Marshal(m)
			_, err := Parse(b)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse: %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if _, err := Parse([]byte(fakeMapping)); err != nil {
		t.Errorf("Parse of the fake mapping: %v", err)
	}
}

// TestServerAtFault checks that a server's own breakage is named as the
// server's, with what it did, not as a JSON decoder's complaint.
func TestServerAtFault(t *testing.T) {
	m, err := Parse([]byte(fakeMapping))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, script, want string
	}{
		{"not JSON", `read line; echo 'hello, I am a server'; cat >/dev/null`, `the server wrote a line that is not JSON-RPC: "hello, I am a server"`},
		{"exits", `read line; exit 4`, `the server closed its stdout and exit status 4`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err := Start(ctx, m, []string{"sh", "-c", tc.script}, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}
