package cli

import (
	"io"

	"github.com/apexcheck/apexcheck/ref/server"
)

const serveHelp = `
Serve the reference implementation on stdin and stdout, speaking the
protocol of spec/protocol.md. A run without --impl starts it; so can any
other client: --impl 'apexcheck serve'.`

// cmdServe serves the reference. The binary's own `apexcheck serve` never
// gets here (internal/roles serves it before the command line is parsed);
// this is for serve with flags (--help) and for callers of Main.
func cmdServe(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", stdout, stderr)
	if code, done := fs.parse(args, 0); done {
		return code
	}
	return server.Main()
}
