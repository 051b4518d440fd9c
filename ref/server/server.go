// Package server serves a bash tool over the apexcheck wire protocol
// (spec/protocol.md): newline-delimited JSON requests on one stream,
// responses on another, requests matched by id and served concurrently.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// Handler is what the server needs from a tool.
type Handler interface {
	Execute(ctx context.Context, c tool.Call) protocol.Result
	Evidence(args []byte, r protocol.Result) []protocol.EvidenceRecord
	Permission(rules []protocol.Rule, args []byte) protocol.PermissionAnswer
	Close()
}

// Server is one protocol session.
type Server struct {
	Impl         protocol.Implementation
	Capabilities []string
	Tool         Handler
}

// Serve reads requests from in and writes responses to out until a shutdown
// request or the end of in. Either way every in-flight call is aborted and
// answered, every in-flight permission decision answered, and the tool
// closed (its background commands killed) before Serve returns (PROTO-9,
// PROTO-10, PROTO-23).
//
// Every request is decoded by protocol.Unmarshal: member names exact, the
// last of a repeated member winning (PROTO-20, PROTO-21).
func (s *Server) Serve(in io.Reader, out io.Writer) error {
	ss := &session{Server: s, w: protocol.NewWriter(out), inflight: map[string]context.CancelFunc{},
		caps: map[string]bool{}}
	for _, c := range s.Capabilities {
		ss.caps[c] = true
	}
	defer ss.end()
	r := protocol.NewReader(in)
	for {
		line, err := r.Line()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if errors.Is(err, protocol.ErrLineTooLong) {
			ss.w.Write(errorResponse("", protocol.ErrBadRequest, err.Error()))
			continue
		}
		if err != nil {
			return fmt.Errorf("read request: %w", err)
		}
		if done := ss.serve(line); done {
			return nil
		}
	}
}

// session is the state of one Serve: the requests in flight.
type session struct {
	*Server
	w    *protocol.Writer
	caps map[string]bool

	mu       sync.Mutex
	inflight map[string]context.CancelFunc // calls in flight, by id
	// work counts the calls and permission decisions in flight, each of
	// which owes a response before the session ends.
	work    sync.WaitGroup
	endOnce sync.Once
}

// end aborts every call in flight, waits for every call and decision to
// write its response, and disposes the tool (PROTO-9, PROTO-10, PROTO-23).
// A decision is waited for, not cancelled: it executes nothing and its
// time is bounded by the size of its request.
func (ss *session) end() {
	ss.endOnce.Do(func() {
		ss.mu.Lock()
		for _, cancel := range ss.inflight {
			cancel()
		}
		ss.mu.Unlock()
		ss.work.Wait()
		ss.Tool.Close()
	})
}

// serve answers one request line, or starts the work that will. It
// reports whether the line ended the session (shutdown).
func (ss *session) serve(line []byte) (done bool) {
	var req protocol.Request
	if err := protocol.Unmarshal(line, &req); err != nil {
		// Answer under the request's id when it can be read (PROTO-15).
		ss.w.Write(errorResponse(idOf(line), protocol.ErrBadRequest, "malformed request: "+err.Error()))
		return false
	}
	if req.ID == "" {
		ss.w.Write(errorResponse("", protocol.ErrBadRequest, "request has no id"))
		return false
	}
	switch req.Type {
	case protocol.TypeHello:
		ss.w.Write(protocol.Response{ID: req.ID, Type: protocol.TypeHello, Protocol: protocol.Version,
			Implementation: &ss.Impl, Capabilities: ss.Capabilities})
	case protocol.TypeShutdown:
		ss.end()
		ss.w.Write(protocol.Response{ID: req.ID, Type: protocol.TypeShutdown})
		return true
	case protocol.TypeAbort:
		ss.mu.Lock()
		if cancel, ok := ss.inflight[req.Target]; ok {
			cancel()
		}
		ss.mu.Unlock()
		ss.w.Write(protocol.Response{ID: req.ID, Type: protocol.TypeAbort})
	case protocol.TypeRender:
		if !ss.caps[protocol.CapRender] {
			ss.w.Write(errorResponse(req.ID, protocol.ErrUnsupported, "render is not supported"))
			return false
		}
		ss.w.Write(protocol.Response{ID: req.ID, Type: protocol.TypeRender, Header: tool.Render(req.Arguments)})
	case protocol.TypePermission:
		if !ss.caps[protocol.CapPermissions] {
			ss.w.Write(errorResponse(req.ID, protocol.ErrUnsupported, "permission is not supported"))
			return false
		}
		// Decided off the read loop (PROTO-22): a decision takes time in
		// the size of the command, and an abort read after it must not
		// wait for it.
		ss.work.Add(1)
		go func() {
			defer ss.work.Done()
			answer := ss.Tool.Permission(req.Rules, req.Arguments)
			ss.w.Write(protocol.Response{ID: req.ID, Type: protocol.TypePermission, Permission: &answer})
		}()
	case protocol.TypeCall:
		ss.start(req)
	default:
		ss.w.Write(errorResponse(req.ID, protocol.ErrBadRequest, fmt.Sprintf("unknown request type %q", req.Type)))
	}
	return false
}

// start runs a call in its own goroutine, or refuses a duplicate id
// (PROTO-5).
func (ss *session) start(req protocol.Request) {
	ss.mu.Lock()
	if _, dup := ss.inflight[req.ID]; dup {
		ss.mu.Unlock()
		ss.w.Write(errorResponse(req.ID, protocol.ErrDuplicateID, "id "+req.ID+" is still in flight"))
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	ss.inflight[req.ID] = cancel
	ss.mu.Unlock()
	ss.work.Add(1)
	go func() {
		defer ss.work.Done()
		resp := ss.call(ctx, req, ss.w, ss.caps)
		ss.mu.Lock()
		delete(ss.inflight, req.ID)
		ss.mu.Unlock()
		cancel()
		ss.w.Write(resp)
	}()
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

func (s *Server) call(ctx context.Context, req protocol.Request, w *protocol.Writer, caps map[string]bool) protocol.Response {
	c := tool.Call{Args: req.Arguments, Cwd: req.Cwd, Session: req.Session}
	if o := req.Options; o != nil {
		c.Options = tool.Options{CommandPrefix: o.CommandPrefix, ShellPath: o.ShellPath,
			ExposeSessionEnvironment: o.ExposeSessionEnvironment}
	}
	if req.Updates && caps[protocol.CapUpdates] {
		c.OnUpdate = func(r protocol.Result) {
			w.Write(protocol.Response{ID: req.ID, Type: protocol.TypeUpdate, Result: &r})
		}
	}
	if req.Aborted {
		aborted, cancel := context.WithCancel(ctx)
		cancel()
		ctx = aborted
	}
	result := s.Tool.Execute(ctx, c)
	resp := protocol.Response{ID: req.ID, Type: protocol.TypeResult, Result: &result}
	if req.Evidence && caps[protocol.CapEvidence] {
		resp.Evidence = s.Tool.Evidence(req.Arguments, result)
	}
	return resp
}

func errorResponse(id, code, msg string) protocol.Response {
	return protocol.Response{ID: id, Type: protocol.TypeError, Error: &protocol.Error{Code: code, Message: msg}}
}
