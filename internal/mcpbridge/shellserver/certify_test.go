package shellserver_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apexcheck/apexcheck/internal/cli"
	"github.com/apexcheck/apexcheck/internal/mcpbridge"
	"github.com/apexcheck/apexcheck/internal/mcpbridge/shellserver"
	"github.com/apexcheck/apexcheck/internal/roles"
)

func TestMain(m *testing.M) {
	roles.Dispatch()
	// --mcp starts this binary as the bridge, and the bridge starts it as
	// the server.
	if len(os.Args) > 1 && os.Args[1] == mcpbridge.Arg {
		os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	if len(os.Args) > 2 && os.Args[1] == shellserver.Arg {
		os.Exit(shellserver.Main(os.Args[2]))
	}
	os.Exit(m.Run())
}

// TestCertifiesCore certifies the server in the core profile through
// --mcp, in both text conventions: every core scenario must run and pass.
// The server is correct, so a failure here is the bridge's or the
// runner's: a result, an exit status, a cancellation or the server's own
// process judged wrongly.
func TestCertifiesCore(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the core profile twice")
	}
	for _, conv := range []string{shellserver.Plain, shellserver.JSON} {
		t.Run(conv, func(t *testing.T) {
			dir := t.TempDir()
			mapping := filepath.Join(dir, conv+".json")
			if err := os.WriteFile(mapping, []byte(shellserver.Mappings[conv]), 0o644); err != nil {
				t.Fatal(err)
			}
			server := os.Args[0] + " " + shellserver.Arg + " " + conv
			var stdout, stderr bytes.Buffer
			code := cli.Main([]string{"--mcp", server, "--mcp-mapping", mapping, "--profile", "core", "--certify",
				"--progress", "off", "--parallel", "2"}, &stdout, &stderr)
			if code != cli.ExitConformant {
				t.Fatalf("exit %d, want %d (certified)\nstdout:\n%s\nstderr:\n%s", code, cli.ExitConformant, stdout.String(), stderr.String())
			}
			if want := "shellserver-" + conv + " 1.0.0"; !strings.Contains(stdout.String(), want) {
				t.Errorf("stdout does not name %q:\n%s", want, stdout.String())
			}
			t.Logf("%s", stdout.String())
		})
	}
}

// TestMCPTools lists the server's tools as a mapping's author sees them.
func TestMCPTools(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := cli.Main([]string{"mcp", "tools", "--mcp", os.Args[0] + " " + shellserver.Arg + " " + shellserver.JSON}, &stdout, &stderr)
	if code != cli.ExitConformant {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	for _, want := range []string{"server shellserver-json 1.0.0", "1 tools", "tool exec", `"timeout_ms"`, `"required"`} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
}
