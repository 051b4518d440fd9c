package cli

import (
	"os/exec"
	"slices"
	"testing"
)

// TestMCPCommandResolvesServer: the bridge is started with the server's
// program as the runner finds it on its own PATH, as --impl's would be, so
// a scenario that starts the implementation without PATH still reaches the
// server (exec_host_without_path).
func TestMCPCommandResolvesServer(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	for _, tc := range []struct {
		server string
		want   string
	}{
		{"sh -c true", sh},
		{sh + " -c true", sh},
		{"no-such-program-apexcheck -x", "no-such-program-apexcheck"}, // left for the bridge to report
	} {
		f := mcpFlags{server: tc.server, mapping: "codex"}
		argv, err := f.command("/self", "")
		if err != nil {
			t.Fatalf("%q: %v", tc.server, err)
		}
		i := slices.Index(argv, "--")
		if i < 0 || i+1 >= len(argv) || argv[i+1] != tc.want {
			t.Errorf("%q: bridge argv %q, want the server started as %q", tc.server, argv, tc.want)
		}
	}
}
