package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apexcheck/apexcheck/internal/mcpbridge/mcpfake"
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
		{[]string{"--mcp", "server", "--mcp-mapping", "nosuch"}, "no shipped mapping of that name (codex, desktop-commander, mcp-server-commands)"},
		{[]string{"--mcp", "'", "--mcp-mapping", "codex"}, "--mcp"},
	} {
		var stdout, stderr bytes.Buffer
		code := Main(tc.args, &stdout, &stderr)
		if code != ExitUsage || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr.String(), ExitUsage, tc.want)
		}
	}
}

// TestMCPEndToEnd certifies the fake MCP server through --mcp: the runner
// starts this binary as the bridge, which starts the fake server, and the
// handshake scenario sees the mapping's name with the server's version.
func TestMCPEndToEnd(t *testing.T) {
	dir := t.TempDir()
	mapping := filepath.Join(dir, "fake.json")
	if err := os.WriteFile(mapping, []byte(mcpfake.Mapping), 0o644); err != nil {
		t.Fatal(err)
	}
	server := os.Args[0] + " " + mcpfake.Arg + " " + filepath.Join(dir, "server.log")
	var stdout, stderr bytes.Buffer
	code := Main([]string{"--mcp", server, "--mcp-mapping", mapping, "--run", "^proto_handshake$", "--progress", "off", "-v"}, &stdout, &stderr)
	if code != ExitConformant {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	for _, want := range []string{"checking fake-shell 9.9.9 (go)", "capabilities: abort", "PASSED   proto_handshake"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
	if !strings.Contains(string(log), "x/setup") {
		t.Errorf("the server never got the mapping's setup request:\n%s", log)
	}
}

// TestMCPValidateStartupAllowance: validate gives an MCP server behind the
// bridge its mapping's start-up bound before the bound on the hello answer
// begins, as a run does, so a server slower to start than --bound is
// validated rather than reported as never answering hello.
func TestMCPValidateStartupAllowance(t *testing.T) {
	dir := t.TempDir()
	mapping := filepath.Join(dir, "fake.json")
	if err := os.WriteFile(mapping, []byte(mcpfake.Mapping), 0o644); err != nil {
		t.Fatal(err)
	}
	// The server starts 2 s late; the bound on every wait is 1 s.
	server := "sh -c 'sleep 2; exec \"$0\" \"$@\"' " + os.Args[0] + " " + mcpfake.Arg + " " + filepath.Join(dir, "server.log")
	var stdout, stderr bytes.Buffer
	code := Main([]string{"validate", "--mcp", server, "--mcp-mapping", mapping, "--bound", "1s"}, &stdout, &stderr)
	if code == ExitUsage || strings.Contains(stderr.String(), "hello") {
		t.Fatalf("exit %d: the start-up counted against the hello bound\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
}
