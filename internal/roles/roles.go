// Package roles lets one executable play the parts the kit needs besides
// its own: the reference implementation (`serve` as the first argument)
// and a fake login shell (APEXCHECK_ROLE=fakeshell in the environment,
// since a shell's arguments belong to its caller). Both apexcheck and the
// test binaries call Dispatch first, so `go install` alone gives a
// working kit.
package roles

import (
	"os"

	"github.com/apexcheck/apexcheck/conformance/script"
	"github.com/apexcheck/apexcheck/fakeshell"
	"github.com/apexcheck/apexcheck/ref/server"
)

// RoleVariable selects a role by environment.
const RoleVariable = "APEXCHECK_ROLE"

// ServeArg is the only argument that makes the executable the reference;
// with more (serve --help) the command line handles it.
const ServeArg = "serve"

// Dispatch runs the role the process was started for and exits; it
// returns when the process has no role and should go on as itself.
func Dispatch() {
	if len(os.Args) == 2 && os.Args[1] == ServeArg {
		os.Exit(server.Main())
	}
	// The helpers of the login PATH probe's scenarios (the fakeshell
	// command and impl start of package script): a fake login shell, a program run with /bin changed,
	// and the session leader of a terminal scenario.
	switch os.Getenv(RoleVariable) {
	case fakeshell.Role:
		os.Exit(fakeshell.Main())
	case fakeshell.OverlayRole:
		os.Exit(fakeshell.OverlayMain())
	case script.PTYJobRole:
		os.Exit(script.PTYJobMain())
	}
}
