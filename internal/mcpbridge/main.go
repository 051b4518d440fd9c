package mcpbridge

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
)

// Main runs `apexcheck mcp-bridge --mapping M -- CMD ARGS`: it serves the
// kit's protocol on stdin and stdout with the MCP server CMD. mappings
// holds the shipped mappings a name may refer to.
func Main(args []string, mappings fs.FS, stdin io.Reader, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("apexcheck mcp-bridge", flag.ContinueOnError)
	fset.SetOutput(stderr)
	mapping := fset.String("mapping", "", "the mapping `FILE`, or the name of a shipped mapping")
	fset.Usage = func() {
		fmt.Fprintln(stderr, "usage: apexcheck mcp-bridge --mapping FILE|NAME -- CMD [ARGS...]")
		fset.PrintDefaults()
	}
	if err := fset.Parse(args); err != nil {
		return 2
	}
	if *mapping == "" || fset.NArg() == 0 {
		fset.Usage()
		return 2
	}
	m, err := Load(*mapping, mappings)
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck mcp-bridge:", err)
		return 2
	}
	// The start-up bound: a server that does not finish its handshake in
	// it is broken, and the runner learns it from the bridge's exit and
	// stderr rather than from its own bound on hello, which --mcp starts
	// after this one.
	ctx, cancel := context.WithTimeout(context.Background(), m.startup())
	b, err := Start(ctx, m, fset.Args(), stderr)
	cancel()
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck mcp-bridge:", err)
		return 2
	}
	if err := b.Serve(stdin, stdout); err != nil {
		fmt.Fprintln(stderr, "apexcheck mcp-bridge:", err)
		return 1
	}
	return 0
}

// Args is the implementation command that runs the bridge from the
// apexcheck executable self, with the mapping and the server's command.
func Args(self, mapping string, server []string) []string {
	return append([]string{self, Arg, "--mapping", mapping, "--"}, server...)
}

// Arg is the first argument that makes the apexcheck executable the bridge.
const Arg = "mcp-bridge"
