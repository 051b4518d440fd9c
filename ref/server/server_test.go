package server

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// slowTool is a Handler whose permission decisions wait for release, so a
// test holds a decision in flight for as long as it likes.
type slowTool struct {
	started chan string   // the arguments of each decision, as it starts
	release chan struct{} // closed to let every decision finish

	mu       sync.Mutex
	deciding int  // decisions in flight
	early    bool // Close came while a decision was in flight
	closed   bool
	once     sync.Once
}

func newSlowTool() *slowTool {
	return &slowTool{started: make(chan string, 8), release: make(chan struct{})}
}

// free lets every decision finish, once.
func (t *slowTool) free() { t.once.Do(func() { close(t.release) }) }

func (t *slowTool) Execute(ctx context.Context, c tool.Call) protocol.Result {
	<-ctx.Done()
	return protocol.Result{IsError: true, Text: "aborted"}
}

func (t *slowTool) Evidence([]byte, protocol.Result) []protocol.EvidenceRecord { return nil }

func (t *slowTool) Permission(rules []protocol.Rule, args []byte) protocol.PermissionAnswer {
	t.mu.Lock()
	t.deciding++
	t.mu.Unlock()
	t.started <- string(args)
	<-t.release
	t.mu.Lock()
	t.deciding--
	t.mu.Unlock()
	return protocol.PermissionAnswer{Decision: "ask", Preview: []string{string(args)}}
}

func (t *slowTool) Close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.early = t.early || t.deciding > 0
	t.closed = true
}

// testSession serves a Server on pipes: write requests to in, read responses
// with next. Responses are read as they come, so a server never blocks on
// writing one while the test writes a request.
type testSession struct {
	t     *testing.T
	in    *io.PipeWriter
	resps chan protocol.Response
	done  chan error
}

func serve(t *testing.T, h *slowTool) *testSession {
	t.Helper()
	t.Cleanup(h.free) // a failed test leaves no decision waiting
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &Server{Capabilities: []string{protocol.CapPermissions, protocol.CapAbort}, Tool: h}
	ts := &testSession{t: t, in: inW, resps: make(chan protocol.Response, 64), done: make(chan error, 1)}
	go func() {
		err := s.Serve(inR, outW)
		outW.Close()
		ts.done <- err
	}()
	go func() {
		defer close(ts.resps)
		r := protocol.NewReader(outR)
		for {
			line, err := r.Line()
			if err != nil {
				return
			}
			var resp protocol.Response
			if err := protocol.Unmarshal(line, &resp); err != nil {
				t.Errorf("response %s: %v", line, err)
				return
			}
			ts.resps <- resp
		}
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return ts
}

// send writes a request line. The bound only ends a test whose server has
// stopped reading, which a server deciding in its read loop does.
func (ts *testSession) send(line string) {
	ts.t.Helper()
	errc := make(chan error, 1)
	go func() {
		_, err := io.WriteString(ts.in, line+"\n")
		errc <- err
	}()
	select {
	case err := <-errc:
		if err != nil {
			ts.t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		ts.t.Fatalf("the server did not read %s within 30s", line)
	}
}

// next reads the next response. The bound only ends a test that would
// otherwise hang on a broken server; no passing run comes near it.
func (ts *testSession) next() protocol.Response {
	ts.t.Helper()
	select {
	case r, ok := <-ts.resps:
		if !ok {
			ts.t.Fatal("the server's output ended")
		}
		return r
	case <-time.After(30 * time.Second):
		ts.t.Fatal("no response within 30s")
	}
	return protocol.Response{}
}

// TestPermissionOffReadLoop: a request read after a permission request is
// answered while the decision is still in flight (PROTO-22).
func TestPermissionOffReadLoop(t *testing.T) {
	h := newSlowTool()
	ts := serve(t, h)
	ts.send(`{"id":"c1","type":"call","cwd":"/","arguments":{"command":"x"}}`)
	ts.send(`{"id":"p1","type":"permission","arguments":{"command":"slow"}}`)
	<-h.started // the decision is in flight, and stays so until release
	ts.send(`{"id":"a1","type":"abort","target":"c1"}`)
	ts.send(`{"id":"p2","type":"permission","arguments":{"command":"second"}}`)
	<-h.started // a second decision starts beside the first
	got := map[string]string{}
	for range 2 {
		r := ts.next()
		got[r.ID] = r.Type
	}
	if want := map[string]string{"a1": protocol.TypeAbort, "c1": protocol.TypeResult}; !equal(got, want) {
		t.Fatalf("answers while the decisions were in flight: %v, want %v", got, want)
	}
	h.free()
	for range 2 {
		r := ts.next()
		if r.Type != protocol.TypePermission || r.Permission == nil || (r.ID != "p1" && r.ID != "p2") {
			t.Fatalf("got %+v, want the permission answers", r)
		}
		if want := map[string]string{"p1": `{"command":"slow"}`, "p2": `{"command":"second"}`}[r.ID]; r.Permission.Preview[0] != want {
			t.Errorf("%s answered with the decision on %s", r.ID, r.Permission.Preview[0])
		}
	}
}

// TestShutdownAnswersDecisions: a decision in flight at shutdown or end of
// input is answered, before the shutdown answer, and the tool is closed
// only after it (PROTO-23).
func TestShutdownAnswersDecisions(t *testing.T) {
	for _, eof := range []bool{false, true} {
		h := newSlowTool()
		ts := serve(t, h)
		ts.send(`{"id":"p1","type":"permission","arguments":{"command":"slow"}}`)
		<-h.started
		if eof {
			ts.in.Close()
		} else {
			ts.send(`{"id":"s1","type":"shutdown"}`)
		}
		// A server that does not wait closes the tool and answers
		// shutdown at once; give it the chance before releasing. A loaded
		// machine can only hide such a server, never fail a right one.
		time.Sleep(100 * time.Millisecond)
		h.free()
		if r := ts.next(); r.ID != "p1" || r.Type != protocol.TypePermission {
			t.Fatalf("eof %v: first answer %+v, want p1's permission", eof, r)
		}
		if !eof {
			if r := ts.next(); r.ID != "s1" || r.Type != protocol.TypeShutdown {
				t.Fatalf("second answer %+v, want the shutdown", r)
			}
		}
		if err := <-ts.done; err != nil {
			t.Fatal(err)
		}
		h.mu.Lock()
		if !h.closed || h.early {
			t.Errorf("eof %v: tool closed %v, closed with a decision in flight %v", eof, h.closed, h.early)
		}
		h.mu.Unlock()
	}
}

// TestStrictRequests: requests are read with exact member names and the
// last of a repeated member (PROTO-20, PROTO-21), and a malformed one is
// answered under its exact id (PROTO-15).
func TestStrictRequests(t *testing.T) {
	h := newSlowTool()
	h.free()
	ts := serve(t, h)
	for _, tc := range []struct{ line, id, typ string }{
		{`{"id":"t1","TYPE":"permission","arguments":{}}`, "t1", protocol.TypeError},
		{`{"id":"t2","type":"permission","TYPE":"call","cwd":"/","arguments":{}}`, "t2", protocol.TypePermission},
		{`{"id":"t3","type":"call","type":"permission","arguments":{}}`, "t3", protocol.TypePermission},
		{`{"ID":"i1","id":5}`, "", protocol.TypeError},
		{`{"id":"i2","cwd":5}`, "i2", protocol.TypeError},
		{`{"ID":"i3","type":"abort"}`, "", protocol.TypeError},
		{`[1]`, "", protocol.TypeError},
	} {
		ts.send(tc.line)
		if r := ts.next(); r.ID != tc.id || r.Type != tc.typ {
			t.Errorf("%s: answered %s under %q, want %s under %q", tc.line, r.Type, r.ID, tc.typ, tc.id)
		}
	}
}

func equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
