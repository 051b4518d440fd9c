package broken

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/apexcheck/apexcheck/protocol"
)

// The decoding variants are the reference behind a filter that reads what
// it is sent the way Go's encoding/json reads it, the mistake issue 19
// found in the reference itself: member names matched case-insensitively,
// and a repeated object merged into one struct.
func init() {
	Register("folds-member-case", Variant{
		Clause: "PROTO-20",
		Defect: "decodes requests with encoding/json into a struct, so `TYPE` is read as `type`, `Arguments` as `arguments`, and a repeated object is merged",
		// TYPE:call runs a command; Arguments replaces arguments; a
		// repeated options object keeps the first's commandPrefix.
		Scenarios: `^(proto_(core_)?member_case|proto_(core_)?duplicate_members|perm_member_case)$`,
		Serve:     filtered(foldRequest, nil),
	})
	Register("folds-argument-case", Variant{
		Clause: "CALL-11",
		Defect: "decodes tool arguments with encoding/json into a struct, so `Command` is read as `command` and `Kill` as `kill`",
		// {"Command":"touch ran"} runs; {"command":"echo real","Command":"echo decoy"} runs the decoy.
		Scenarios: `^(call_member_case|perm_member_case)$`,
		Serve:     filtered(foldArguments, nil),
	})
	Register("decides-in-read-loop", Variant{
		Clause: "PROTO-22",
		Defect: "decides a permission request before reading the next request, so an abort waits behind a slow decision",
		// The abort sent after a 900 kB permission request is answered
		// after the decision.
		Scenarios: `^proto_permission_off_read_loop$`,
		Serve:     decidingInReadLoop(),
	})
	Register("merges-repeated-objects", Variant{
		Clause: "PROTO-21",
		Defect: "reads member names exactly but decodes a repeated object into the struct the first one filled, " +
			"so `\"options\":{\"commandPrefix\":\"p\"},\"options\":{}` keeps the prefix",
		// The repeated options and session objects of proto_duplicate_members.
		Scenarios: `^(proto_(core_)?duplicate_members|perm_duplicate_members)$`,
		Serve:     filtered(mergeRepeated, nil),
	})
	Register("drops-decisions-at-shutdown", Variant{
		Clause: "PROTO-23",
		Defect: "stops writing answers once shutdown or end of input is read, so a permission decision still " +
			"running then is never answered (the session waits for its calls, whose results it lets through)",
		Scenarios: `^proto_permission_answered_at_shutdown$`,
		Serve:     droppingDecisionsAtShutdown(),
	})
}

// mergeRepeated rewrites a request as a decoder that fills one value in
// place reads it: member names exact and the last scalar winning, but an
// object given twice merged into the first. A line that is not a JSON
// object passes untouched.
func mergeRepeated(line []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	v, err := decodeMerging(dec)
	if err != nil {
		return line
	}
	if _, ok := v.(map[string]any); !ok {
		return line
	}
	out, err := json.Marshal(v)
	if err != nil {
		return line
	}
	return out
}

// decodeMerging decodes the next value of dec, merging a repeated object
// member into the object an earlier one made.
func decodeMerging(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		m := map[string]any{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeMerging(dec)
			if err != nil {
				return nil, err
			}
			name, _ := k.(string)
			old, oldObj := m[name].(map[string]any)
			if add, ok := v.(map[string]any); ok && oldObj {
				for ak, av := range add {
					old[ak] = av
				}
				continue
			}
			m[name] = v
		}
		_, err := dec.Token()
		return m, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := decodeMerging(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return tok, nil
}

// droppingDecisionsAtShutdown serves the reference behind filters that
// mark the session closing when a shutdown request or the end of input is
// read, and from then on drop every permission answer: a port whose
// writer refuses answers once the session closes, and whose shutdown
// waits for the calls in flight but not for the decisions.
func droppingDecisionsAtShutdown() func(io.Reader, io.Writer) error {
	return func(in io.Reader, out io.Writer) error {
		var closing atomic.Bool
		req := func(line []byte) []byte {
			if m, err := protocol.Members(line); err == nil && messageType(m) == protocol.TypeShutdown {
				closing.Store(true)
			}
			return line
		}
		resp := func(line []byte) []byte {
			if m, err := protocol.Members(line); err == nil && messageType(m) == protocol.TypePermission && closing.Load() {
				return nil
			}
			return line
		}
		return filtered(req, resp)(eofReader{in, func() { closing.Store(true) }}, out)
	}
}

// eofReader is a reader that calls atEOF when r reports the end of input.
type eofReader struct {
	r     io.Reader
	atEOF func()
}

func (e eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if errors.Is(err, io.EOF) {
		e.atEOF()
	}
	return n, err
}

// foldRequest reads a request as encoding/json does and writes it back
// with the exact names, so that the strict reference behind it sees what a
// folding decoder saw. A line encoding/json rejects passes untouched.
func foldRequest(line []byte) []byte {
	var req protocol.Request
	if json.Unmarshal(line, &req) != nil {
		return line
	}
	out, err := protocol.Marshal(req)
	if err != nil {
		return line
	}
	return out
}

// foldedArgs are the tool's fields as a Go port reading the arguments
// into a struct with encoding/json would declare them.
type foldedArgs struct {
	Command    json.RawMessage `json:"command,omitempty"`
	Handle     json.RawMessage `json:"handle,omitempty"`
	Kill       json.RawMessage `json:"kill,omitempty"`
	Timeout    json.RawMessage `json:"timeout,omitempty"`
	Background json.RawMessage `json:"background,omitempty"`
}

// foldArguments rewrites the object arguments of call, permission and
// render requests as encoding/json reads them into foldedArgs: each field
// from the last member whose name matches it in any case.
func foldArguments(line []byte) []byte {
	return editMessage(line, func(msg map[string]json.RawMessage) {
		switch messageType(msg) {
		case protocol.TypeCall, protocol.TypePermission, protocol.TypeRender:
		default:
			return
		}
		var args foldedArgs
		if _, err := protocol.Members(msg["arguments"]); err != nil || json.Unmarshal(msg["arguments"], &args) != nil {
			return
		}
		if out, err := json.Marshal(args); err == nil {
			msg["arguments"] = out
		}
	})
}

// decidingInReadLoop serves the reference behind a filter that passes on
// no request after a permission request until that request's answer has
// been written: from outside, a server that decides in its read loop.
func decidingInReadLoop() func(io.Reader, io.Writer) error {
	return func(in io.Reader, out io.Writer) error {
		var (
			mu      sync.Mutex
			waiting = map[string]chan struct{}{}
			last    chan struct{} // the request filter's own: one goroutine
		)
		permissionID := func(line []byte) (string, bool) {
			m, err := protocol.Members(line)
			if err != nil || messageType(m) != protocol.TypePermission {
				return "", false
			}
			var id string
			return id, json.Unmarshal(m["id"], &id) == nil
		}
		req := func(line []byte) []byte {
			if last != nil {
				<-last // the previous permission request is answered
				last = nil
			}
			if id, ok := permissionID(line); ok {
				last = make(chan struct{})
				mu.Lock()
				waiting[id] = last
				mu.Unlock()
			}
			return line
		}
		resp := func(line []byte) []byte {
			if id, ok := permissionID(line); ok {
				mu.Lock()
				if ch := waiting[id]; ch != nil {
					close(ch)
					delete(waiting, id)
				}
				mu.Unlock()
			}
			return line
		}
		return filtered(req, resp)(in, out)
	}
}
