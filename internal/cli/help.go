package cli

import (
	"fmt"
	"io"
)

const helpHelp = `
Print the overview of apexcheck, or the help of COMMAND (the same as
'apexcheck COMMAND --help').`

// cmdHelp prints the overview or a command's help.
func cmdHelp(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("help", stdout, stderr)
	if code, done := fs.parse(args, 1); done {
		return code
	}
	name := fs.Arg(0)
	if name == "apexcheck" {
		name = ""
	}
	if lookup(name) == nil {
		return fs.usageError(fmt.Errorf("no command %q", name))
	}
	return lookup(name).run([]string{"--help"}, stdout, stderr)
}
