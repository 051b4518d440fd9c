package mcpbridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
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
	for k, v := range m.Arguments.Defaults {
		if _, set := out[k]; !set {
			out[k] = v
		}
	}
	for k, v := range m.Arguments.Fixed {
		out[k] = v
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
// text is the text the model sees, or the output the mapping says it
// holds (see output); isError is the tool's own flag; the execution facts
// carry the exit status the tool reported, with the cwd the bridge asked
// for (the bridge observes no process, so nothing else).
func (m *Mapping) callResult(res *mcp.CallToolResult, cwd string) *protocol.Result {
	var text strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	out, code, ok := m.output(text.String())
	r := &protocol.Result{IsError: res.IsError, Text: out}
	if ok {
		r.Details = &protocol.Details{Execution: &protocol.Execution{Cwd: cwd, ExitCode: &code}}
	}
	return r
}

// output reads a tool's text by the mapping: the command's output, and its
// exit status when the text reports one (ok). A JSON object text gives its
// Output member (when named and a string) and its ExitCode member (when
// named and an integer: null, for one, when a command was killed);
// a plain text whose last line matches ExitLine gives the text before that
// line and the line's status. Any other text is the output whole, with no
// status.
func (m *Mapping) output(text string) (out string, code int, ok bool) {
	if obj, err := protocol.Members([]byte(text)); err == nil && (m.Result.Output != "" || m.Result.ExitCode != "") {
		out = text
		if m.Result.Output != "" {
			var s string
			if json.Unmarshal(obj[m.Result.Output], &s) == nil {
				out = s
			}
		}
		// A pointer: null decodes into an int as no change, which would
		// report a killed command's null as exit status 0.
		var n *int
		if m.Result.ExitCode != "" && json.Unmarshal(obj[m.Result.ExitCode], &n) == nil && n != nil {
			return out, *n, true
		}
		return out, 0, false
	}
	if m.exitLine != nil {
		body := strings.TrimSuffix(text, "\n")
		i := strings.LastIndexByte(body, '\n')
		if sub := m.exitLine.FindStringSubmatch(body[i+1:]); sub != nil {
			n, err := strconv.Atoi(sub[1])
			return body[:i+1], n, err == nil
		}
	}
	return text, 0, false
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
