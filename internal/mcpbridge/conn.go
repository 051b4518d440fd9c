package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tapTransport wraps a transport so the bridge can send requests the SDK
// has no method for (a mapping's setup requests, which are not MCP
// methods) on the SDK's own connection, and learn why the connection to
// the server broke.
type tapTransport struct {
	mcp.Transport
	srv  *server
	conn *tapConn
}

func (t *tapTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.conn = &tapConn{Connection: c, srv: t.srv, waiting: map[string]chan *jsonrpc.Response{}}
	return t.conn, nil
}

// tapConn is the wrapped connection. Responses to its own requests, whose
// ids are strings no SDK request uses, are taken out of the stream before
// the SDK reads it.
type tapConn struct {
	mcp.Connection
	srv     *server
	mu      sync.Mutex
	seq     int
	waiting map[string]chan *jsonrpc.Response
	readErr error // why reading from the server failed, naming the server
}

func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			if ctx.Err() == nil {
				err = c.srv.blame(err)
				c.mu.Lock()
				if c.readErr == nil {
					c.readErr = err
				}
				c.mu.Unlock()
			}
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

// why is err, a failure of a request to the server, with the reason the
// connection broke when it did: the SDK answers requests in flight with
// "connection closed" and keeps the read error to itself.
func (c *tapConn) why(err error) error {
	if c == nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.readErr == nil || errors.Is(err, c.readErr) {
		return err
	}
	return fmt.Errorf("%w (%v)", err, c.readErr)
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
