package client

import (
	"os"
	"testing"
	"time"
)

// TestStartupAllowance checks that Options.Startup comes before the bound
// on the hello answer: an implementation that takes longer than the bound
// to start (an MCP server behind the bridge) but answers within the
// allowance starts, and without the allowance it does not.
func TestStartupAllowance(t *testing.T) {
	// Answers hello after 1.5 s, with the request's own id.
	const slow = `sleep 1.5; read line; id=$(printf '%s' "$line" | sed 's/.*"id":"\([^"]*\)".*/\1/');` +
		` printf '{"id":"%s","type":"hello","protocol":1,"implementation":{"name":"slow","version":"1","language":"sh"},"capabilities":[]}\n' "$id"; cat >/dev/null`
	for _, tc := range []struct {
		startup time.Duration
		ok      bool
	}{{0, false}, {20 * time.Second, true}} {
		c, err := Start([]string{"sh", "-c", slow}, os.Environ(), t.TempDir(), 500*time.Millisecond, Options{Startup: tc.startup})
		if (err == nil) != tc.ok {
			t.Errorf("startup %v: err %v, want ok %v", tc.startup, err, tc.ok)
		}
		if c != nil {
			c.Kill()
		}
	}
}
