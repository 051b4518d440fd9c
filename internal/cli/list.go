package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/apexcheck/apexcheck/conformance"
	"github.com/apexcheck/apexcheck/conformance/suite"
)

const listHelp = `
List the scenarios of the embedded suite: name, the clauses each proves and
the capabilities it needs. --run, --area and --shard select as a run does.
With --json, a JSON array of objects with the members name, file (the path
as shipped; apexcheck show NAME prints it), area, clauses, requires,
profiles and summary, for scripts.`

func cmdList(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("list", stdout, stderr)
	var sel selectFlags
	sel.register(fs.FlagSet, "list")
	verbose := fs.Bool("v", false, "also print each scenario's summary, in a last column")
	asJSON := fs.Bool("json", false, "print a JSON array of the scenarios instead of a table")
	if code, done := fs.parse(args, 0); done {
		return code
	}
	all, err := suite.LoadScenarios(embedded.Scripts, ".")
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck list:", err)
		return ExitUsage
	}
	cfg := conformance.Config{Scripts: embedded.Scripts, Dir: "."}
	if err := sel.apply(&cfg, all); err != nil {
		return fs.usageError(err)
	}
	scenarios, err := cfg.Selected()
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck list:", err)
		return ExitUsage
	}
	if *asJSON {
		if err := writeListJSON(stdout, scenarios); err != nil {
			fmt.Fprintln(stderr, "apexcheck list:", err)
			return ExitUsage
		}
		return ExitConformant
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	header := "SCENARIO\tCLAUSES\tREQUIRES"
	if *verbose {
		header += "\tSUMMARY"
	}
	fmt.Fprintln(tw, header)
	for _, s := range scenarios {
		req := "-"
		if len(s.Requires) > 0 {
			req = strings.Join(s.Requires, ",")
		}
		row := s.Name + coreNote(s) + "\t" + strings.Join(s.Clauses, ",") + "\t" + req
		if *verbose {
			row += "\t" + s.Summary
		}
		fmt.Fprintln(tw, row)
	}
	if err := tw.Flush(); err != nil {
		fmt.Fprintln(stderr, "apexcheck list:", err)
		return ExitUsage
	}
	return ExitConformant
}

// listEntry is one scenario as list --json prints it. Lists are never
// null, so that a script can iterate without a check.
type listEntry struct {
	Name     string          `json:"name"`
	File     string          `json:"file"`
	Area     string          `json:"area"`
	Clauses  []string        `json:"clauses"`
	Requires []string        `json:"requires"`
	Profiles []suite.Profile `json:"profiles"`
	Summary  string          `json:"summary"`
}

// writeListJSON prints scenarios as an indented JSON array.
func writeListJSON(w io.Writer, scenarios []suite.Scenario) error {
	out := make([]listEntry, 0, len(scenarios))
	for _, s := range scenarios {
		e := listEntry{Name: s.Name, File: shippedPath(s), Area: s.Area, Clauses: s.Clauses, Requires: s.Requires,
			Profiles: []suite.Profile{suite.Apex}, Summary: s.Summary}
		if suite.Core.HasScenario(s) {
			e.Profiles = append(e.Profiles, suite.Core)
		}
		if e.Clauses == nil {
			e.Clauses = []string{}
		}
		if e.Requires == nil {
			e.Requires = []string{}
		}
		out = append(out, e)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}
