package mcpbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tapTransport wraps a transport so the bridge can send requests the SDK
// has no method for (a mapping's setup requests, which are not MCP
// methods) on the SDK's own connection, and learn when a request has been
// written (to cancel a call that arrives already aborted only after the
// server has it).
type tapTransport struct {
	mcp.Transport
	conn *tapConn
}

func (t *tapTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.conn = &tapConn{Connection: c, waiting: map[string]chan *jsonrpc.Response{}}
	return t.conn, nil
}

// tapConn is the wrapped connection. Responses to its own requests, whose
// ids are strings no SDK request uses, are taken out of the stream before
// the SDK reads it.
type tapConn struct {
	mcp.Connection
	mu      sync.Mutex
	seq     int
	waiting map[string]chan *jsonrpc.Response
}

// writtenKey marks a context whose function is called once a request
// written with it is on the wire.
type writtenKey struct{}

func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			return nil, err
		}
		if resp, ok := msg.(*jsonrpc.Response); ok {
			if id, ok := resp.ID.Raw().(string); ok {
				c.mu.Lock()
				ch := c.waiting[id]
				delete(c.waiting, id)
				c.mu.Unlock()
				if ch != nil {
					ch <- resp
					continue
				}
			}
		}
		return msg, nil
	}
}

func (c *tapConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if f, ok := ctx.Value(writtenKey{}).(func()); ok && err == nil {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			f()
		}
	}
	return err
}

// call sends a request and waits for its answer.
func (c *tapConn) call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	c.mu.Lock()
	c.seq++
	id := fmt.Sprintf("apexcheck-bridge-%d", c.seq)
	ch := make(chan *jsonrpc.Response, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	rid, err := jsonrpc.MakeID(id)
	if err != nil {
		return nil, err
	}
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	if err := c.Connection.Write(ctx, &jsonrpc.Request{ID: rid, Method: method, Params: params}); err != nil {
		return nil, fmt.Errorf("send %s: %w", method, err)
	}
	select {
	case resp := <-ch:
		if resp.Error != nil {
			return nil, fmt.Errorf("%s: %w", method, resp.Error)
		}
		return resp.Result, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}
