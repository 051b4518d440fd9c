package cli

import (
	"io"
	"os"

	apexcheck "github.com/apexcheck/apexcheck"
	"github.com/apexcheck/apexcheck/internal/mcpbridge"
)

// mcpBridgeHelp is what mcp-bridge --help prints between the synopsis and
// the flags.
const mcpBridgeHelp = `
Serve the kit's protocol on stdin and stdout by driving an MCP server's
shell tool through the official MCP Go SDK, as the checked-in mapping M
(a name such as codex, or a file) says: the tool's name, its arguments and
their units, how its result's text and exit status are read, and any
set-up request. A run with --mcp 'CMD' --mcp-mapping M starts it as the
implementation; see docs/mcp-bridge.md.`

// cmdMCPBridge runs the MCP bridge, which parses its own arguments.
func cmdMCPBridge(args []string, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" {
			fs := newFlagSet(mcpbridge.Arg, stdout, stderr)
			fs.String("mapping", "", "the mapping `FILE`, or the name of a shipped mapping (codex)")
			fs.printHelp()
			return ExitConformant
		}
	}
	return mcpbridge.Main(args, apexcheck.MCPMappings, os.Stdin, stdout, stderr)
}
