package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/apexcheck/apexcheck"
	"github.com/apexcheck/apexcheck/conformance/verdict"
	"github.com/apexcheck/apexcheck/internal/mcpbridge"
	"mvdan.cc/sh/v3/shell"
)

// mcpFlags certify an MCP server's shell tool through the bridge: --mcp
// rewrites the implementation command into `apexcheck mcp-bridge`, so the
// runner speaks its own protocol to the bridge, unchanged.
type mcpFlags struct {
	server  string
	mapping string
	// startup is the mapping's start-up bound, set by command: the
	// runner's bound on the hello answer starts after it.
	startup time.Duration
}

func (f *mcpFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.server, "mcp", "", "certify the shell tool of the MCP server `CMD ARGS` (stdio) through the bridge, instead of --impl")
	fs.StringVar(&f.mapping, "mcp-mapping", "", "with --mcp, the mapping `FILE` or the name of a shipped one ("+joinNames()+")")
}

func joinNames() string {
	s := ""
	for i, n := range mcpbridge.Names(apexcheck.MCPMappings) {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

// command is the bridge's argument vector. The mapping is checked here, so
// a bad one is a usage error rather than an implementation that cannot
// start; a file is made absolute, since the bridge starts in each
// scenario's work directory, and so are the server's arguments that name
// existing relative paths, as for --impl.
func (f *mcpFlags) command(self, impl string) ([]string, error) {
	if impl != "" {
		return nil, errors.New("--mcp and --impl exclude each other")
	}
	if f.mapping == "" {
		return nil, errors.New("--mcp needs --mcp-mapping")
	}
	m, err := mcpbridge.Load(f.mapping, apexcheck.MCPMappings)
	if err != nil {
		return nil, fmt.Errorf("--mcp-mapping: %w", err)
	}
	f.startup = m.Startup()
	mapping := f.mapping
	if _, err := os.Stat(mapping); err == nil {
		if mapping, err = filepath.Abs(mapping); err != nil {
			return nil, fmt.Errorf("--mcp-mapping: %w", err)
		}
	}
	words, err := shell.Fields(f.server, nil)
	if err != nil {
		return nil, fmt.Errorf("--mcp %q: %w", f.server, err)
	}
	if len(words) == 0 {
		return nil, errors.New("--mcp is empty")
	}
	absPaths(words)
	// The runner finds --impl's program on its own PATH; the bridge must
	// start the same server, also when a scenario starts the implementation
	// without PATH (exec_host_without_path), so the bridge gets its path.
	if !strings.Contains(words[0], "/") {
		if path, err := exec.LookPath(words[0]); err == nil {
			words[0] = path
		}
	}
	return mcpbridge.Args(self, mapping, words), nil
}

// commandLine is the implementation as the user named it, for reports.
func (f *implFlags) commandLine() string {
	if f.mcp.server != "" {
		return "--mcp " + verdict.ShellQuote(f.mcp.server) + " --mcp-mapping " + verdict.ShellQuote(f.mcp.mapping)
	}
	return f.impl
}
