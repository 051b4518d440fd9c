package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/apexcheck/apexcheck/internal/mcpbridge"
	"mvdan.cc/sh/v3/shell"
)

// mcpHelp is what mcp --help prints between the synopsis and the flags.
const mcpHelp = `
Inspect an MCP server before writing its mapping. mcp tools starts the
server --mcp names (stdio), asks for its tools and prints each one's
name, description and input schema, then stops it: the tool to map, the
names of its command, timeout and working-directory arguments, and the
arguments it requires (for the mapping's arguments.defaults and
arguments.fixed). See docs/mcp-bridge.md.`

// cmdMCP runs apexcheck mcp tools --mcp CMD.
func cmdMCP(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("mcp", stdout, stderr)
	server := fs.String("mcp", "", "the MCP server `CMD ARGS` (stdio)")
	version := fs.String("protocol-version", "", "the MCP `VERSION` to ask for (as a mapping's protocolVersion; empty: the SDK's latest)")
	startup := fs.Duration("startup", mcpbridge.DefaultStartup, "bound on the server's start-up and its answer")
	// The one subcommand, tools, comes first; its flags follow it.
	sub := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	if code, done := fs.parse(args, 0); done {
		return code
	}
	if sub != "tools" {
		return fs.usageError(errors.New("usage: apexcheck mcp tools --mcp CMD"))
	}
	if *server == "" {
		return fs.usageError(errors.New("mcp tools needs --mcp CMD"))
	}
	words, err := shell.Fields(*server, nil)
	if err != nil || len(words) == 0 {
		return fs.usageError(fmt.Errorf("--mcp %q: not a command line", *server))
	}
	if !strings.Contains(words[0], "/") {
		if path, err := exec.LookPath(words[0]); err == nil {
			words[0] = path
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), *startup)
	defer cancel()
	info, tools, err := mcpbridge.Tools(ctx, words, *version, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck mcp tools:", err)
		return ExitUsage
	}
	if info != nil {
		fmt.Fprintf(stdout, "server %s %s\n", info.Name, info.Version)
	}
	fmt.Fprintf(stdout, "%d tools\n", len(tools))
	for _, t := range tools {
		fmt.Fprintf(stdout, "\ntool %s\n", t.Name)
		if d := strings.TrimSpace(t.Description); d != "" {
			fmt.Fprintf(stdout, "  description:\n%s\n", indentBy(d, "    "))
		}
		schema, err := json.MarshalIndent(t.InputSchema, "    ", "  ")
		if err != nil {
			schema = []byte(fmt.Sprint(t.InputSchema))
		}
		fmt.Fprintf(stdout, "  input schema:\n    %s\n", schema)
	}
	return ExitConformant
}

func indentBy(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
