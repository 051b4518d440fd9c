//go:build !linux

package script

import (
	"errors"

	"github.com/apexcheck/apexcheck/conformance/client"
	"github.com/rogpeppe/go-internal/testscript"
)

// PTYJobRole is the value of APEXCHECK_ROLE that makes the kit's binary the
// session leader of `impl start -pty` (Linux only).
const PTYJobRole = "ptyjob"

func (s *state) startPTY(mode string, env []string) (*client.Client, error) {
	return nil, errors.New("impl start -pty is Linux-only")
}

func cmdTTY(ts *testscript.TestScript, neg bool, args []string) {
	ts.Fatalf("tty: terminal scenarios are Linux-only")
}

// PTYJobMain fails: terminal scenarios are Linux-only.
func PTYJobMain() int { return 125 }
