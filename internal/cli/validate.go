package cli

import (
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/apexcheck/apexcheck/conformance/validate"
)

const validateHelp = `
Check the conversation before the behaviour: send a few canned requests to
the implementation and check every message, both ways, against
spec/protocol.schema.json, naming each wrong field. Exit status 1 when a
message is invalid.`

func cmdValidate(args []string, stdout, stderr io.Writer) int {
	fset := newFlagSet("validate", stdout, stderr)
	var f implFlags
	f.register(fset.FlagSet)
	verbose := fset.Bool("v", false, "print every message checked, not only those with problems")
	if code, done := fset.parse(args, 0); done {
		return code
	}
	argv, _, err := f.command()
	if err != nil {
		return fset.usageError(err)
	}
	data, err := fs.ReadFile(embedded.Spec, "protocol.schema.json")
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck validate:", err)
		return ExitUsage
	}
	schema, err := validate.ParseSchema(data)
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck validate:", err)
		return ExitUsage
	}
	v, err := validate.Run(argv, f.bound, f.mcp.startup, schema)
	if v != nil {
		v.WriteText(stdout, *verbose)
	}
	if err != nil {
		fmt.Fprintf(stderr, "apexcheck validate: implementation %q: %v\n", strings.Join(argv, " "), err)
		return ExitUsage
	}
	if v.Errors() > 0 {
		return ExitNotConformant
	}
	return ExitConformant
}
