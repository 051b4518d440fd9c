package validate

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/apexcheck/apexcheck/conformance/client"
	"github.com/apexcheck/apexcheck/protocol"
)

// probe is one canned exchange of `apexcheck validate`.
type probe struct {
	name string
	// needs is the capability the request needs ("" for none).
	needs string
	req   protocol.Request
	// want is the schema definition the final response must match; every
	// update must match updateResponse.
	want string
	// invalid marks a request that is deliberately not a valid request,
	// so it is not checked against the schema itself.
	invalid bool
}

// probes are requests that make an implementation show every message
// shape it writes: a hello (the handshake), successful and failing calls,
// a rejected call, streamed updates, an abort, every optional request its
// capabilities allow, a request it cannot serve and a shutdown.
func probes(cwd string) []probe {
	call := func(args string) protocol.Request {
		return protocol.Request{Type: protocol.TypeCall, Arguments: json.RawMessage(args), Cwd: cwd}
	}
	withUpdates := call(`{"command":"echo one; sleep 0.2; echo two"}`)
	withUpdates.Updates = true
	withEvidence := call(`{"command":"echo evidence"}`)
	withEvidence.Evidence = true
	aborted := call(`{"command":"echo never"}`)
	aborted.Aborted = true
	return []probe{
		{name: "call that succeeds", req: call(`{"command":"echo hi"}`), want: "resultResponse"},
		{name: "call that exits non-zero", req: call(`{"command":"echo partial; exit 3"}`), want: "resultResponse"},
		{name: "call with no output", req: call(`{"command":"true"}`), want: "resultResponse"},
		{name: "call with truncated output", req: call(`{"command":"seq 3000"}`), want: "resultResponse"},
		{name: "call with a timeout", req: call(`{"command":"sleep 5","timeout":0.2}`), want: "resultResponse"},
		{name: "call with arguments that are not an object", req: call(`"ls"`), want: "resultResponse"},
		{name: "call in a missing directory", req: protocol.Request{Type: protocol.TypeCall,
			Arguments: json.RawMessage(`{"command":"true"}`), Cwd: filepath.Join(cwd, "missing")}, want: "resultResponse"},
		{name: "call with updates", needs: protocol.CapUpdates, req: withUpdates, want: "resultResponse"},
		{name: "call with evidence", needs: protocol.CapEvidence, req: withEvidence, want: "resultResponse"},
		{name: "call already aborted", needs: protocol.CapAbort, req: aborted, want: "resultResponse"},
		{name: "abort of an unknown call", needs: protocol.CapAbort,
			req: protocol.Request{Type: protocol.TypeAbort, Target: "no-such-call"}, want: "abortResponse"},
		{name: "render", needs: protocol.CapRender,
			req: protocol.Request{Type: protocol.TypeRender, Arguments: json.RawMessage(`{"command":"ls","timeout":5}`)}, want: "renderResponse"},
		{name: "permission", needs: protocol.CapPermissions,
			req: protocol.Request{Type: protocol.TypePermission, Arguments: json.RawMessage(`{"command":"ls"}`),
				Rules: []protocol.Rule{{Source: "user", Behavior: "allow", Content: ptr("ls")}}}, want: "permissionResponse"},
		{name: "request of an unknown type", req: protocol.Request{Type: "frobnicate"}, want: "errorResponse", invalid: true},
	}
}

func ptr[T any](v T) *T { return &v }

// MessageCheck is one message of a validation exchange and its problems.
type MessageCheck struct {
	// Exchange names the canned exchange; Direction is "request" (what
	// the runner sent, checked to keep the kit and the schema honest) or
	// "response".
	Exchange  string
	Direction string
	Line      string
	Problems  []FieldError
}

// Validation is the outcome of `apexcheck validate`.
type Validation struct {
	Implementation protocol.Implementation
	Capabilities   []string
	Checks         []MessageCheck
	// Skipped names exchanges skipped for a capability not declared.
	Skipped []string
	// Stopped, when set, says why the exchanges stopped early.
	Stopped string
}

// Errors counts the problems that are not warnings.
func (v *Validation) Errors() int {
	n := 0
	for _, c := range v.Checks {
		n += countErrors(c.Problems)
	}
	return n
}

// Run starts the implementation impl once, runs the canned exchanges and
// checks every message both ways against the schema: the hello, every
// update and final response, and the runner's own requests. bound bounds
// every wait (zero: [client.DefaultBound]); startup is the
// implementation's start-up allowance before the bound on its hello
// answer begins ([client.Options.Startup]: an MCP server behind the bridge
// has its mapping's start-up bound). It fails only when the
// implementation cannot be driven at all (no handshake, a crash, a hang
// past the bound); what it says that the schema does not allow is
// reported in the Validation.
func Run(impl []string, bound, startup time.Duration, schema *Schema) (*Validation, error) {
	if bound <= 0 {
		bound = client.DefaultBound
	}
	dir, err := os.MkdirTemp("", "apexcheck-validate-")
	if err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	defer os.RemoveAll(dir)
	env := append(os.Environ(), "HOME="+dir, "TMPDIR="+dir)
	// The lines the implementation writes, in order: requests go one at a
	// time, so the lines that arrive while one is in flight answer it.
	var mu sync.Mutex
	var lines [][]byte
	taken := 0
	take := func() [][]byte {
		mu.Lock()
		defer mu.Unlock()
		out := lines[taken:]
		taken = len(lines)
		return out
	}
	c, err := client.Start(impl, env, dir, bound, client.Options{Startup: startup, Trace: func(line []byte) {
		mu.Lock()
		lines = append(lines, line)
		mu.Unlock()
	}})
	if err != nil {
		return nil, err
	}
	defer c.Kill()
	v := &Validation{Implementation: *c.Hello.Implementation, Capabilities: c.Hello.Capabilities}
	hello := protocol.Request{ID: "r1", Type: protocol.TypeHello, Versions: []int{protocol.Version}}
	v.check(schema, "handshake", "request", mustMarshal(hello), "#/$defs/helloRequest")
	for _, line := range take() {
		v.check(schema, "handshake", "response", line, "#/$defs/helloResponse")
	}
	caps := c.Capabilities()
	var run []probe
	for _, p := range probes(dir) {
		if p.needs != "" && !caps[p.needs] {
			v.Skipped = append(v.Skipped, fmt.Sprintf("%s (needs %s)", p.name, p.needs))
			continue
		}
		run = append(run, p)
	}
	for _, p := range run {
		pending, err := c.Send(p.req)
		if err != nil {
			return v.stop(fmt.Errorf("validate: %s: %w", p.name, err))
		}
		if !p.invalid {
			v.check(schema, p.name, "request", mustMarshal(pending.Request), "#/$defs/request")
		}
		_, err = c.Await(pending, bound)
		got := take()
		for _, line := range got {
			want := "#/$defs/" + p.want
			// The type by its exact name (PROTO-20): "TYPE" is not it.
			var probe struct {
				Type string `json:"type"`
			}
			if protocol.Unmarshal(line, &probe) == nil && probe.Type == protocol.TypeUpdate {
				want = "#/$defs/updateResponse"
			}
			v.check(schema, p.name, "response", line, want)
		}
		if err != nil {
			return v.stop(fmt.Errorf("validate: %s: %w", p.name, err))
		}
	}
	shutdown, err := c.Send(protocol.Request{Type: protocol.TypeShutdown})
	if err != nil {
		return v.stop(fmt.Errorf("validate: shutdown: %w", err))
	}
	v.check(schema, "shutdown", "request", mustMarshal(shutdown.Request), "#/$defs/shutdownRequest")
	_, err = c.Await(shutdown, bound)
	for _, line := range take() {
		v.check(schema, "shutdown", "response", line, "#/$defs/shutdownResponse")
	}
	if err != nil {
		return v.stop(fmt.Errorf("validate: shutdown: %w", err))
	}
	if err := c.WaitExit(bound); err != nil {
		return v, fmt.Errorf("validate: shutdown: %w", err)
	}
	return v, nil
}

// stop ends a validation the implementation broke off. When a message
// already failed the schema, that message is the finding (the client
// cannot decode an ill-typed message, which breaks the exchange) and the
// validation is returned with the reason it stopped; otherwise the
// implementation could not be driven and err is returned.
func (v *Validation) stop(err error) (*Validation, error) {
	if v.Errors() > 0 {
		v.Stopped = err.Error()
		return v, nil
	}
	return v, err
}

// check validates one line against the response (or request) union and,
// when that passes, against the specific definition the exchange expects.
func (v *Validation) check(s *Schema, exchange, dir string, line []byte, want string) {
	union := "#/$defs/response"
	if dir == "request" {
		union = "#/$defs/request"
	}
	problems := s.ValidateJSON(union, line)
	if !HasErrors(problems) && want != union {
		if specific := s.ValidateJSON(want, line); HasErrors(specific) {
			name := want[strings.LastIndex(want, "/")+1:]
			problems = append([]FieldError{{Path: "$", Message: "is not a " + name + ", which this exchange expects:"}}, specific...)
		}
	}
	v.Checks = append(v.Checks, MessageCheck{Exchange: exchange, Direction: dir, Line: string(line), Problems: problems})
}

func mustMarshal(v any) []byte {
	data, err := protocol.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}

// WriteText writes the validation for people: every message with a
// problem, its line and its field-level problems, then a summary.
func (v *Validation) WriteText(w io.Writer, verbose bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "validating %s %s against spec/protocol.schema.json\n", v.Implementation.Name, v.Implementation.Version)
	warnings := 0
	for _, c := range v.Checks {
		warnings += len(c.Problems) - countErrors(c.Problems)
		if len(c.Problems) == 0 && !verbose {
			continue
		}
		status := "ok"
		switch {
		case HasErrors(c.Problems):
			status = "INVALID"
		case len(c.Problems) > 0:
			status = "warning"
		}
		fmt.Fprintf(&b, "%-7s %s %s: %s\n", status, c.Exchange, c.Direction, quoteLine(c.Line))
		for _, p := range c.Problems {
			fmt.Fprintf(&b, "        %s\n", p)
		}
	}
	for _, s := range v.Skipped {
		fmt.Fprintf(&b, "skipped %s\n", s)
	}
	if v.Stopped != "" {
		fmt.Fprintf(&b, "stopped early: %s\n", v.Stopped)
	}
	fmt.Fprintf(&b, "%d messages checked: %d errors, %d warnings\n", len(v.Checks), v.Errors(), warnings)
	_, err := io.WriteString(w, b.String())
	return err
}

func quoteLine(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
