// Command apexcheck certifies an implementation of the bash tool of AI
// coding agents against the apexcheck specification. With no arguments it
// certifies the embedded reference implementation; --impl names any other.
//
// Run `apexcheck -h` for usage.
package main

import (
	"os"

	"github.com/apexcheck/apexcheck/internal/cli"
	"github.com/apexcheck/apexcheck/internal/roles"
)

func main() {
	roles.Dispatch()
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
