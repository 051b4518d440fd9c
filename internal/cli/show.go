package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/apexcheck/apexcheck/conformance/suite"
)

const showHelp = `
Print a scenario exactly as the kit ships it (embedded in this binary, so
no clone of the repository is needed): its explanation, the clauses it
proves, its commands and its files. SCENARIO is a name as list prints it
(output_core_cut), or its path (testdata/scripts/output_core_cut.txtar).
spec/INTERPRETING.md documents the commands.`

func cmdShow(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("show", stdout, stderr)
	if code, done := fs.parse(args, 1); done {
		return code
	}
	if fs.NArg() != 1 {
		return fs.usageError(errors.New("want one scenario name, such as output_core_cut (apexcheck list names them)"))
	}
	s, err := findScenario(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck show:", err)
		return ExitUsage
	}
	data, err := readScenario(s)
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck show:", err)
		return ExitUsage
	}
	if _, err := stdout.Write(data); err != nil {
		fmt.Fprintln(stderr, "apexcheck show:", err)
		return ExitUsage
	}
	return ExitConformant
}

// scenarioName reduces what a user may type for a scenario (its name, its
// file name or its path as shipped) to its name.
func scenarioName(arg string) string {
	return strings.TrimSuffix(path.Base(strings.TrimSpace(arg)), ".txtar")
}

// findScenario returns the embedded scenario arg names, or an error that
// suggests the names it may have meant.
func findScenario(arg string) (suite.Scenario, error) {
	all, err := suite.LoadScenarios(embedded.Scripts, ".")
	if err != nil {
		return suite.Scenario{}, err
	}
	name := scenarioName(arg)
	var near []string
	for _, s := range all {
		if s.Name == name {
			return s, nil
		}
		if strings.Contains(s.Name, strings.ToLower(name)) {
			near = append(near, s.Name)
		}
	}
	msg := fmt.Sprintf("no scenario %s", name)
	if len(near) > 0 {
		sort.Strings(near)
		if len(near) > 5 {
			near = append(near[:5], "…")
		}
		msg += "; did you mean " + strings.Join(near, ", ")
	}
	return suite.Scenario{}, errors.New(msg + " (apexcheck list names them all)")
}

// readScenario returns the scenario's file as embedded.
func readScenario(s suite.Scenario) ([]byte, error) {
	data, err := fs.ReadFile(embedded.Scripts, s.Path)
	if err != nil {
		return nil, fmt.Errorf("read scenario %s: %w", s.Name, err)
	}
	return data, nil
}

// shippedPath is the scenario's path in the kit's repository.
func shippedPath(s suite.Scenario) string {
	return "testdata/scripts/" + s.Name + ".txtar"
}

// explanation returns the comment lines that open the scenario's file,
// the scenario's own account of what it proves and why, without the "# "
// marks; the header lines (clauses:, requires:, profile:) are kept.
func explanation(data []byte) string {
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "#") {
			if t == "" && len(lines) == 0 {
				continue
			}
			break
		}
		lines = append(lines, strings.TrimPrefix(strings.TrimPrefix(t, "#"), " "))
	}
	return strings.Join(lines, "\n")
}
