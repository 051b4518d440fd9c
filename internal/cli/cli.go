// Package cli is the apexcheck command line. cmd/apexcheck only dispatches
// roles and calls Main. Each subcommand has a file of its own (run.go,
// merge.go, list.go, …) holding its help and its run function; the flags
// that a run and a merge share are in reports.go. The command line parses
// flags and calls the conformance packages: conformance runs the
// scenarios, conformance/verdict builds every report, ledger and
// certificate and judges the run (verdict.Judge), for a run and a merge
// alike.
package cli

import (
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"

	"github.com/apexcheck/apexcheck"
	"github.com/apexcheck/apexcheck/internal/mcpbridge"
)

// Exit codes: conformance and kit errors are kept apart, so CI can tell a
// non-conformant implementation from a broken setup.
const (
	ExitConformant    = 0
	ExitNotConformant = 1 // a scenario failed or errored, the ledger does not match, or certification was denied
	ExitUsage         = 2 // bad flags or arguments, a ledger for another suite, or the implementation could not be started
	// ExitInterrupted is the status of a run stopped by SIGINT or SIGTERM,
	// as a shell reports a process ended by SIGINT.
	ExitInterrupted = 130
)

// embedded is what the command certifies against: the embedded spec and
// scenarios. Tests substitute small synthetic suites.
var embedded = struct {
	Spec, Scripts fs.FS
	// Data is the tree the suite digest covers: the scenarios and the
	// data they read.
	Data fs.FS
}{apexcheck.Spec, apexcheck.Scripts, apexcheck.Suite}

// subcommand is one apexcheck subcommand. The default command (a run) has
// the empty name; it is not listed among the others.
type subcommand struct {
	name    string // as typed after "apexcheck"
	args    string // the synopsis of its arguments: "[flags]", "CLAUSE"
	summary string // one line for the overview (apexcheck --help)
	help    string // what NAME --help prints between the synopsis and the flags
	run     func(args []string, stdout, stderr io.Writer) int
}

// subcommands are apexcheck's subcommands, in the order the overview lists
// them. A new one is one entry here and a file with its run function.
var subcommands []subcommand

func init() {
	subcommands = []subcommand{
		{"", "[flags]", "run the suite against an implementation (default: the embedded reference)", runHelp, cmdRun},
		{"list", "[flags]", "list the scenarios with their clauses and required capabilities", listHelp, cmdList},
		{"explain", "CLAUSE|SCENARIO", "print a clause and the scenarios that prove it, or a scenario and its clauses", explainHelp, cmdExplain},
		{"show", "SCENARIO", "print a scenario as shipped, from the binary", showHelp, cmdShow},
		{"replay", "[flags] TRANSCRIPT", "send a kept protocol transcript (--keep-work) to an implementation again", replayHelp, cmdReplay},
		{"validate", "[flags]", "check an implementation's messages against spec/protocol.schema.json", validateHelp, cmdValidate},
		{"compare", "[flags] REPORT.jsonl...", "turn JSON Lines reports into one implementations × clauses matrix", compareHelp, cmdCompare},
		{"serve", "", "serve the reference implementation on stdin/stdout", serveHelp, cmdServe},
		{mcpbridge.Arg, "--mapping M -- CMD", "serve the protocol with an MCP server's shell tool (--mcp runs it)", mcpBridgeHelp, cmdMCPBridge},
		{"init", "--lang LANG [--dir DIR]", "write a protocol adapter skeleton (python, node or go)", initHelp, cmdInit},
		{"merge", "[flags] REPORT.jsonl...", "merge shard reports (--json of --shard runs) into one verdict", mergeHelp, cmdMerge},
		{"ledger", "migrate FILE...", "rewrite expectation ledgers of the old format in the current one", ledgerHelp, cmdLedger},
		{"version", "", "print the kit version and suite digest", versionHelp, cmdVersion},
		{"help", "[COMMAND]", "print the help of apexcheck or of one command", helpHelp, cmdHelp},
	}
}

// lookup returns the subcommand called name, or nil.
func lookup(name string) *subcommand {
	for i := range subcommands {
		if subcommands[i].name == name {
			return &subcommands[i]
		}
	}
	return nil
}

// title is how the subcommand names itself in messages: "apexcheck list".
func (c *subcommand) title() string {
	if c.name == "" {
		return "apexcheck"
	}
	return "apexcheck " + c.name
}

// synopsis is the subcommand's usage line.
func (c *subcommand) synopsis() string {
	return strings.TrimSpace(c.title() + " " + c.args)
}

// writeOverview prints what apexcheck --help prints before the run's flags.
func writeOverview(w io.Writer) {
	fmt.Fprintln(w, "apexcheck certifies an implementation of the bash tool of AI coding agents")
	fmt.Fprintln(w, "against the apexcheck specification, over the protocol of spec/protocol.md.")
	fmt.Fprintln(w)
	width := 0
	for _, c := range subcommands {
		width = max(width, len(c.synopsis()))
	}
	for i, c := range subcommands {
		prefix := "usage: "
		if i > 0 {
			prefix = "       "
		}
		fmt.Fprintf(w, "%s%-*s  %s\n", prefix, width, c.synopsis(), c.summary)
	}
	fmt.Fprintf(w, "\n%s\n\nRun 'apexcheck COMMAND --help' for a command's flags.\n", strings.TrimSpace(runHelp))
}

// Main runs the command line and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] != "" {
		switch args[0] {
		case "--version", "-version":
			// As most tools spell it; the same as apexcheck version.
			return cmdVersion(args[1:], stdout, stderr)
		}
		if c := lookup(args[0]); c != nil {
			return c.run(args[1:], stdout, stderr)
		}
	}
	return cmdRun(args, stdout, stderr)
}

func sortedKeys(m map[string]bool) []string {
	out := []string{}
	for k, v := range m {
		if v {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n    ")
}

// indent8 indents every line of s by eight spaces, under a label that
// indent indented (indent twice would lose the first line's).
func indent8(s string) string {
	return "        " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n        ")
}
