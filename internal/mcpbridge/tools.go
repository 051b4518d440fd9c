package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apexcheck/apexcheck/internal/version"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tools starts the MCP server argv (its stderr going to stderr), asks it
// for its tools (tools/list, every page) and stops it: what a mapping's
// author reads to choose the tool and name its arguments. protocolVersion
// is as in [Mapping.ProtocolVersion]; ctx bounds the whole exchange.
func Tools(ctx context.Context, argv []string, protocolVersion string, stderr io.Writer) (*mcp.Implementation, []*mcp.Tool, error) {
	if len(argv) == 0 {
		return nil, nil, errors.New("list mcp tools: no command")
	}
	srv, err := startServer(argv, stderr)
	if err != nil {
		return nil, nil, fmt.Errorf("start mcp server %q: %w", argv[0], err)
	}
	tap := &tapTransport{Transport: srv.transport(), srv: srv}
	client := mcp.NewClient(&mcp.Implementation{Name: "apexcheck-mcp-tools", Version: version.Kit}, nil)
	session, err := client.Connect(ctx, tap, &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		srv.stop()
		return nil, nil, fmt.Errorf("connect to mcp server %q: %w", argv[0], tap.conn.why(err))
	}
	defer session.Close()
	var tools []*mcp.Tool
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			return nil, nil, fmt.Errorf("mcp tools/list: %w", tap.conn.why(err))
		}
		tools = append(tools, t)
	}
	return session.InitializeResult().ServerInfo, tools, nil
}
