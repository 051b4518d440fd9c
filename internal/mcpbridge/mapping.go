// Package mcpbridge certifies the shell tool of an MCP server without an
// adapter: it is an implementation of the kit's protocol (spec/protocol.md)
// that serves each call by calling one tool of an MCP server over stdio,
// through the official Go SDK. A mapping file says how the kit's calls and
// the tool's results correspond; the bridge translates by it and never
// corrects the tool.
package mcpbridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/apexcheck/apexcheck/protocol"
)

// Mapping is how one MCP server's shell tool maps onto the kit's protocol.
// Every member is a choice the mapping's author documents in Notes.
type Mapping struct {
	// Implementation names the tool in the hello answer. An empty version
	// is filled from the server's initialize answer (serverInfo.version).
	Implementation protocol.Implementation `json:"implementation"`
	// ProtocolVersion is the MCP version the client asks for; empty asks
	// for the SDK's latest, which starts with server/discover (SEP-2575)
	// and falls back to initialize only when the server answers with an
	// error, so a server that dies on an unknown request needs an older
	// version named here.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	// StartupSeconds bounds the server's start-up: from its start to the
	// end of the MCP handshake and the setup requests. Zero is 60. The
	// runner's bound on the hello answer starts after it (--mcp adds it),
	// so a server slow to start is not taken for an implementation that
	// does not answer hello.
	StartupSeconds int `json:"startupSeconds,omitempty"`
	// Tool is the name of the MCP tool that runs a command.
	Tool string `json:"tool"`
	// Arguments says how the kit's call arguments become the tool's.
	Arguments Arguments `json:"arguments"`
	// Setup are requests sent once, in order, after the MCP handshake and
	// before the first call (Codex's sandbox-state update). A string
	// value "${cwd}" in their params stands for the bridge's working
	// directory, which is the scenario's work directory.
	Setup []SetupRequest `json:"setup,omitempty"`
	// Result says how the tool's result is read.
	Result ResultMap `json:"result"`
	// Capabilities are the kit capabilities the bridge declares for this
	// tool. Only abort is served by the bridge itself (as MCP
	// cancellation); a capability the bridge cannot serve is rejected at
	// load time rather than declared and faked.
	Capabilities []string `json:"capabilities"`
	// Notes documents each choice, by member name, for people.
	Notes map[string]string `json:"notes,omitempty"`

	exitLine *regexp.Regexp // Result.ExitLine, anchored
}

// DefaultStartup is the server's start-up bound when the mapping sets none.
const DefaultStartup = 60 * time.Second

// Startup is the server's start-up bound (StartupSeconds).
func (m *Mapping) Startup() time.Duration { return m.startup() }

func (m *Mapping) startup() time.Duration {
	if m.StartupSeconds == 0 {
		return DefaultStartup
	}
	return time.Duration(m.StartupSeconds) * time.Second
}

// Arguments maps the kit's tool arguments (call.md: command, timeout in
// seconds, ...) onto the MCP tool's.
type Arguments struct {
	// Command is the name of the tool's argument that takes the command.
	Command string `json:"command"`
	// Timeout maps the kit's timeout; nil passes it through unchanged.
	Timeout *TimeoutArg `json:"timeout,omitempty"`
	// Cwd is the name of the tool's argument that takes the call's working
	// directory; empty when the tool has none (it then runs in the
	// server's directory).
	Cwd string `json:"cwd,omitempty"`
	// Defaults are members added to the tool's arguments when they lack
	// them, after the renaming: an argument the tool requires and the
	// kit's call has no counterpart for (Desktop Commander's timeout_ms
	// when a call sets no timeout).
	Defaults map[string]json.RawMessage `json:"defaults,omitempty"`
	// Fixed are members the tool's arguments always carry with these
	// values, replacing the call's own: a choice of the tool's that the
	// kit's tool does not leave to the model (the shell to run).
	Fixed map[string]json.RawMessage `json:"fixed,omitempty"`
}

// TimeoutArg is the tool's timeout argument and its unit.
type TimeoutArg struct {
	Name string `json:"name"`
	// Unit is "s" or "ms": the kit's timeout is in seconds.
	Unit string `json:"unit"`
}

// SetupRequest is one JSON-RPC request sent before the first call.
type SetupRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// Result errors a JSON-RPC error answer to tools/call can be mapped to.
const (
	// RPCErrorResult answers the call with an error tool result whose
	// text is "MCP error CODE: MESSAGE" and which has no execution facts:
	// what a host hands the model when the server answers with an error.
	RPCErrorResult = "error-result"
	// RPCErrorProtocol answers the call with a protocol error, which
	// errors the scenario.
	RPCErrorProtocol = "protocol-error"
)

// ResultMap says how a tools/call result is read.
type ResultMap struct {
	// Text is how the model-visible text is taken: "content" joins the
	// text parts of the result's content, which is what the model sees.
	Text string `json:"text"`
	// Output, when the text is a JSON object, names its string member that
	// holds the command's output: the kit's text is that member, so the
	// scenarios' checks read the output and not the JSON around it. When
	// the text is no such object, the text is taken whole.
	Output string `json:"output,omitempty"`
	// ExitCode names the member of the JSON object the text holds that
	// carries the command's exit status; empty when the tool reports none.
	ExitCode string `json:"exitCode,omitempty"`
	// ExitLine is a regular expression (Go's RE2 syntax) for a plain text
	// that ends with a status line: it must match the text's last line in
	// full (one final line feed ignored), and its one group captures the
	// exit status as a decimal integer. A matching line is the tool's
	// framing, like ExitCode's member: the kit's text is the text before
	// it. A group that is not an integer ("killed") reports no status.
	ExitLine string `json:"exitLine,omitempty"`
	// RPCError is what a JSON-RPC error answer becomes: RPCErrorResult or
	// RPCErrorProtocol.
	RPCError string `json:"rpcError"`
}

// Served are the capabilities the bridge can serve: abort (as MCP
// cancellation). The others need the tool's own functions (render,
// permissions), options the MCP tool does not take (shell-path,
// session-env), or observing processes the bridge cannot see
// (process-tree, evidence), so a mapping cannot declare them.
var Served = map[string]bool{protocol.CapAbort: true}

// Load reads a mapping: a file name, or the name of a mapping shipped in
// mappings (adapters/NAME/mapping.json) when no such file exists.
func Load(name string, mappings fs.FS) (*Mapping, error) {
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) && mappings != nil && !strings.ContainsAny(name, "/.") {
		data, err = fs.ReadFile(mappings, filepath.Join(name, "mapping.json"))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("load mapping %q: no such file and no shipped mapping of that name (%s)", name, strings.Join(Names(mappings), ", "))
		}
	}
	if err != nil {
		return nil, fmt.Errorf("load mapping: %w", err)
	}
	m, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("load mapping %s: %w", name, err)
	}
	return m, nil
}

// Names lists the mappings shipped in mappings.
func Names(mappings fs.FS) []string {
	var names []string
	matches, _ := fs.Glob(mappings, "*/mapping.json")
	for _, m := range matches {
		names = append(names, filepath.Dir(m))
	}
	return names
}

// Parse decodes and checks a mapping. Unknown members are errors, so that
// a misspelt choice is never silently ignored; names are exact, so a
// miscased one ("Tool") is unknown too.
func Parse(data []byte) (*Mapping, error) {
	var m Mapping
	if err := protocol.UnmarshalKnown(data, &m); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	var problems []string
	need := func(ok bool, msg string) {
		if !ok {
			problems = append(problems, msg)
		}
	}
	need(m.Implementation.Name != "", "implementation.name is empty")
	need(m.Implementation.Language != "", "implementation.language is empty")
	need(m.Tool != "", "tool is empty")
	need(m.Arguments.Command != "", "arguments.command is empty")
	if t := m.Arguments.Timeout; t != nil {
		need(t.Name != "", "arguments.timeout.name is empty")
		need(t.Unit == "s" || t.Unit == "ms", fmt.Sprintf("arguments.timeout.unit %q: want s or ms", t.Unit))
	}
	for i, s := range m.Setup {
		need(s.Method != "", fmt.Sprintf("setup[%d].method is empty", i))
	}
	need(m.Result.Text == "content", fmt.Sprintf("result.text %q: want content", m.Result.Text))
	need(m.Result.RPCError == RPCErrorResult || m.Result.RPCError == RPCErrorProtocol,
		fmt.Sprintf("result.rpcError %q: want %s or %s", m.Result.RPCError, RPCErrorResult, RPCErrorProtocol))
	need(m.StartupSeconds >= 0, "startupSeconds is negative")
	for k, v := range m.Arguments.Fixed {
		_, dup := m.Arguments.Defaults[k]
		need(!dup, fmt.Sprintf("arguments.fixed and arguments.defaults both set %q", k))
		need(json.Valid(v), fmt.Sprintf("arguments.fixed.%s is not JSON", k))
	}
	if m.Result.ExitLine != "" {
		re, err := regexp.Compile(`\A(?:` + m.Result.ExitLine + `)\z`)
		need(err == nil, fmt.Sprintf("result.exitLine: %v", err))
		if err == nil {
			need(re.NumSubexp() == 1, fmt.Sprintf("result.exitLine %q: want exactly one group, the exit status; it has %d", m.Result.ExitLine, re.NumSubexp()))
			m.exitLine = re
		}
	}
	for _, c := range m.Capabilities {
		need(Served[c], fmt.Sprintf("capability %q: the bridge cannot serve it", c))
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "; "))
	}
	return &m, nil
}
