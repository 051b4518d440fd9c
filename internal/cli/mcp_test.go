package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestMCPFlagsUsage checks that --mcp's mistakes are usage errors that
// say what is wrong, before anything is started.
func TestMCPFlagsUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--mcp", "server"}, "--mcp needs --mcp-mapping"},
		{[]string{"--mcp", "server", "--mcp-mapping", "codex", "--impl", "x"}, "exclude each other"},
		{[]string{"--mcp", "server", "--mcp-mapping", "nosuch"}, "no shipped mapping of that name (codex)"},
		{[]string{"--mcp", "'", "--mcp-mapping", "codex"}, "--mcp"},
	} {
		var stdout, stderr bytes.Buffer
		code := Main(tc.args, &stdout, &stderr)
		if code != ExitUsage || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr.String(), ExitUsage, tc.want)
		}
	}
}
