// Package roles lets one executable play the parts the kit needs besides
// its own: the reference implementation (`serve` as the first argument)
// and a fake login shell (APEXCHECK_ROLE=fakeshell in the environment,
// since a shell's arguments belong to its caller). Both apexcheck and the
// test binaries call Dispatch first, so `go install` alone gives a
// working kit.
package roles

import (
	"os"

	"github.com/apexcheck/apexcheck/ref/server"
)

// RoleVariable selects a role by environment.
const RoleVariable = "APEXCHECK_ROLE"

// ServeArg is the first argument that makes the executable the reference.
const ServeArg = "serve"

// Dispatch runs the role the process was started for and exits; it
// returns when the process has no role and should go on as itself.
func Dispatch() {
	if len(os.Args) > 1 && os.Args[1] == ServeArg {
		os.Exit(server.Main())
	}
}
