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
as EXEC-10, in any case.

Given a SCENARIO name instead (output_core_cut, as list and failures name
it), print its explanation and the text of each clause it proves;
apexcheck show SCENARIO prints the whole scenario.`

func cmdExplain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("explain", stdout, stderr)
	if code, done := fs.parse(args, 1); done {
		return code
	}
	if fs.NArg() != 1 {
		return fs.usageError(errors.New("want one clause ID, such as EXEC-10, or one scenario name"))
	}
	clauses, err := suite.LoadClauses(embedded.Spec)
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck explain:", err)
		return ExitUsage
	}
	arg := fs.Arg(0)
	if id := strings.ToUpper(arg); suite.IsClauseID(id) {
		for _, c := range clauses {
			if c.ID == id {
				explainClause(stdout, c)
				return ExitConformant
			}
		}
		fmt.Fprintf(stderr, "apexcheck explain: no clause %s\n", id)
		return ExitUsage
	}
	s, err := findScenario(arg)
	if err != nil {
		fmt.Fprintf(stderr, "apexcheck explain: %s is not a clause ID (such as EXEC-10), and %v\n", arg, err)
		return ExitUsage
	}
	return explainScenario(stdout, stderr, s, clauses)
}

// explainClause prints a clause and the scenarios that prove it.
func explainClause(w io.Writer, c suite.Clause) {
	fmt.Fprintf(w, "%s (%s%s; %s) spec/%s\n%s\n\nscenarios:\n", c.ID, c.Level, coreMarker(c), c.Provenance, c.File, c.Text)
	scenarios, _ := suite.LoadScenarios(embedded.Scripts, ".")
	n := 0
	for _, s := range scenarios {
		for _, sc := range s.Clauses {
			if sc == c.ID {
				fmt.Fprintf(w, "  %s  %s%s\n", shippedPath(s), s.Summary, coreNote(s))
				n++
			}
		}
	}
	if n == 0 {
		fmt.Fprintln(w, "  (none)")
	}
}

// explainScenario prints a scenario's explanation and the clauses it
// proves, each with its text.
func explainScenario(stdout, stderr io.Writer, s suite.Scenario, clauses []suite.Clause) int {
	data, err := readScenario(s)
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck explain:", err)
		return ExitUsage
	}
	fmt.Fprintf(stdout, "%s (%s)%s\n%s\n\nproves:\n", s.Name, shippedPath(s), coreNote(s), explanation(data))
	for _, id := range s.Clauses {
		found := false
		for _, c := range clauses {
			if c.ID == id {
				// Without the provenance, which explain CLAUSE prints: here
				// the clauses' texts are what the reader compares.
				fmt.Fprintf(stdout, "  %s (%s%s) spec/%s\n%s\n", c.ID, c.Level, coreMarker(c), c.File, indent(c.Text))
				found = true
			}
		}
		if !found {
			fmt.Fprintf(stdout, "  %s (not in the spec)\n", id)
		}
	}
	fmt.Fprintf(stdout, "\nthe whole scenario: apexcheck show %s\n", s.Name)
	return ExitConformant
}
