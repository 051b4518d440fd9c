// Package cli is the apexcheck command line. cmd/apexcheck only dispatches
// roles and calls Main. The command line parses flags and calls package
// conformance, which builds every report, ledger and certificate.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/apexcheck/apexcheck"
	"github.com/apexcheck/apexcheck/conformance"
	"github.com/apexcheck/apexcheck/internal/mcpbridge"
	"github.com/apexcheck/apexcheck/internal/version"
	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/server"
	"mvdan.cc/sh/v3/shell"
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

// suite is what the command certifies against: the embedded spec and
// scenarios. Tests substitute small synthetic suites.
var suite = struct {
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
		{"explain", "CLAUSE", "print a clause and the scenarios that prove it", explainHelp, cmdExplain},
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

const runHelp = `
Without a command, apexcheck runs the scenarios of its embedded suite against
the implementation --impl names, or against its own reference when --impl is
not given, and prints each failure, a summary and the verdict.

Exit status: 0 conformant (or matching the --expect ledger; certified with
--certify), 1 not, 2 bad usage or setup, 130 interrupted (SIGINT or SIGTERM:
the implementations are killed and the run's files removed).`

const listHelp = `
List the scenarios of the embedded suite: name, the clauses each proves and
the capabilities it needs. --run, --area and --shard select as a run does.`

const explainHelp = `
Print a clause of the spec (its level, source and text) and every scenario
that proves it, with the scenario's path as shipped. CLAUSE is an ID such
as EXEC-10, in any case.`

const validateHelp = `
Check the conversation before the behaviour: send a few canned requests to
the implementation and check every message, both ways, against
spec/protocol.schema.json, naming each wrong field. Exit status 1 when a
message is invalid.`

const serveHelp = `
Serve the reference implementation on stdin and stdout, speaking the
protocol of spec/protocol.md. A run without --impl starts it; so can any
other client: --impl 'apexcheck serve'.`

const versionHelp = `
Print the kit version and the full digest of the embedded suite, which
certificates are pinned to (an expectation ledger pins each entry to its
scenario instead).`

const helpHelp = `
Print the overview of apexcheck, or the help of COMMAND (the same as
'apexcheck COMMAND --help').`

// Main runs the command line and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] != "" {
		if c := lookup(args[0]); c != nil {
			return c.run(args[1:], stdout, stderr)
		}
	}
	return cmdRun(args, stdout, stderr)
}

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

// cmdVersion prints the kit version and suite digest.
func cmdVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("version", stdout, stderr)
	if code, done := fs.parse(args, 0); done {
		return code
	}
	digest, err := conformance.SuiteDigest(suite.Data, ".")
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck version:", err)
		return ExitUsage
	}
	fmt.Fprintf(stdout, "apexcheck %s (suite %s)\n", version.Kit, digest)
	return ExitConformant
}

// cmdServe serves the reference. The binary's own `apexcheck serve` never
// gets here (internal/roles serves it before the command line is parsed);
// this is for serve with flags (--help) and for callers of Main.
func cmdServe(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", stdout, stderr)
	if code, done := fs.parse(args, 0); done {
		return code
	}
	return server.Main()
}

// implFlags are the flags that start an implementation.
type implFlags struct {
	impl  string
	bound time.Duration
	mcp   mcpFlags
}

func (f *implFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.impl, "impl", "", "implementation command line `CMD ARGS` (default: this binary's reference, `apexcheck serve`); relative paths in it are made absolute")
	fs.DurationVar(&f.bound, "bound", conformance.DefaultBound, "bound on every wait for the implementation")
	f.mcp.register(fs)
}

// command resolves --impl into an argument vector. The implementation
// starts in each scenario's work directory, so an argument naming an
// existing path relative to the current directory is made absolute.
func (f *implFlags) command() ([]string, string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, "", fmt.Errorf("locate own executable: %w", err)
	}
	if f.bound <= 0 {
		return nil, "", errors.New("--bound must be positive")
	}
	if f.mcp.server != "" {
		argv, err := f.mcp.command(self, f.impl)
		return argv, self, err
	}
	if f.impl == "" {
		return []string{self, "serve"}, self, nil
	}
	words, err := shell.Fields(f.impl, nil)
	if err != nil {
		return nil, "", fmt.Errorf("--impl %q: %w", f.impl, err)
	}
	if len(words) == 0 {
		return nil, "", errors.New("--impl is empty")
	}
	absPaths(words)
	return words, self, nil
}

// absPaths makes absolute each word naming an existing relative path.
func absPaths(words []string) {
	for i, w := range words {
		if strings.Contains(w, "/") && !filepath.IsAbs(w) {
			if _, err := os.Stat(w); err == nil {
				if abs, err := filepath.Abs(w); err == nil {
					words[i] = abs
				}
			}
		}
	}
}

// rerunFlags are the flags a rerun of one scenario must repeat to behave
// as this run did.
func (f *runFlags) rerunFlags() []string {
	var out []string
	if f.bound != conformance.DefaultBound {
		out = append(out, "--bound", f.bound.String())
	}
	return out
}

// runFlags are the flags of a run.
type runFlags struct {
	implFlags
	selectFlags
	parallel    int
	keepWork    bool
	verbose     bool
	jsonFile    string
	junitFile   string
	mdFile      string
	badgeFile   string
	expect      string
	writeExpect string
	certify     bool
	certFile    string
	failFast    bool
	maxFail     int
	progress    string
}

func (f *runFlags) register(fs *flag.FlagSet) {
	f.implFlags.register(fs)
	f.selectFlags.register(fs, "run")
	fs.IntVar(&f.parallel, "parallel", 0, "scenarios run at once (default 2×cores)")
	fs.BoolVar(&f.failFast, "fail-fast", false, "stop starting scenarios after the first failure (same as --max-fail 1)")
	fs.IntVar(&f.maxFail, "max-fail", 0, "stop starting scenarios after `N` failures; the rest are reported skipped")
	fs.BoolVar(&f.keepWork, "keep-work", false, "keep the work directory of scenarios that failed or errored, and print it")
	fs.BoolVar(&f.verbose, "v", false, "print every scenario's outcome")
	fs.StringVar(&f.progress, "progress", "auto", "progress on stderr: `MODE` tty (a live line), plain (a line per scenario), off, or auto (tty on a terminal, else plain)")
	fs.StringVar(&f.jsonFile, "json", "", "write a JSON Lines report to `FILE`")
	fs.StringVar(&f.junitFile, "junit", "", "write a JUnit XML report to `FILE`")
	fs.StringVar(&f.mdFile, "markdown", "", "write a Markdown summary to `FILE` (for $GITHUB_STEP_SUMMARY)")
	fs.StringVar(&f.badgeFile, "badge", "", "write a shields.io endpoint badge to `FILE`")
	fs.StringVar(&f.expect, "expect", "", "check the run against the expectation ledger `FILE`: known failures pass, any difference fails")
	fs.StringVar(&f.writeExpect, "write-expect", "", "write a draft ledger of this run's failures to `FILE`, for review")
	fs.BoolVar(&f.certify, "certify", false, "certify: every MUST scenario must run and pass (no skips); prints a certificate (with --shard and --json: judges the shard, and apexcheck merge certifies)")
	fs.StringVar(&f.certFile, "certificate", "", "with --certify, also write the certificate to `FILE` (JSON when it ends in .json)")
}

// check rejects flag combinations that make no sense.
func (f *runFlags) check() error {
	switch {
	case f.parallel < 0:
		return errors.New("--parallel must not be negative")
	case f.maxFail < 0:
		return errors.New("--max-fail must not be negative")
	case f.failFast && f.maxFail > 1:
		return errors.New("--fail-fast and --max-fail disagree; give one")
	case f.certify && (f.run != "" || len(f.areas) > 0):
		return errors.New("--certify needs the whole suite: drop --run and --area")
	case f.certify && f.shard != "" && (f.jsonFile == "" || f.certFile != ""):
		return errors.New("--certify --shard runs one shard for apexcheck merge, which certifies: give --json FILE, and --certificate to merge")
	case f.certFile != "" && !f.certify:
		return errors.New("--certificate needs --certify")
	}
	switch f.progress {
	case "auto", "tty", "plain", "off":
	default:
		return fmt.Errorf("--progress %q: want auto, tty, plain or off", f.progress)
	}
	return nil
}

func cmdRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("", stdout, stderr)
	var f runFlags
	f.register(fs.FlagSet)
	if code, done := fs.parse(args, 0); done {
		return code
	}
	if err := f.check(); err != nil {
		return fs.usageError(err)
	}
	argv, self, err := f.command()
	if err != nil {
		return fs.usageError(err)
	}
	cfg := conformance.Config{Impl: argv, Scripts: suite.Scripts, Dir: ".", Parallel: f.parallel,
		Bound: f.bound, KeepWork: f.keepWork, SelfExe: self, MaxFail: f.maxFail}
	if f.failFast {
		cfg.MaxFail = 1
	}
	all, err := conformance.LoadScenarios(suite.Scripts, ".")
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck:", err)
		return ExitUsage
	}
	if err := f.selectFlags.apply(&cfg, all); err != nil {
		return fs.usageError(err)
	}
	profile := cfg.Profile
	digest, err := conformance.SuiteDigest(suite.Data, ".")
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck:", err)
		return ExitUsage
	}
	clauses, err := conformance.LoadClauses(suite.Spec)
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck:", err)
		return ExitUsage
	}
	// ledger checks the run; previous only lends its reviewed reasons to a
	// draft (--write-expect), which is how a ledger for an older suite is
	// brought up to date.
	var ledger, previous *conformance.Ledger
	if f.expect != "" {
		if ledger, err = conformance.LoadLedger(f.expect); err == nil {
			previous = ledger
			err = ledger.CheckSuite(suite.Data, version.Kit, clauses)
			if err == nil {
				err = ledger.CheckProfile(profile, all)
			}
		}
		if err == nil && ledger.Note != "" {
			fmt.Fprintln(stderr, "apexcheck: note:", ledger.Note)
		}
		switch {
		case err != nil && previous != nil && f.writeExpect != "":
			fmt.Fprintf(stderr, "apexcheck: %v\napexcheck: not checking the run against it; its reasons carry over into the draft %s\n", err, f.writeExpect)
			ledger = nil
		case err != nil:
			fmt.Fprintln(stderr, "apexcheck:", err)
			return ExitUsage
		}
	}
	if ledger != nil {
		cfg.CountsAsFailure = func(r conformance.Result) bool {
			st, _ := ledger.Classify(r)
			return st == conformance.UnexpectedFailure
		}
	}
	selected, err := cfg.Selected()
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck:", err)
		return ExitUsage
	}
	if len(selected) == 0 {
		fmt.Fprintln(stderr, "apexcheck: no scenario selected (check --run, --area and --shard)")
		return ExitUsage
	}

	hello, err := conformance.Handshake(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "apexcheck: implementation %q: %v\n", strings.Join(cfg.Impl, " "), err)
		// The reports say it too: in CI they are often all anyone reads.
		rep := &conformance.Report{Kit: version.Kit, Suite: digest, Profile: profile,
			Implementation: protocol.Implementation{Name: strings.Join(cfg.Impl, " ")}, Command: f.commandLine(),
			ScriptDir: "testdata/scripts", Started: time.Now(), SetupError: conformance.NewSetupError(err)}
		if err := writeReports(rep, &f, stdout); err != nil {
			fmt.Fprintln(stderr, "apexcheck:", err)
		}
		return ExitUsage
	}
	impl := *hello.Hello.Implementation
	cfg.Capabilities = hello.Capabilities()
	fmt.Fprintf(stdout, "apexcheck %s (suite %s, profile %s) checking %s %s (%s)\n", version.Kit, conformance.ShortDigest(digest), profile, impl.Name, impl.Version, impl.Language)
	fmt.Fprintf(stdout, "capabilities: %s\n", strings.Join(sortedKeys(cfg.Capabilities), " "))
	if ledger != nil {
		fmt.Fprintf(stdout, "expectation ledger: %s (%d known failures): a failure the ledger lists is expected and counts as a pass; the run fails only where it differs from the ledger\n", ledger.Path, len(ledger.Expected))
	}

	// The report is built before the run, so that each failure printed as
	// it happens reads as it will in the reports.
	rep := &conformance.Report{Kit: version.Kit, Suite: digest, Profile: profile, Implementation: impl,
		Capabilities: sortedKeys(cfg.Capabilities), Command: f.commandLine(), ScriptDir: "testdata/scripts",
		Ledger: ledger, Clauses: clauses, Scripts: suite.Scripts, RerunFlags: f.rerunFlags()}
	prog := newProgress(f.progress, stderr, len(selected), f.verbose)
	cfg.OnResult = func(r conformance.Result) {
		prog.finish(r, func() { printResult(stdout, rep, r, f.verbose) })
	}
	cfg.OnStart = prog.start
	start := time.Now()
	stopWatching := stopOnSignal(stderr, prog.done)
	results, err := conformance.Run(cfg)
	stopWatching()
	prog.done()
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck:", err)
		return ExitUsage
	}
	rep.Started, rep.Duration, rep.Results = start, time.Since(start), results

	code := ExitConformant
	if err := writeReports(rep, &f, stdout); err != nil {
		fmt.Fprintln(stderr, "apexcheck:", err)
		code = ExitUsage
	}
	writeSummary(stdout, results)
	v := ledger.Evaluate(results)
	if ledger != nil {
		writeVerdict(stdout, ledger, v)
	}
	if !v.OK() && code == ExitConformant {
		code = ExitNotConformant
	}
	if f.writeExpect != "" {
		if err := writeFile(f.writeExpect, func(w io.Writer) error {
			return conformance.DraftLedger(w, results, previous, suite.Data, version.Kit, impl.Name+" "+impl.Version, profile)
		}); err != nil {
			fmt.Fprintln(stderr, "apexcheck:", err)
			code = ExitUsage
		} else {
			fmt.Fprintf(stdout, "draft ledger written to %s: review every entry before checking it in\n", f.writeExpect)
		}
	}
	if f.certify && f.shard != "" {
		return certifyShard(stdout, stderr, rep, selected, f.shard, code, ledger)
	}
	if f.certify {
		cert := conformance.Certify(rep, all, clauses, time.Now())
		fmt.Fprintln(stdout)
		cert.WriteText(stdout)
		if f.certFile != "" {
			if err := writeFile(f.certFile, func(w io.Writer) error {
				if strings.HasSuffix(f.certFile, ".json") {
					return cert.WriteJSON(w)
				}
				return cert.WriteText(w)
			}); err != nil {
				fmt.Fprintln(stderr, "apexcheck:", err)
				return ExitUsage
			}
		}
		// With a ledger the ledger decides the exit status (an
		// implementation with known failures is tracked, not certified);
		// without one, certification does: a failed SHOULD scenario does
		// not deny it, a skipped MUST scenario does.
		if ledger == nil && code != ExitUsage {
			code = ExitConformant
			if !cert.Certified {
				code = ExitNotConformant
			}
		}
	}
	return code
}

// printResult prints one scenario's outcome: every one with -v, else only
// those that failed, errored or disagree with the ledger. A failure gets
// its whole block (conformance.Failure): where, which clauses, expected
// and got, stderr, the rerun command; -v adds the scenario's log before it.
func printResult(w io.Writer, rep *conformance.Report, r conformance.Result, verbose bool) {
	st, e := rep.Ledger.Classify(r)
	if !verbose && st != conformance.UnexpectedFailure && st != conformance.UnexpectedPass && st != conformance.StaleExpectation {
		return
	}
	label := strings.ToUpper(string(r.Outcome))
	switch st {
	case conformance.ExpectedFailure:
		label = "XFAIL"
	case conformance.UnexpectedPass:
		label = "XPASS"
	case conformance.StaleExpectation:
		label = "STALE"
	}
	fmt.Fprintf(w, "%-8s %s (%.1fs)\n", label, r.Scenario.Name, r.Duration.Seconds())
	switch {
	case st == conformance.StaleExpectation:
		fmt.Fprintf(w, "    %s (it %s this time)\n", e.Stale(), r.Outcome)
	case st == conformance.UnexpectedPass:
		fmt.Fprintf(w, "    listed in the ledger as failing (%s: %s), but passed: remove the entry\n", e.Clause, e.Reason)
	case st == conformance.ExpectedFailure:
		fmt.Fprintf(w, "    expected (%s): %s\n", e.Clause, e.Reason)
	case st == conformance.FlakyPass:
		fmt.Fprintf(w, "    listed as flaky (%s): %s\n", e.Clause, e.Reason)
	case r.Outcome == conformance.Failed || r.Outcome == conformance.Errored:
		if verbose && r.Log != "" {
			// The whole log: each command and its output, which the
			// block's diff and tails summarise.
			fmt.Fprintf(w, "    log:\n%s\n", indent(indent(rep.ShippedPaths(r.Scenario, conformance.LogTail(r.Log, conformance.MaxLog)))))
		}
		fmt.Fprintln(w, indent(rep.Failure(r).Text()))
	case r.Outcome == conformance.Skipped && r.Message != "":
		fmt.Fprintln(w, indent(r.Message))
	}
}

// writeReports writes every report the flags ask for, and the GitHub
// annotations when running in GitHub Actions.
func writeReports(rep *conformance.Report, f *runFlags, stdout io.Writer) error {
	var errs []error
	for _, out := range []struct {
		file  string
		write func(io.Writer) error
	}{
		{f.jsonFile, rep.WriteJSONLines},
		{f.junitFile, rep.WriteJUnit},
		{f.mdFile, rep.WriteMarkdown},
		{f.badgeFile, rep.WriteBadge},
	} {
		if out.file != "" {
			errs = append(errs, writeFile(out.file, out.write))
		}
	}
	if os.Getenv("GITHUB_ACTIONS") == "true" {
		// Workflow commands are read from stdout.
		errs = append(errs, rep.WriteAnnotations(stdout))
	}
	return errors.Join(errs...)
}

// writeFile writes a file through write, creating its directory.
func writeFile(name string, write func(io.Writer) error) error {
	if dir := filepath.Dir(name); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	out, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := write(out); err != nil {
		out.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// writeSummary prints passed / failed / errored / skipped per area and in
// total. Skips are never counted as passes.
func writeSummary(w io.Writer, results []conformance.Result) {
	fmt.Fprintf(w, "\n%-12s %7s %7s %7s %7s\n", "area", "passed", "failed", "errored", "skipped")
	line := func(name string, t conformance.Totals) {
		fmt.Fprintf(w, "%-12s %7d %7d %7d %7d\n", name, t.Passed, t.Failed, t.Errored, t.Skipped)
	}
	for _, a := range conformance.CountByArea(results) {
		line(a.Area, a.Totals)
	}
	total := conformance.Count(results)
	line("total", total)
	writeSkips(w, results)
	fmt.Fprintln(w, total)
}

// writeSkips prints the skipped scenarios grouped by reason, largest group
// first, so that "58 skipped" reads as what it is: a capability not
// declared, a program not installed, a kernel feature missing.
func writeSkips(w io.Writer, results []conformance.Result) {
	groups := map[string][]string{}
	for _, r := range results {
		if r.Outcome == conformance.Skipped {
			reason := skipReason(r.Message)
			groups[reason] = append(groups[reason], r.Scenario.Name)
		}
	}
	if len(groups) == 0 {
		return
	}
	reasons := make([]string, 0, len(groups))
	for r := range groups {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		a, b := groups[reasons[i]], groups[reasons[j]]
		return len(a) > len(b) || len(a) == len(b) && reasons[i] < reasons[j]
	})
	fmt.Fprintln(w, "\nskipped, by reason:")
	for _, reason := range reasons {
		names := groups[reason]
		shown := names
		if len(shown) > 3 {
			shown = shown[:3]
		}
		list := strings.Join(shown, ", ")
		if more := len(names) - len(shown); more > 0 {
			list += fmt.Sprintf(", +%d more", more)
		}
		fmt.Fprintf(w, "%5d  %s (%s)\n", len(names), reason, list)
	}
}

// skipReason rewords a skip message as a reason to group by.
func skipReason(msg string) string {
	msg = strings.TrimSpace(msg)
	if caps, ok := strings.CutPrefix(msg, "implementation does not declare "); ok {
		return "missing capability " + caps
	}
	// testscript's skip command logs "SKIP: reason" or the reason alone.
	msg = strings.TrimSpace(strings.TrimPrefix(msg, "SKIP:"))
	if msg == "" {
		return "no reason given"
	}
	return msg
}

func writeVerdict(w io.Writer, l *conformance.Ledger, v conformance.Verdict) {
	if v.OK() {
		fmt.Fprintf(w, "the run matches the ledger %s: %d expected failures", l.Path, len(v.Expected))
	} else {
		fmt.Fprintf(w, "the run does NOT match the ledger %s: %d expected failures, %d unexpected failures, %d listed scenarios now pass",
			l.Path, len(v.Expected), len(v.Unexpected), len(v.Fixed))
		if len(v.Stale) > 0 {
			fmt.Fprintf(w, ", %d entries reviewed against an older version of their scenario", len(v.Stale))
		}
	}
	if len(v.FlakyPass) > 0 {
		fmt.Fprintf(w, " (%d listed as flaky passed this time)", len(v.FlakyPass))
	}
	if len(v.NotRun) > 0 {
		fmt.Fprintf(w, " (%d listed scenarios did not run)", len(v.NotRun))
	}
	fmt.Fprintln(w)
	for _, e := range v.Stale {
		fmt.Fprintf(w, "    stale entry %s\n", e.Stale())
	}
}

func cmdList(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("list", stdout, stderr)
	var sel selectFlags
	sel.register(fs.FlagSet, "list")
	verbose := fs.Bool("v", false, "also print each scenario's summary, in a last column")
	if code, done := fs.parse(args, 0); done {
		return code
	}
	all, err := conformance.LoadScenarios(suite.Scripts, ".")
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck list:", err)
		return ExitUsage
	}
	cfg := conformance.Config{Scripts: suite.Scripts, Dir: "."}
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

func cmdExplain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("explain", stdout, stderr)
	if code, done := fs.parse(args, 1); done {
		return code
	}
	if fs.NArg() != 1 {
		return fs.usageError(errors.New("want one clause ID, such as EXEC-10"))
	}
	id := strings.ToUpper(fs.Arg(0))
	clauses, err := conformance.LoadClauses(suite.Spec)
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck explain:", err)
		return ExitUsage
	}
	for _, c := range clauses {
		if c.ID != id {
			continue
		}
		fmt.Fprintf(stdout, "%s (%s%s; %s) spec/%s\n%s\n\nscenarios:\n", c.ID, c.Level, coreMarker(c), c.Provenance, c.File, c.Text)
		scenarios, _ := conformance.LoadScenarios(suite.Scripts, ".")
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
	data, err := fs.ReadFile(suite.Spec, "protocol.schema.json")
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck validate:", err)
		return ExitUsage
	}
	schema, err := conformance.ParseSchema(data)
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck validate:", err)
		return ExitUsage
	}
	v, err := conformance.Validate(conformance.Config{Impl: argv, Bound: f.bound}, schema)
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
