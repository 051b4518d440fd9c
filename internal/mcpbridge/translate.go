package mcpbridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolArguments translates the kit's raw call arguments into the MCP
// tool's. Only a JSON object is translated: its command and timeout
// members are renamed (the timeout scaled to the tool's unit when it is a
// number) and the call's cwd is added under the tool's name for it unless
// the call already sets that member. Every other member, and every other
// JSON value, passes through unchanged, so the tool's own validation
// answers malformed calls, as it would a model's.
func (m *Mapping) toolArguments(raw json.RawMessage, cwd string) (json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("null")
	}
	// The members as the kit's call parse reads them (CALL-11): a case
	// variant such as "Command" is another member, passed through as is.
	obj, err := protocol.Members(raw)
	if err != nil {
		return raw, nil
	}
	out := make(map[string]json.RawMessage, len(obj)+1)
	for k, v := range obj {
		switch {
		case k == "command":
			out[m.Arguments.Command] = v
		case k == "timeout" && m.Arguments.Timeout != nil:
			out[m.Arguments.Timeout.Name] = scaleTimeout(v, m.Arguments.Timeout.Unit)
		default:
			out[k] = v
		}
	}
	if m.Arguments.Cwd != "" {
		if _, set := out[m.Arguments.Cwd]; !set {
			b, _ := json.Marshal(cwd)
			out[m.Arguments.Cwd] = b
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("translate arguments: %w", err)
	}
	return b, nil
}

// scaleTimeout converts a timeout in seconds to unit. A value that is not
// a JSON number (null among them) or does not fit a float64 passes through
// unchanged for the tool to judge; a scaled value is rounded to whole
// units, since tools take integers.
func scaleTimeout(v json.RawMessage, unit string) json.RawMessage {
	if unit == "s" {
		return v
	}
	// json.Number alone would also take a string holding a number.
	v = bytes.TrimSpace(v)
	var num json.Number
	if len(v) == 0 || !strings.ContainsRune("-0123456789", rune(v[0])) || json.Unmarshal(v, &num) != nil {
		return v
	}
	f, err := num.Float64()
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return v
	}
	b, _ := json.Marshal(math.Round(f * 1000))
	return b
}

// callResult translates a tools/call answer into the kit's result. The
// text is the text the model sees; isError is the tool's own flag; the
// execution facts carry the exit status the tool reported, with the cwd
// the bridge asked for (the bridge observes no process, so nothing else).
func (m *Mapping) callResult(res *mcp.CallToolResult, cwd string) *protocol.Result {
	var text strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	r := &protocol.Result{IsError: res.IsError, Text: text.String()}
	if code, ok := m.exitCode(r.Text); ok {
		r.Details = &protocol.Details{Execution: &protocol.Execution{Cwd: cwd, ExitCode: &code}}
	}
	return r
}

// exitCode reads the exit status member of a JSON object text. It reports
// false when the mapping names none, the text is no such object, or the
// member is not an integer (null, for one, when a command was killed).
func (m *Mapping) exitCode(text string) (int, bool) {
	if m.Result.ExitCode == "" {
		return 0, false
	}
	obj, err := protocol.Members([]byte(text))
	if err != nil {
		return 0, false
	}
	var code int
	if json.Unmarshal(obj[m.Result.ExitCode], &code) != nil {
		return 0, false
	}
	return code, true
}

// rpcErrorResult translates a JSON-RPC error answer to tools/call, as the
// mapping says: an error result (with no execution facts, since an error
// answer carries none), or nil with a protocol error.
func (m *Mapping) rpcErrorResult(err error) (*protocol.Result, *protocol.Error) {
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) {
		return nil, &protocol.Error{Code: protocol.ErrUnsupported, Message: fmt.Sprintf("mcp tools/call failed: %v", err)}
	}
	if m.Result.RPCError == RPCErrorProtocol {
		return nil, &protocol.Error{Code: protocol.ErrUnsupported, Message: fmt.Sprintf("MCP error %d: %s", werr.Code, werr.Message)}
	}
	return &protocol.Result{IsError: true, Text: fmt.Sprintf("MCP error %d: %s", werr.Code, werr.Message)}, nil
}
