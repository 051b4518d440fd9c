// Package mcpfake is a tiny MCP server on stdio for tests of the MCP
// bridge: written against the wire, not the SDK, so a test controls every
// byte the bridge sees. A test binary becomes it when its first argument
// is Arg (an argument, not the environment, since the runner gives an
// implementation a scenario's environment).
package mcpfake

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sync"
)

// Arg, as a test binary's first argument, makes it the fake server (see
// Main); the second argument is the file the server logs what it received
// to.
const Arg = "fake-mcp-server"

// Mapping maps the kit's calls onto the fake server's run tool.
const Mapping = `{
  "implementation": {"name": "fake-shell", "language": "go"},
  "protocolVersion": "2025-06-18",
  "tool": "run",
  "arguments": {"command": "cmd", "timeout": {"name": "limit_ms", "unit": "ms"}, "cwd": "dir"},
  "setup": [{"method": "x/setup", "params": {"root": "${cwd}", "mode": "open"}}],
  "result": {"text": "content", "exitCode": "status", "rpcError": "error-result"},
  "capabilities": ["abort"]
}`

// Main serves the fake MCP server on stdin and stdout. Its one tool,
// run, answers by the command it is given:
//
//	"fail"   a JSON-RPC error -32603 "boom"
//	"hang"   no answer; logs "cancelled ID" when the call is cancelled
//	other    a text result {"status": 7, "got": ARGUMENTS}, isError true
//
// Arguments that are not an object get the error -32602 a typed server
// gives. It logs every method it receives, in order, with the params of
// the setup request x/setup.
func Main(logFile string) int {
	log, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer log.Close()
	var mu sync.Mutex
	out := json.NewEncoder(os.Stdout)
	send := func(v any) {
		mu.Lock()
		defer mu.Unlock()
		out.Encode(v)
	}
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(log, format+"\n", args...)
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil {
			continue
		}
		reply := func(result any) {
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
		}
		fail := func(code int, message string) {
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": code, "message": message}})
		}
		switch msg.Method {
		case "initialize":
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			json.Unmarshal(msg.Params, &p)
			logf("initialize %s", p.ProtocolVersion)
			reply(map[string]any{"protocolVersion": p.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "fake", "version": "9.9.9"}})
		case "x/setup":
			logf("x/setup %s", msg.Params)
			reply(map[string]any{})
		case "notifications/cancelled":
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			json.Unmarshal(msg.Params, &p)
			logf("cancelled %s", p.RequestID)
		case "tools/call":
			var p struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			}
			json.Unmarshal(msg.Params, &p)
			logf("tools/call %s %s", p.Name, p.Arguments)
			var args map[string]any
			if json.Unmarshal(p.Arguments, &args) != nil {
				fail(-32602, "failed to deserialize parameters")
				continue
			}
			switch args["cmd"] {
			case "fail":
				fail(-32603, "boom")
			case "hang":
			default:
				text, _ := json.Marshal(map[string]any{"status": 7, "got": args})
				reply(map[string]any{"content": []any{map[string]any{"type": "text", "text": string(text)}}, "isError": true})
			}
		default:
			logf("%s", msg.Method)
			if len(msg.ID) > 0 {
				fail(-32601, "method not found")
			}
		}
	}
	return 0
}
