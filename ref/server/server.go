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
// request or the end of in. Either way the tool is closed (its background
// commands killed) and every in-flight call aborted and answered before
// Serve returns (PROTO-9, PROTO-10).
func (s *Server) Serve(in io.Reader, out io.Writer) error {
	w := protocol.NewWriter(out)
	r := protocol.NewReader(in)
	var (
		mu       sync.Mutex
		inflight = map[string]context.CancelFunc{}
		wg       sync.WaitGroup
	)
	// endSession aborts every call in flight, waits for their results to
	// be written, and disposes the tool (PROTO-9, PROTO-10).
	var endOnce sync.Once
	endSession := func() {
		endOnce.Do(func() {
			mu.Lock()
			for _, cancel := range inflight {
				cancel()
			}
			mu.Unlock()
			wg.Wait()
			s.Tool.Close()
		})
	}
	defer endSession()
	caps := map[string]bool{}
	for _, c := range s.Capabilities {
		caps[c] = true
	}
	for {
		line, err := r.Line()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if errors.Is(err, protocol.ErrLineTooLong) {
			w.Write(errorResponse("", protocol.ErrBadRequest, err.Error()))
			continue
		}
		if err != nil {
			return fmt.Errorf("read request: %w", err)
		}
		var req protocol.Request
		if err := json.Unmarshal(line, &req); err != nil {
			// Answer under the request's id when it can be read (PROTO-15).
			var partial struct {
				ID string `json:"id"`
			}
			json.Unmarshal(line, &partial)
			w.Write(errorResponse(partial.ID, protocol.ErrBadRequest, "malformed request: "+err.Error()))
			continue
		}
		if req.ID == "" {
			w.Write(errorResponse("", protocol.ErrBadRequest, "request has no id"))
			continue
		}
		switch req.Type {
		case protocol.TypeHello:
			w.Write(protocol.Response{ID: req.ID, Type: protocol.TypeHello, Protocol: protocol.Version,
				Implementation: &s.Impl, Capabilities: s.Capabilities})
		case protocol.TypeShutdown:
			endSession()
			w.Write(protocol.Response{ID: req.ID, Type: protocol.TypeShutdown})
			return nil
		case protocol.TypeAbort:
			mu.Lock()
			if cancel, ok := inflight[req.Target]; ok {
				cancel()
			}
			mu.Unlock()
			w.Write(protocol.Response{ID: req.ID, Type: protocol.TypeAbort})
		case protocol.TypeRender:
			if !caps[protocol.CapRender] {
				w.Write(errorResponse(req.ID, protocol.ErrUnsupported, "render is not supported"))
				continue
			}
			w.Write(protocol.Response{ID: req.ID, Type: protocol.TypeRender, Header: tool.Render(req.Arguments)})
		case protocol.TypePermission:
			if !caps[protocol.CapPermissions] {
				w.Write(errorResponse(req.ID, protocol.ErrUnsupported, "permission is not supported"))
				continue
			}
			answer := s.Tool.Permission(req.Rules, req.Arguments)
			w.Write(protocol.Response{ID: req.ID, Type: protocol.TypePermission, Permission: &answer})
		case protocol.TypeCall:
			mu.Lock()
			if _, dup := inflight[req.ID]; dup {
				mu.Unlock()
				w.Write(errorResponse(req.ID, protocol.ErrDuplicateID, "id "+req.ID+" is still in flight"))
				continue
			}
			ctx, cancel := context.WithCancel(context.Background())
			inflight[req.ID] = cancel
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp := s.call(ctx, req, w, caps)
				mu.Lock()
				delete(inflight, req.ID)
				mu.Unlock()
				cancel()
				w.Write(resp)
			}()
		default:
			w.Write(errorResponse(req.ID, protocol.ErrBadRequest, fmt.Sprintf("unknown request type %q", req.Type)))
		}
	}
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
