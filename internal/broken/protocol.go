package broken

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/server"
)

// The protocol variants are the reference behind a session layer written
// again with one mistake of protocol.md each: the reading of lines, the
// bookkeeping of ids, the options a call carries, the order of the last
// answers. Each is the layer a port writes around its tool, and none
// touches the tool itself.
func init() {
	Register("scanner-64k", Variant{
		Clause: "PROTO-1",
		Defect: "reads requests with bufio.Scanner's default 64 KiB buffer, so a longer line ends the reading " +
			"as if input had ended",
		Scenarios: `^proto_(long_line|line_too_long)$`,
		Serve: func(in io.Reader, out io.Writer) error {
			return server.Reference().Serve(scannedLines(in), out)
		},
	})
	Register("capabilities-object", Variant{
		Clause:    "PROTO-4",
		Defect:    "declares its capabilities as an object of flags (`{\"render\":true}`), not as the list of names",
		Scenarios: `^proto_handshake$`,
		Serve: interposed(nil, func(m map[string]json.RawMessage) bool {
			if messageType(m) == protocol.TypeHello {
				var caps []string
				json.Unmarshal(m["capabilities"], &caps)
				flags := map[string]bool{}
				for _, c := range caps {
					flags[c] = true
				}
				m["capabilities"], _ = json.Marshal(flags)
			}
			return true
		}),
	})
	Register("duplicate-id-runs", Variant{
		Clause: "PROTO-5",
		Defect: "keys the calls in flight by a counter of its own, so a call whose id is in flight runs beside " +
			"the first and both answer under that id",
		Scenarios: `^proto_duplicate_id$`,
		Serve:     duplicateIDRuns(),
	})
	Register("session-merged", Variant{
		Clause: "PROTO-7",
		Defect: "keeps the session context on the tool and merges each call's into it (Object.assign), so a " +
			"call's session carries members an earlier call gave",
		Scenarios: `^exec_session_env$`,
		Serve:     sessionMerged(),
	})
	Register("failure-as-error", Variant{
		Clause: "PROTO-8",
		Defect: "answers a tool call that fails (the seed's tool throws) with a protocol error carrying the " +
			"text, where it is a result with isError true",
		Scenarios: `^exec_(exit_code|core_exit_status)$`,
		Serve: interposed(nil, func(m map[string]json.RawMessage) bool {
			var r protocol.Result
			if messageType(m) == protocol.TypeResult && json.Unmarshal(m["result"], &r) == nil && r.IsError {
				e, _ := json.Marshal(protocol.Error{Code: protocol.ErrBadRequest, Message: r.Text})
				delete(m, "result")
				m["type"], m["error"] = json.RawMessage(`"error"`), e
			}
			return true
		}),
	})
	Register("exit-code-omitted-when-null", Variant{
		Clause: "PROTO-8",
		Defect: "builds details.execution with exitCode: code ?? undefined, so JSON.stringify drops the member " +
			"when the command did not run to an exit status, where it must be present and null",
		Scenarios: `^exec_(abort_running|timeout_kills_tree)$`,
		Serve: interposed(nil, func(m map[string]json.RawMessage) bool {
			if messageType(m) != protocol.TypeResult {
				return true
			}
			m["result"] = editObject(m["result"], func(r map[string]json.RawMessage) {
				if r["details"] == nil {
					return
				}
				r["details"] = editObject(r["details"], func(d map[string]json.RawMessage) {
					if d["execution"] == nil {
						return
					}
					d["execution"] = editObject(d["execution"], func(e map[string]json.RawMessage) {
						if string(e["exitCode"]) == "null" {
							delete(e, "exitCode")
						}
					})
				})
			})
			return true
		}),
	})
	Register("partial-omitted-when-false", Variant{
		Clause: "OUT-8",
		Defect: "serializes truncation with defaults left out (Rust's skip_serializing_if, a Python asdict " +
			"filtered of false), so lastLinePartial is absent whenever it is false, where every member is present",
		Scenarios: `^output_(line_limit|byte_limit|updates)$`,
		Serve: interposed(nil, func(m map[string]json.RawMessage) bool {
			if t := messageType(m); t != protocol.TypeResult && t != protocol.TypeUpdate {
				return true
			}
			m["result"] = editObject(m["result"], func(r map[string]json.RawMessage) {
				if r["details"] == nil {
					return
				}
				r["details"] = editObject(r["details"], func(d map[string]json.RawMessage) {
					if d["truncation"] == nil {
						return
					}
					d["truncation"] = editObject(d["truncation"], func(tr map[string]json.RawMessage) {
						if string(tr["lastLinePartial"]) == "false" {
							delete(tr, "lastLinePartial")
						}
					})
				})
			})
			return true
		}),
	})
	Register("shutdown-answered-first", Variant{
		Clause: "PROTO-9",
		Defect: "answers shutdown as soon as it reads it and then aborts the calls in flight, whose results " +
			"follow the shutdown answer",
		Scenarios: `^proto_(shutdown_aborts_calls|core_shutdown)$`,
		Serve:     shutdownAnsweredFirst(),
	})
	Register("exits-at-eof", Variant{
		Clause: "PROTO-10",
		Defect: "exits as soon as its input ends (process.stdin.on('end', exit)), leaving the commands it " +
			"started running",
		Scenarios: `^proto_(stdin_close|core_stdin_close)$`,
		Serve: func(in io.Reader, out io.Writer) error {
			return server.Reference().Serve(eofReader{in, func() { os.Exit(0) }}, out)
		},
	})
	Register("updates-unasked", Variant{
		Clause:    "PROTO-11",
		Defect:    "streams updates for every call, whether or not it asked for them",
		Scenarios: `^proto_updates_only_when_asked$`,
		Serve:     callsWith("updates"),
	})
	Register("abort-unknown-error", Variant{
		Clause:    "PROTO-12",
		Defect:    "answers an abort whose target is not in flight with an error, as a lookup that fails does",
		Scenarios: `^proto_(abort_unknown_target|core_abort_unknown)$`,
		Serve:     abortUnknownError(),
	})
	Register("permission-needs-rules", Variant{
		Clause: "PROTO-13",
		Defect: "answers a permission request without `rules` bad-request, reading the member as required " +
			"where absent means none",
		Scenarios: `^(perm_duplicate_members|proto_permission_request)$`,
		Serve: interposedRequests(func(m map[string]json.RawMessage, reply func(protocol.Response)) bool {
			if messageType(m) == protocol.TypePermission && m["rules"] == nil {
				reply(errorResponse(idOf(m), protocol.ErrBadRequest, "permission request has no rules"))
				return false
			}
			return true
		}),
	})
	Register("render-styled", Variant{
		Clause:    "PROTO-14",
		Defect:    "answers render with the header as the terminal shows it, bold escape sequences included",
		Scenarios: `^proto_render_runs_nothing$`,
		Serve: interposed(nil, func(m map[string]json.RawMessage) bool {
			if messageType(m) == protocol.TypeRender {
				var h string
				json.Unmarshal(m["header"], &h)
				m["header"], _ = json.Marshal("\x1b[1m" + h + "\x1b[22m")
			}
			return true
		}),
	})
	Register("bad-request-without-id", Variant{
		Clause:    "PROTO-15",
		Defect:    "answers every bad request under the id \"\", even when the line is an object with a string id",
		Scenarios: `^proto_(bad_requests|core_requests)$`,
		Serve: interposed(nil, func(m map[string]json.RawMessage) bool {
			var e protocol.Error
			if messageType(m) == protocol.TypeError && json.Unmarshal(m["error"], &e) == nil && e.Code == protocol.ErrBadRequest {
				m["id"] = json.RawMessage(`""`)
			}
			return true
		}),
	})
	Register("evidence-unasked", Variant{
		Clause:    "PROTO-16",
		Defect:    "attaches the evidence records to every result, whether or not the call asked for them",
		Scenarios: `^proto_evidence_on_request$`,
		Serve:     callsWith("evidence"),
	})
	Register("rejects-unknown-members", Variant{
		Clause: "PROTO-18",
		Defect: "decodes requests with unknown members refused (DisallowUnknownFields), so a member of a later " +
			"protocol version makes the request bad-request",
		Scenarios: `^proto_(bad_requests|core_requests)$`,
		Serve: interposedRequests(func(m map[string]json.RawMessage, reply func(protocol.Response)) bool {
			for name := range m {
				if !slices.Contains(requestMembers, name) {
					reply(errorResponse(idOf(m), protocol.ErrBadRequest, "unknown member "+name))
					return false
				}
			}
			return true
		}),
	})
}

// requestMembers are the members a request may have (protocol.md).
var requestMembers = []string{"type", "id", "versions", "arguments", "cwd", "options", "session", "updates",
	"evidence", "aborted", "target", "rules"}

// scannedLines is in read line by line with a bufio.Scanner of the default
// buffer, which stops at the first line longer than 64 KiB.
func scannedLines(in io.Reader) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			if _, err := pw.Write(append(slices.Clone(sc.Bytes()), '\n')); err != nil {
				return
			}
		}
		if err := sc.Err(); err != nil {
			fmt.Fprintln(os.Stderr, "read request:", err)
		}
		pw.Close()
	}()
	return pr
}

// interposedWith serves the reference behind a session layer that passes each
// request to req and each response to resp, decoded as objects: each may
// edit the message, and drops it by returning false. reply, given to
// req, answers a request in the layer's place.
func interposedWith(req func(m map[string]json.RawMessage, reply func(protocol.Response)) bool,
	resp func(m map[string]json.RawMessage) bool) func(io.Reader, io.Writer) error {
	return func(in io.Reader, out io.Writer) error {
		var mu sync.Mutex
		write := func(line []byte) {
			mu.Lock()
			defer mu.Unlock()
			out.Write(append(slices.Clone(line), '\n'))
		}
		reply := func(r protocol.Response) {
			if b, err := protocol.Marshal(r); err == nil {
				write(b)
			}
		}
		rr, rw := io.Pipe()
		go func() {
			br := bufio.NewReader(in)
			for {
				line, err := br.ReadBytes('\n')
				if len(line) > 0 {
					line = bytes.TrimSuffix(line, []byte("\n"))
					if req != nil {
						line = filterMessage(line, func(m map[string]json.RawMessage) bool { return req(m, reply) })
					}
					if line != nil {
						if _, werr := rw.Write(append(line, '\n')); werr != nil {
							return
						}
					}
				}
				if err != nil {
					if errors.Is(err, io.EOF) {
						err = nil
					}
					rw.CloseWithError(err)
					return
				}
			}
		}()
		pr, pw := io.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			br := bufio.NewReader(pr)
			for {
				line, err := br.ReadBytes('\n')
				if len(line) > 0 {
					line = bytes.TrimSuffix(line, []byte("\n"))
					if resp != nil {
						line = filterMessage(line, resp)
					}
					if line != nil {
						write(line)
					}
				}
				if err != nil {
					return
				}
			}
		}()
		err := server.Reference().Serve(rr, pw)
		pw.Close()
		<-done
		return err
	}
}

// interposed is interposedWith for a layer that never answers in the
// reference's place.
func interposed(req, resp func(m map[string]json.RawMessage) bool) func(io.Reader, io.Writer) error {
	var r func(map[string]json.RawMessage, func(protocol.Response)) bool
	if req != nil {
		r = func(m map[string]json.RawMessage, _ func(protocol.Response)) bool { return req(m) }
	}
	return interposedWith(r, resp)
}

// interposedRequests is interposedWith for a layer that sees requests only.
func interposedRequests(req func(m map[string]json.RawMessage, reply func(protocol.Response)) bool) func(io.Reader, io.Writer) error {
	return interposedWith(req, nil)
}

// filterMessage decodes line as an object with exact member names, lets
// keep edit it, and encodes it again; it returns nil when keep drops it.
// A line that is not an object passes untouched.
func filterMessage(line []byte, keep func(map[string]json.RawMessage) bool) []byte {
	m, err := protocol.Members(line)
	if err != nil || m == nil {
		return line
	}
	if !keep(m) {
		return nil
	}
	out, err := protocol.Marshal(m)
	if err != nil {
		return line
	}
	return out
}

// editObject lets edit change the members of the object raw, and encodes
// it again; anything else is returned untouched.
func editObject(raw json.RawMessage, edit func(map[string]json.RawMessage)) json.RawMessage {
	m, err := protocol.Members(raw)
	if err != nil || m == nil {
		return raw
	}
	edit(m)
	out, err := protocol.Marshal(m)
	if err != nil {
		return raw
	}
	return out
}

// idOf is a decoded message's string id, or "".
func idOf(m map[string]json.RawMessage) string {
	var id string
	json.Unmarshal(m["id"], &id)
	return id
}

// callsWith serves the reference with the boolean member name set on every
// call.
func callsWith(name string) func(io.Reader, io.Writer) error {
	return interposed(func(m map[string]json.RawMessage) bool {
		if messageType(m) == protocol.TypeCall {
			m[name] = json.RawMessage("true")
		}
		return true
	}, nil)
}

// duplicateIDRuns gives a call whose id is in flight an id of its own
// before the reference sees it, and its answer the id back.
func duplicateIDRuns() func(io.Reader, io.Writer) error {
	var (
		mu       sync.Mutex
		inflight = map[string]bool{}
		aliases  = map[string]string{}
		n        int
	)
	return interposed(func(m map[string]json.RawMessage) bool {
		if messageType(m) != protocol.TypeCall {
			return true
		}
		mu.Lock()
		defer mu.Unlock()
		id := idOf(m)
		if inflight[id] {
			n++
			alias := fmt.Sprintf("%s\x00%d", id, n)
			aliases[alias] = id
			m["id"], _ = json.Marshal(alias)
			return true
		}
		inflight[id] = true
		return true
	}, func(m map[string]json.RawMessage) bool {
		if t := messageType(m); t != protocol.TypeResult && t != protocol.TypeError {
			return true
		}
		mu.Lock()
		defer mu.Unlock()
		id := idOf(m)
		if orig, ok := aliases[id]; ok {
			delete(aliases, id)
			m["id"], _ = json.Marshal(orig)
			return true
		}
		delete(inflight, id)
		return true
	})
}

// sessionMerged replaces each call's session by the merge of every
// session sent so far, the later members winning.
func sessionMerged() func(io.Reader, io.Writer) error {
	var (
		mu     sync.Mutex
		merged = map[string]json.RawMessage{}
	)
	return interposed(func(m map[string]json.RawMessage) bool {
		if messageType(m) != protocol.TypeCall {
			return true
		}
		mu.Lock()
		defer mu.Unlock()
		s, err := protocol.Members(m["session"])
		if err != nil || s == nil {
			return true
		}
		for k, v := range s {
			merged[k] = v
		}
		m["session"], _ = protocol.Marshal(merged)
		return true
	}, nil)
}

// shutdownAnsweredFirst answers a shutdown request in the reference's
// place the moment it is read, and drops the reference's own answer, which
// comes once the calls in flight have answered.
func shutdownAnsweredFirst() func(io.Reader, io.Writer) error {
	return interposedWith(func(m map[string]json.RawMessage, reply func(protocol.Response)) bool {
		if messageType(m) == protocol.TypeShutdown {
			reply(protocol.Response{ID: idOf(m), Type: protocol.TypeShutdown})
		}
		return true
	}, func(m map[string]json.RawMessage) bool {
		return messageType(m) != protocol.TypeShutdown
	})
}

// abortUnknownError answers, in the reference's place, an abort whose
// target is no call in flight with an error.
func abortUnknownError() func(io.Reader, io.Writer) error {
	var (
		mu       sync.Mutex
		inflight = map[string]bool{}
	)
	return interposedWith(func(m map[string]json.RawMessage, reply func(protocol.Response)) bool {
		mu.Lock()
		defer mu.Unlock()
		switch messageType(m) {
		case protocol.TypeCall:
			inflight[idOf(m)] = true
		case protocol.TypeAbort:
			var target string
			json.Unmarshal(m["target"], &target)
			if !inflight[target] {
				reply(errorResponse(idOf(m), protocol.ErrBadRequest, "no call in flight with id "+target))
				return false
			}
		}
		return true
	}, func(m map[string]json.RawMessage) bool {
		if messageType(m) == protocol.TypeResult {
			mu.Lock()
			delete(inflight, idOf(m))
			mu.Unlock()
		}
		return true
	})
}

func errorResponse(id, code, msg string) protocol.Response {
	return protocol.Response{ID: id, Type: protocol.TypeError, Error: &protocol.Error{Code: code, Message: msg}}
}
