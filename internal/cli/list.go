package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/apexcheck/apexcheck/conformance"
	"github.com/apexcheck/apexcheck/conformance/suite"
)

const listHelp = `
List the scenarios of the embedded suite: name, the clauses each proves and
the capabilities it needs. --run, --area and --shard select as a run does.`

func cmdList(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("list", stdout, stderr)
	var sel selectFlags
	sel.register(fs.FlagSet, "list")
	verbose := fs.Bool("v", false, "also print each scenario's summary, in a last column")
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
