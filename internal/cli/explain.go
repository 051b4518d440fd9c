package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apexcheck/apexcheck/conformance/suite"
)

const explainHelp = `
Print a clause of the spec (its level, source and text) and every scenario
that proves it, with the scenario's path as shipped. CLAUSE is an ID such
as EXEC-10, in any case.`

func cmdExplain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("explain", stdout, stderr)
	if code, done := fs.parse(args, 1); done {
		return code
	}
	if fs.NArg() != 1 {
		return fs.usageError(errors.New("want one clause ID, such as EXEC-10"))
	}
	id := strings.ToUpper(fs.Arg(0))
	clauses, err := suite.LoadClauses(embedded.Spec)
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck explain:", err)
		return ExitUsage
	}
	for _, c := range clauses {
		if c.ID != id {
			continue
		}
		fmt.Fprintf(stdout, "%s (%s%s; %s) spec/%s\n%s\n\nscenarios:\n", c.ID, c.Level, coreMarker(c), c.Provenance, c.File, c.Text)
		scenarios, _ := suite.LoadScenarios(embedded.Scripts, ".")
		n := 0
		for _, s := range scenarios {
			for _, sc := range s.Clauses {
				if sc == id {
					fmt.Fprintf(stdout, "  testdata/scripts/%s.txtar  %s%s\n", s.Name, s.Summary, coreNote(s))
					n++
				}
			}
		}
		if n == 0 {
			fmt.Fprintln(stdout, "  (none)")
		}
		return ExitConformant
	}
	fmt.Fprintf(stderr, "apexcheck explain: no clause %s\n", id)
	return ExitUsage
}
