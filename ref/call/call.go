// Package call parses the raw arguments of one bash tool call into the single
// operation they request (spec/call.md).
//
// Every consumer of a call (execution, permissions, preview, display and
// evidence) reads the one answer Parse gives; none re-reads the raw
// arguments. That is the fix apex-code 0.3.0 made over 0.2.0, where
// permissions keyed on `command` while execution keyed on `handle` (CALL-1).
package call

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/apexcheck/apexcheck/protocol"
)

// Kind is the kind of operation a call requests.
type Kind string

// The operations of CALL-2.
const (
	Run      Kind = "run"
	Retrieve Kind = "retrieve"
	Kill     Kind = "kill"
)

// Operation is the one operation a well-formed call requests.
type Operation struct {
	Kind Kind
	// Command is the command to run (Run only); never empty.
	Command string
	// Timeout is the timeout in seconds as the model sent it (Run only), or
	// nil when the call carried no numeric timeout. It is not validated here:
	// ±Inf and non-positive values reach execution, which rejects them
	// (EXEC-8).
	Timeout *float64
	// Background is set when the call carried `background: true` (Run only).
	Background bool
	// Handle is the background handle (Retrieve and Kill only); never empty.
	Handle string
}

// Parsed is the result of parsing a call: either an Operation or the reason
// the call was rejected.
type Parsed struct {
	OK        bool
	Operation Operation
	// Reason is the model-visible rejection text when OK is false.
	Reason string
}

// Hint names both ways forward and ends several rejection reasons (CALL-9).
const Hint = "Supply `command` to run a command, or `handle` to retrieve or kill a background command."

// The rejection reasons of CALL-4 to CALL-9, in the order they are checked.
const (
	ReasonNotObject   = "Shell arguments must be an object. " + Hint
	ReasonAmbiguous   = "Ambiguous shell call: `command` and `handle` request different operations. " + Hint + " Send one, not both."
	StrayFieldsPrefix = "A background handle call takes only `handle` and optional `kill`. Remove: "
	ReasonKillNeeds   = "`kill: true` terminates a background command and requires its `handle`. It cannot be combined with `command`."
	ReasonEmptyHandle = "`handle` is empty, which is not a background handle. " + Hint
	ReasonNoOperation = "Shell call names no operation. " + Hint
)

// Parse parses raw tool arguments with the semantics of a JavaScript
// implementation reading JSON.parse output (CALL-3): arrays are objects with
// none of the tool's fields, numbers are IEEE doubles (1e400 is +Inf), and a
// duplicated key takes its last value. Raw arguments that are not valid JSON
// are rejected like any other non-object.
func Parse(raw []byte) Parsed {
	fields, isObject := decodeObject(raw)
	if !isObject {
		return reject(ReasonNotObject)
	}
	command := presentString(fields["command"])
	handle := presentString(fields["handle"])
	wantsKill := isTrue(fields["kill"])
	timeout, hasTimeout := number(fields["timeout"])
	background := isTrue(fields["background"])

	if command != "" && handle != "" {
		return reject(ReasonAmbiguous)
	}
	if handle != "" {
		var stray []byte
		if hasTimeout {
			stray = append(stray, "timeout"...)
		}
		if background {
			if len(stray) > 0 {
				stray = append(stray, ", "...)
			}
			stray = append(stray, "background"...)
		}
		if len(stray) > 0 {
			return reject(StrayFieldsPrefix + string(stray) + ".")
		}
		if wantsKill {
			return accept(Operation{Kind: Kill, Handle: handle})
		}
		return accept(Operation{Kind: Retrieve, Handle: handle})
	}
	if command != "" {
		if wantsKill {
			return reject(ReasonKillNeeds)
		}
		op := Operation{Kind: Run, Command: command, Background: background}
		if hasTimeout {
			op.Timeout = &timeout
		}
		return accept(op)
	}
	if v, present := fields["handle"]; present && !meaningful(v) {
		return reject(ReasonEmptyHandle)
	}
	return reject(ReasonNoOperation)
}

func accept(op Operation) Parsed  { return Parsed{OK: true, Operation: op} }
func reject(reason string) Parsed { return Parsed{Reason: reason} }

// decodeObject returns the top-level fields of raw when it is a JSON object
// or array (both are objects to JavaScript's typeof). An array's fields are
// empty: it has no "command", "handle" or other tool field.
func decodeObject(raw []byte) (map[string]json.RawMessage, bool) {
	trimmed := bytes.TrimSpace(raw)
	if !json.Valid(trimmed) {
		return nil, false
	}
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		return map[string]json.RawMessage{}, true
	case len(trimmed) > 0 && trimmed[0] == '{':
		// Member names exact and the last of a repeated one winning, as
		// JSON.parse reads them: {"Command":"ls"} has no command (CALL-11).
		fields, err := protocol.Members(trimmed)
		if err != nil {
			return nil, false
		}
		return fields, true
	}
	return nil, false
}

// presentString returns the value when it is a non-empty JSON string.
func presentString(v json.RawMessage) string {
	var s string
	if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// meaningful reports whether a field carries a request: it is neither
// absent, null nor the empty string (the placeholder policy of CALL-3).
func meaningful(v json.RawMessage) bool {
	if len(v) == 0 || string(v) == "null" {
		return false
	}
	var s string
	if v[0] == '"' && json.Unmarshal(v, &s) == nil && s == "" {
		return false
	}
	return true
}

func isTrue(v json.RawMessage) bool { return string(v) == "true" }

// number returns the JSON number v as an IEEE double the way JSON.parse
// does: out-of-range literals become ±Inf instead of an error.
func number(v json.RawMessage) (float64, bool) {
	if len(v) == 0 || !(v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	// ErrRange comes with ±Inf for overflow and with the nearest value for
	// underflow: both are what JavaScript produces.
	return f, true
}
