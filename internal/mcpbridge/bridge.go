package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/apexcheck/apexcheck/internal/version"
	"github.com/apexcheck/apexcheck/protocol"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// terminateWait is how long closing the session waits for the server to
// exit after its stdin closes, before it sends SIGTERM, and after SIGTERM
// before SIGKILL (server.stop).
const terminateWait = 2 * time.Second

// Bridge serves the kit's protocol with one MCP server's tool.
type Bridge struct {
	m       *Mapping
	session *mcp.ClientSession
	tap     *tapConn
	cwd     string
	impl    protocol.Implementation
	w       *protocol.Writer

	mu       sync.Mutex
	inflight map[string]*inflightCall
	calls    sync.WaitGroup
}

type inflightCall struct {
	cancel context.CancelFunc
}

// Start starts the MCP server argv (its stderr going to stderr), performs
// the MCP handshake and the mapping's setup requests, all within ctx: the
// server's start-up bound (Mapping.StartupSeconds). The bridge's working
// directory is the "${cwd}" of the setup requests.
func Start(ctx context.Context, m *Mapping, argv []string, stderr io.Writer) (*Bridge, error) {
	if len(argv) == 0 {
		return nil, errors.New("start mcp server: no command")
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("start mcp server: %w", err)
	}
	srv, err := startServer(argv, stderr)
	if err != nil {
		return nil, fmt.Errorf("start mcp server %q: %w", argv[0], err)
	}
	tap := &tapTransport{Transport: srv.transport(), srv: srv}
	client := mcp.NewClient(&mcp.Implementation{Name: "apexcheck-mcp-bridge", Version: version.Kit}, nil)
	session, err := client.Connect(ctx, tap, &mcp.ClientSessionOptions{ProtocolVersion: m.ProtocolVersion})
	if err != nil {
		err = tap.conn.why(err)
		srv.stop()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("mcp server %q did not finish its start-up (the MCP handshake) within the mapping's start-up bound of %v: %w", argv[0], m.startup(), err)
		}
		return nil, fmt.Errorf("connect to mcp server %q: %w", argv[0], err)
	}
	b := &Bridge{m: m, session: session, tap: tap.conn, cwd: cwd, impl: m.Implementation, inflight: map[string]*inflightCall{}}
	if b.impl.Version == "" {
		if info := session.InitializeResult().ServerInfo; info != nil {
			b.impl.Version = info.Version
		}
	}
	for _, s := range m.Setup {
		params := bytes.ReplaceAll(s.Params, []byte(`"${cwd}"`), mustJSON(cwd))
		if _, err := b.tap.call(ctx, s.Method, params); err != nil {
			session.Close()
			return nil, fmt.Errorf("mcp setup request: %w", b.tap.why(err))
		}
	}
	return b, nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// Serve answers the kit's requests read from r on w until shutdown or the
// end of r, then closes the MCP session (which stops the server).
func (b *Bridge) Serve(r io.Reader, w io.Writer) error {
	b.w = protocol.NewWriter(w)
	rd := protocol.NewReader(r)
	for {
		line, err := rd.Line()
		if errors.Is(err, protocol.ErrLineTooLong) {
			// The reader skipped the line, so the session goes on; its id
			// is unknown (PROTO-1, PROTO-15), as in the reference server.
			b.fail("", protocol.ErrBadRequest, err.Error())
			continue
		}
		if err != nil {
			// End of input (PROTO-10): as shutdown, without the answer.
			b.close()
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("read request: %w", err)
		}
		var req protocol.Request
		if err := protocol.Unmarshal(line, &req); err != nil { // PROTO-20, PROTO-21
			b.fail(idOf(line), protocol.ErrBadRequest, fmt.Sprintf("request is not a valid message: %v", err))
			continue
		}
		if req.ID == "" {
			b.fail("", protocol.ErrBadRequest, "request has no id")
			continue
		}
		if req.Type == protocol.TypeShutdown {
			b.close()
			return b.w.Write(protocol.Response{ID: req.ID, Type: protocol.TypeShutdown})
		}
		b.serve(&req)
	}
}

// idOf is the id of a line that is a JSON object with a string member
// named exactly "id", else "" (PROTO-15, PROTO-20).
func idOf(line []byte) string {
	m, err := protocol.Members(line)
	if err != nil {
		return ""
	}
	var id string
	if raw := m["id"]; len(raw) > 0 && raw[0] == '"' {
		json.Unmarshal(raw, &id)
	}
	return id
}

func (b *Bridge) fail(id, code, msg string) {
	b.w.Write(protocol.Response{ID: id, Type: protocol.TypeError, Error: &protocol.Error{Code: code, Message: msg}})
}

func (b *Bridge) serve(req *protocol.Request) {
	switch req.Type {
	case protocol.TypeHello:
		if !contains(req.Versions, protocol.Version) {
			b.fail(req.ID, protocol.ErrUnsupported, fmt.Sprintf("the bridge speaks protocol %d only", protocol.Version))
			return
		}
		impl := b.impl
		b.w.Write(protocol.Response{ID: req.ID, Type: protocol.TypeHello, Protocol: protocol.Version,
			Implementation: &impl, Capabilities: append([]string{}, b.m.Capabilities...)})
	case protocol.TypeCall:
		b.startCall(req)
	case protocol.TypeAbort:
		if b.declared(protocol.CapAbort) {
			b.mu.Lock()
			if c := b.inflight[req.Target]; c != nil {
				c.cancel()
			}
			b.mu.Unlock()
		}
		b.w.Write(protocol.Response{ID: req.ID, Type: protocol.TypeAbort})
	case protocol.TypePermission, protocol.TypeRender:
		b.fail(req.ID, protocol.ErrUnsupported, fmt.Sprintf("an MCP tool has no %s function", req.Type))
	default:
		b.fail(req.ID, protocol.ErrBadRequest, fmt.Sprintf("unknown request type %q", req.Type))
	}
}

func (b *Bridge) declared(capability string) bool {
	for _, c := range b.m.Capabilities {
		if c == capability {
			return true
		}
	}
	return false
}

func contains(vs []int, v int) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

func (b *Bridge) startCall(req *protocol.Request) {
	if req.Cwd == "" {
		b.fail(req.ID, protocol.ErrBadRequest, "call needs cwd, a non-empty string")
		return
	}
	args, err := b.m.toolArguments(req.Arguments, req.Cwd)
	if err != nil {
		b.fail(req.ID, protocol.ErrBadRequest, err.Error())
		return
	}
	if req.Aborted && b.declared(protocol.CapAbort) {
		// The abort signal is already fired: an MCP host does not send a
		// request it has already cancelled, and MCP has no way to hand a
		// tool a cancelled call, so nothing is sent and nothing runs. The
		// tool gave no result (PROTO-24).
		b.w.Write(protocol.Response{ID: req.ID, Type: protocol.TypeResult, Cancelled: true})
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.mu.Lock()
	if b.inflight[req.ID] != nil {
		b.mu.Unlock()
		cancel()
		b.fail(req.ID, protocol.ErrDuplicateID, fmt.Sprintf("call %q is already in flight", req.ID))
		return
	}
	b.inflight[req.ID] = &inflightCall{cancel: cancel}
	b.calls.Add(1)
	b.mu.Unlock()
	go func() {
		defer b.calls.Done()
		defer cancel()
		res, err := b.session.CallTool(ctx, &mcp.CallToolParams{Name: b.m.Tool, Arguments: args})
		b.mu.Lock()
		delete(b.inflight, req.ID)
		b.mu.Unlock()
		b.answer(req.ID, req.Cwd, res, err, ctx)
	}()
}

// answer writes the final response of a call.
func (b *Bridge) answer(id, cwd string, res *mcp.CallToolResult, err error, ctx context.Context) {
	var wire *jsonrpc.Error
	switch {
	case err == nil:
		b.w.Write(protocol.Response{ID: id, Type: protocol.TypeResult, Result: b.m.callResult(res, cwd)})
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		// Cancelled by abort or shutdown before the server answered: the
		// SDK sent notifications/cancelled and, as MCP says, no result
		// follows. The tool gave none, so the bridge writes none: the call
		// ended cancelled (PROTO-24).
		b.w.Write(protocol.Response{ID: id, Type: protocol.TypeResult, Cancelled: true})
	case errors.As(err, &wire):
		r, perr := b.m.rpcErrorResult(wire)
		if perr != nil {
			b.w.Write(protocol.Response{ID: id, Type: protocol.TypeError, Error: perr})
			return
		}
		b.w.Write(protocol.Response{ID: id, Type: protocol.TypeResult, Result: r})
	default:
		// The connection to the server broke: the bridge cannot serve
		// anything more, and says so by exiting, which errors the scenario
		// with this message in the implementation's stderr.
		fmt.Fprintf(os.Stderr, "apexcheck mcp-bridge: call %s: %v\n", id, b.tap.why(err))
		os.Exit(3)
	}
}

// close cancels every call in flight, waits for their answers and closes
// the MCP session, which closes the server's stdin and stops it (PROTO-9).
func (b *Bridge) close() {
	b.mu.Lock()
	for _, c := range b.inflight {
		c.cancel()
	}
	b.mu.Unlock()
	b.calls.Wait()
	b.session.Close()
}
