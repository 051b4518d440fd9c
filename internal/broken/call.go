package broken

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/call"
	"github.com/apexcheck/apexcheck/ref/server"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// callArea selects every scenario of spec/call.md and of the header, which
// reads the same parse (CALL-1): a parse defect must be caught by the area,
// not by a scenario picked for it.
const callArea = `^(call|display)_`

// The call variants are the mistakes of a port of the one parse
// (spec/call.md) to another language: another JSON decoder, another
// truthiness, another order of checks. Each is written from its clause.
// Those that change what the parse decides change it for calls and render
// requests alike, as a port's one parse would.
func init() {
	Register("call-integer-timeout", Variant{
		Defect: "accepts a timeout only when it is an integer, as a JSON Schema `integer` or Python's " +
			"isinstance(v, int) does, so a run of `timeout: 0.5` carries no timeout",
		Clause:    "CALL-2",
		Scenarios: callArea,
		Serve: rewritingCallsAndRenders(func(m map[string]any) {
			if f, ok := m["timeout"].(float64); ok && f != math.Trunc(f) {
				delete(m, "timeout")
			}
		}),
	})
	Register("call-bool-timeout", Variant{
		Defect: "counts a boolean timeout as a number, as Python's isinstance(True, (int, float)) does: " +
			"`timeout: true` is a timeout of 1 s and makes a handle call stray",
		Clause:    "CALL-3",
		Scenarios: callArea,
		Serve: rewritingCallsAndRenders(func(m map[string]any) {
			if b, ok := m["timeout"].(bool); ok {
				m["timeout"] = map[bool]float64{false: 0, true: 1}[b]
			}
		}),
	})
	Register("call-rejects-arrays", Variant{
		Defect: "rejects an array as not an object (Array.isArray, Python's isinstance(v, dict)), " +
			"with CALL-4's text instead of CALL-9's",
		Clause:    "CALL-4",
		Scenarios: callArea,
		Serve: rewritingRawCalls(func(raw []byte) []byte {
			if t := strings.TrimSpace(string(raw)); strings.HasPrefix(t, "[") {
				return []byte(`"an array"`) // a JSON string: CALL-4's reason
			}
			return raw
		}),
	})
	Register("call-kill-before-ambiguity", Variant{
		Defect: "checks `kill: true` with a handle before it checks for both fields, so a call with " +
			"`command`, `handle` and `kill: true` kills the handle instead of being ambiguous",
		Clause:    "CALL-5",
		Scenarios: callArea,
		Serve: rewritingCallsAndRenders(func(m map[string]any) {
			if nonEmptyString(m["command"]) && nonEmptyString(m["handle"]) && m["kill"] == true {
				delete(m, "command")
			}
		}),
	})
	Register("call-stray-fields-key-order", Variant{
		Defect: "names the stray fields of a handle call in the order the object gives them " +
			"(Object.keys), not `timeout` then `background`",
		Clause:    "CALL-6",
		Scenarios: callArea,
		Serve: Wrapped(func(h server.Handler) server.Handler {
			return ExecuteFunc{Handler: h, Exec: func(ctx context.Context, c tool.Call) protocol.Result {
				r := h.Execute(ctx, c)
				both := call.StrayFieldsPrefix + "timeout, background."
				b, t := strings.Index(string(c.Args), `"background"`), strings.Index(string(c.Args), `"timeout"`)
				if r.Text == both && b >= 0 && b < t {
					r.Text = call.StrayFieldsPrefix + "background, timeout."
				}
				return r
			}}
		}),
	})
	Register("call-truthy-kill", Variant{
		Defect: "tests `kill` for truthiness (`if (input.kill)`), so `kill: \"true\"` or `kill: 1` " +
			"beside a command rejects the call instead of running it",
		Clause:    "CALL-7",
		Scenarios: callArea,
		Serve: rewritingCallsAndRenders(func(m map[string]any) {
			if nonEmptyString(m["command"]) && !nonEmptyString(m["handle"]) && jsTruthy(m["kill"]) {
				m["kill"] = true
			}
		}),
	})
	Register("call-null-handle-absent", Variant{
		Defect: "takes a `handle` of null for an absent one (Python's args.get(\"handle\") is None " +
			"either way), so `{\"handle\":null}` names no operation instead of an empty handle",
		Clause:    "CALL-8",
		Scenarios: callArea,
		Serve: rewritingCallsAndRenders(func(m map[string]any) {
			if v, ok := m["handle"]; ok && v == nil {
				delete(m, "handle")
			}
		}),
	})
	Register("call-typed-handle-empty", Variant{
		Defect: "answers CALL-8's empty handle for any `handle` key that is not a non-empty string " +
			"(`\"handle\" in input && typeof input.handle !== \"string\"`), so `{\"handle\":5}` is an empty handle",
		Clause:    "CALL-9",
		Scenarios: callArea,
		Serve: rewritingRawCalls(rawObjectEdit(func(m map[string]any) {
			if v, ok := m["handle"]; ok && v != nil && !isString(v) && !nonEmptyString(m["command"]) {
				m["handle"] = ""
			}
		})),
	})
	Register("call-rejected-details", Variant{
		Defect: "gives a rejected call the details every result starts with (`{execution: {cwd}}`), " +
			"built before the arguments are checked",
		Clause:    "CALL-10",
		Scenarios: callArea,
		Serve: Wrapped(func(h server.Handler) server.Handler {
			return ExecuteFunc{Handler: h, Exec: func(ctx context.Context, c tool.Call) protocol.Result {
				r := h.Execute(ctx, c)
				if !call.Parse(c.Args).OK {
					r.Details = &protocol.Details{Execution: &protocol.Execution{Cwd: c.Cwd}}
				}
				return r
			}}
		}),
	})
	Register("call-member-case", Variant{
		Defect: "matches member names without regard to case, as Go's encoding/json does decoding into " +
			"a struct: `{\"Command\":\"ls\"}` runs `ls` instead of naming no operation",
		Clause:    "CALL-11",
		Scenarios: callArea,
		Serve: rewritingCallsAndRenders(func(m map[string]any) {
			for _, name := range []string{"command", "handle", "kill", "timeout", "background"} {
				if _, exact := m[name]; exact {
					continue
				}
				for k, v := range m {
					if strings.EqualFold(k, name) {
						m[name] = v
					}
				}
			}
		}),
	})
	Register("call-rejects-huge-numbers", Variant{
		Defect: "decodes with a parser that rejects a number beyond the double range (Go's float64, " +
			"Rust's serde_json), so `timeout: 1e400` makes the arguments unreadable: CALL-4's reason",
		Clause:    "CALL-11",
		Scenarios: callArea,
		Serve: rewritingRawCalls(func(raw []byte) []byte {
			if hasHugeNumber(raw) {
				return []byte(`"unreadable"`)
			}
			return raw
		}),
	})
	Register("call-first-duplicate-wins", Variant{
		Defect: "reads a repeated member's first value, as a lookup that scans the text for the key " +
			"(gjson, jsonparser) does, instead of JSON.parse's last",
		Clause:    "CALL-11",
		Scenarios: callArea,
		Serve:     rewritingRawCalls(firstDuplicateWins),
	})
	Register("call-honours-cwd-field", Variant{
		Defect: "reads a `cwd` member of the arguments as the command's working directory, a field the " +
			"schema does not have, instead of ignoring it",
		Clause:    "CALL-12",
		Scenarios: callArea,
		Serve: Wrapped(func(h server.Handler) server.Handler {
			return ExecuteFunc{Handler: h, Exec: func(ctx context.Context, c tool.Call) protocol.Result {
				var m map[string]any
				if json.Unmarshal(c.Args, &m) == nil {
					if dir, ok := m["cwd"].(string); ok && dir != "" {
						c.Cwd = dir
					}
				}
				return h.Execute(ctx, c)
			}}
		}),
	})
}

func isString(v any) bool { _, ok := v.(string); return ok }

func nonEmptyString(v any) bool { s, ok := v.(string); return ok && s != "" }

// jsTruthy is JavaScript's truthiness of a decoded JSON value.
func jsTruthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case float64:
		return v != 0 && !math.IsNaN(v)
	case string:
		return v != ""
	}
	return true // objects and arrays
}

// rewritingRawCalls serves the reference with the raw arguments of every
// call and render request replaced by edit's rewrite of them.
func rewritingRawCalls(edit func([]byte) []byte) func(io.Reader, io.Writer) error {
	return filtered(func(line []byte) []byte {
		return editMessage(line, func(msg map[string]json.RawMessage) {
			switch messageType(msg) {
			case protocol.TypeCall, protocol.TypeRender:
				if msg["arguments"] != nil {
					msg["arguments"] = edit(msg["arguments"])
				}
			}
		})
	}, nil)
}

// rawObjectEdit is a raw edit that decodes an object, lets edit change it,
// and encodes it again; anything else passes untouched.
func rawObjectEdit(edit func(map[string]any)) func([]byte) []byte {
	return func(raw []byte) []byte { return rewriteArgs(raw, edit) }
}

// hasHugeNumber reports whether raw holds a number literal beyond the
// double range, one a strict decoder refuses.
func hasHugeNumber(raw []byte) bool {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if n, ok := tok.(json.Number); ok {
			if _, err := strconv.ParseFloat(string(n), 64); errors.Is(err, strconv.ErrRange) {
				return true
			}
		}
	}
}

// firstDuplicateWins rewrites a top-level object so that each member given
// more than once keeps its first value.
func firstDuplicateWins(raw []byte) []byte {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return raw
	}
	var keys []string
	vals := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return raw
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return raw
		}
		if _, seen := vals[key]; !seen {
			keys = append(keys, key)
			vals[key] = v
		}
	}
	out := []byte{'{'}
	for i, k := range keys {
		if i > 0 {
			out = append(out, ',')
		}
		kb, _ := json.Marshal(k)
		out = append(append(append(out, kb...), ':'), vals[k]...)
	}
	return append(out, '}')
}
