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
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/apexcheck/apexcheck"
	"github.com/apexcheck/apexcheck/conformance"
	"github.com/apexcheck/apexcheck/internal/mcpbridge"
	"github.com/apexcheck/apexcheck/internal/version"
	"mvdan.cc/sh/v3/shell"
)

// Exit codes: conformance and kit errors are kept apart, so CI can tell a
// non-conformant implementation from a broken setup.
const (
	ExitConformant    = 0
	ExitNotConformant = 1 // a scenario failed or errored, the ledger does not match, or certification was denied
	ExitUsage         = 2 // bad flags or arguments, a ledger for another suite, or the implementation could not be started
)

// suite is what the command certifies against: the embedded spec and
// scenarios. Tests substitute small synthetic suites.
var suite = struct {
	Spec, Scripts fs.FS
	// Data is the tree the suite digest covers: the scenarios and the
	// data they read.
	Data fs.FS
}{apexcheck.Spec, apexcheck.Scripts, apexcheck.Suite}

const usage = `usage: apexcheck [flags]              run the suite against an implementation (default: the embedded reference)
       apexcheck list [flags]         list the scenarios with their clauses and required capabilities
       apexcheck explain CLAUSE       print a clause and the scenarios that prove it
       apexcheck validate [flags]     check an implementation's messages against spec/protocol.schema.json
       apexcheck compare REPORT...    turn JSON Lines reports into one implementations × clauses matrix
       apexcheck serve                serve the reference implementation on stdin/stdout
       apexcheck mcp-bridge --mapping M -- CMD   serve the protocol with an MCP server's shell tool (--mcp runs it)
       apexcheck version              print the kit version and suite digest

Exit status: 0 conformant (or matching the --expect ledger; certified with
--certify), 1 not, 2 bad usage or setup.

flags:
`

// Main runs the command line and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "list":
			return cmdList(args[1:], stdout, stderr)
		case "explain":
			return cmdExplain(args[1:], stdout, stderr)
		case "validate":
			return cmdValidate(args[1:], stdout, stderr)
		case mcpbridge.Arg:
			return mcpbridge.Main(args[1:], apexcheck.MCPMappings, os.Stdin, stdout, stderr)
		case "compare":
			return cmdCompare(args[1:], stdout, stderr)
		case "version":
			if len(args) > 1 {
				fmt.Fprintln(stderr, "usage: apexcheck version")
				return ExitUsage
			}
			digest, err := conformance.SuiteDigest(suite.Data, ".")
			if err != nil {
				fmt.Fprintln(stderr, "apexcheck:", err)
				return ExitUsage
			}
			fmt.Fprintf(stdout, "apexcheck %s (suite %s)\n", version.Kit, digest)
			return ExitConformant
		}
	}
	return cmdRun(args, stdout, stderr)
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

// runFlags are the flags of a run.
type runFlags struct {
	implFlags
	run         string
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
	shard       string
	progress    string
	profile     string
}

func (f *runFlags) register(fs *flag.FlagSet) {
	f.implFlags.register(fs)
	fs.StringVar(&f.run, "run", "", "run only scenarios whose name matches `REGEXP`")
	fs.StringVar(&f.shard, "shard", "", "run only shard `i/n` of the suite (stable by scenario name), for CI matrices")
	fs.StringVar(&f.profile, "profile", "apex", "certify profile `NAME`: apex (the whole apex-code contract) or core (portable behaviour, any wording); see spec/README.md")
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
	fs.BoolVar(&f.certify, "certify", false, "certify: every MUST scenario must run and pass (no skips); prints a certificate")
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
	case f.certify && (f.run != "" || f.shard != ""):
		return errors.New("--certify needs the whole suite: drop --run and --shard")
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

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args, printing usage on any error; it returns the exit
// code to return when done is true.
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) (code int, done bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitConformant, true
		}
		return ExitUsage, true
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		fs.Usage()
		return ExitUsage, true
	}
	return 0, false
}

// usageError prints a usage error and the usage.
func usageError(fs *flag.FlagSet, stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
	fs.Usage()
	return ExitUsage
}

func cmdRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("apexcheck", stderr)
	var f runFlags
	f.register(fs)
	if code, done := parse(fs, args, stderr); done {
		return code
	}
	if err := f.check(); err != nil {
		return usageError(fs, stderr, err)
	}
	argv, self, err := f.command()
	if err != nil {
		return usageError(fs, stderr, err)
	}
	profile, err := conformance.ParseProfile(f.profile)
	if err != nil {
		return usageError(fs, stderr, fmt.Errorf("--profile: %w", err))
	}
	cfg := conformance.Config{Impl: argv, Scripts: suite.Scripts, Dir: ".", Parallel: f.parallel,
		Bound: f.bound, KeepWork: f.keepWork, SelfExe: self, MaxFail: f.maxFail, Profile: profile}
	if f.failFast {
		cfg.MaxFail = 1
	}
	if f.run != "" {
		if cfg.Run, err = regexp.Compile(f.run); err != nil {
			return usageError(fs, stderr, fmt.Errorf("--run: %w", err))
		}
	}
	if f.shard != "" {
		sh, err := conformance.ParseShard(f.shard)
		if err != nil {
			return usageError(fs, stderr, fmt.Errorf("--shard: %w", err))
		}
		cfg.Select = sh.Contains
	}
	all, err := conformance.LoadScenarios(suite.Scripts, ".")
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck:", err)
		return ExitUsage
	}
	digest, err := conformance.SuiteDigest(suite.Data, ".")
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck:", err)
		return ExitUsage
	}
	// ledger checks the run; previous only lends its reviewed reasons to a
	// draft (--write-expect), which is how a ledger for an older suite is
	// brought up to date.
	var ledger, previous *conformance.Ledger
	if f.expect != "" {
		var clauses []conformance.Clause
		if clauses, err = conformance.LoadClauses(suite.Spec); err != nil {
			fmt.Fprintln(stderr, "apexcheck:", err)
			return ExitUsage
		}
		if ledger, err = conformance.LoadLedger(f.expect); err == nil {
			previous = ledger
			err = ledger.CheckSuite(digest, version.Kit, all, clauses)
			if err == nil {
				err = ledger.CheckProfile(profile, all)
			}
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
		fmt.Fprintln(stderr, "apexcheck: no scenario selected (check --run and --shard)")
		return ExitUsage
	}

	hello, err := conformance.Handshake(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "apexcheck: implementation %q: %v\n", strings.Join(cfg.Impl, " "), err)
		if hello != nil {
			if tail := strings.TrimSpace(hello.StderrTail()); tail != "" {
				fmt.Fprintf(stderr, "implementation stderr (tail):\n%s\n", tail)
			}
		}
		return ExitUsage
	}
	impl := *hello.Hello.Implementation
	cfg.Capabilities = hello.Capabilities()
	fmt.Fprintf(stdout, "apexcheck %s (suite %s, profile %s) checking %s %s (%s)\n", version.Kit, conformance.ShortDigest(digest), profile, impl.Name, impl.Version, impl.Language)
	fmt.Fprintf(stdout, "capabilities: %s\n", strings.Join(sortedKeys(cfg.Capabilities), " "))
	if ledger != nil {
		fmt.Fprintf(stdout, "expectation ledger: %s (%d known failures)\n", ledger.Path, len(ledger.Expected))
	}

	prog := newProgress(f.progress, stderr, len(selected))
	var mu sync.Mutex
	cfg.OnResult = func(r conformance.Result) {
		mu.Lock()
		defer mu.Unlock()
		prog.clear()
		printResult(stdout, r, ledger, f.verbose)
		prog.add(r)
	}
	start := time.Now()
	results, err := conformance.Run(cfg)
	prog.done()
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck:", err)
		return ExitUsage
	}
	rep := &conformance.Report{Kit: version.Kit, Suite: digest, Profile: profile, Implementation: impl,
		Capabilities: sortedKeys(cfg.Capabilities), Command: f.commandLine(), ScriptDir: "testdata/scripts",
		Started: start, Duration: time.Since(start), Results: results, Ledger: ledger}

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
			return conformance.DraftLedger(w, results, previous, digest, version.Kit, impl.Name+" "+impl.Version, profile)
		}); err != nil {
			fmt.Fprintln(stderr, "apexcheck:", err)
			code = ExitUsage
		} else {
			fmt.Fprintf(stdout, "draft ledger written to %s: review every entry before checking it in\n", f.writeExpect)
		}
	}
	if f.certify {
		clauses, err := conformance.LoadClauses(suite.Spec)
		if err != nil {
			fmt.Fprintln(stderr, "apexcheck:", err)
			return ExitUsage
		}
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
// those that failed, errored or disagree with the ledger.
func printResult(w io.Writer, r conformance.Result, ledger *conformance.Ledger, verbose bool) {
	st, e := ledger.Classify(r)
	if !verbose && st != conformance.UnexpectedFailure && st != conformance.UnexpectedPass {
		return
	}
	label := strings.ToUpper(string(r.Outcome))
	switch st {
	case conformance.ExpectedFailure:
		label = "XFAIL"
	case conformance.UnexpectedPass:
		label = "XPASS"
	}
	fmt.Fprintf(w, "%-8s %s (%.1fs)\n", label, r.Scenario.Name, r.Duration.Seconds())
	switch {
	case st == conformance.UnexpectedPass:
		fmt.Fprintf(w, "    listed in the ledger as failing (%s: %s), but passed: remove the entry\n", e.Clause, e.Reason)
	case st == conformance.ExpectedFailure:
		fmt.Fprintf(w, "    expected (%s): %s\n", e.Clause, e.Reason)
	case st == conformance.FlakyPass:
		fmt.Fprintf(w, "    listed as flaky (%s): %s\n", e.Clause, e.Reason)
	case verbose && (r.Outcome == conformance.Failed || r.Outcome == conformance.Errored) && r.Log != "":
		// The whole log: each command, its output and the diff of a
		// failed comparison, which the one-line message leaves out.
		fmt.Fprintln(w, indent(conformance.LogTail(r.Log, conformance.MaxLog)))
	case r.Outcome != conformance.Passed && r.Message != "":
		fmt.Fprintln(w, indent(r.Message))
	}
	if r.WorkDir != "" {
		fmt.Fprintf(w, "    work directory kept: %s\n", r.WorkDir)
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
	fmt.Fprintln(w, total)
}

func writeVerdict(w io.Writer, l *conformance.Ledger, v conformance.Verdict) {
	if v.OK() {
		fmt.Fprintf(w, "the run matches the ledger %s: %d expected failures", l.Path, len(v.Expected))
	} else {
		fmt.Fprintf(w, "the run does NOT match the ledger %s: %d expected failures, %d unexpected failures, %d listed scenarios now pass",
			l.Path, len(v.Expected), len(v.Unexpected), len(v.Fixed))
	}
	if len(v.FlakyPass) > 0 {
		fmt.Fprintf(w, " (%d listed as flaky passed this time)", len(v.FlakyPass))
	}
	if len(v.NotRun) > 0 {
		fmt.Fprintf(w, " (%d listed scenarios did not run)", len(v.NotRun))
	}
	fmt.Fprintln(w)
}

func cmdList(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("apexcheck list", stderr)
	run := fs.String("run", "", "list only scenarios whose name matches `REGEXP`")
	shard := fs.String("shard", "", "list only shard `i/n` of the suite")
	profileName := fs.String("profile", "apex", "list only the scenarios of profile `NAME` (apex: all; core)")
	verbose := fs.Bool("v", false, "also print each scenario's summary")
	if code, done := parse(fs, args, stderr); done {
		return code
	}
	profile, err := conformance.ParseProfile(*profileName)
	if err != nil {
		return usageError(fs, stderr, fmt.Errorf("--profile: %w", err))
	}
	cfg := conformance.Config{Scripts: suite.Scripts, Dir: ".", Profile: profile}
	if *run != "" {
		var err error
		if cfg.Run, err = regexp.Compile(*run); err != nil {
			return usageError(fs, stderr, fmt.Errorf("--run: %w", err))
		}
	}
	if *shard != "" {
		sh, err := conformance.ParseShard(*shard)
		if err != nil {
			return usageError(fs, stderr, fmt.Errorf("--shard: %w", err))
		}
		cfg.Select = sh.Contains
	}
	scenarios, err := cfg.Selected()
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck list:", err)
		return ExitUsage
	}
	fmt.Fprintf(stdout, "%-44s %-28s %s\n", "SCENARIO", "CLAUSES", "REQUIRES")
	for _, s := range scenarios {
		req := "-"
		if len(s.Requires) > 0 {
			req = strings.Join(s.Requires, ",")
		}
		fmt.Fprintf(stdout, "%-44s %-28s %s%s\n", s.Name, strings.Join(s.Clauses, ","), req, coreNote(s))
		if *verbose {
			fmt.Fprintf(stdout, "    %s\n", s.Summary)
		}
	}
	return ExitConformant
}

func cmdExplain(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(stderr, "usage: apexcheck explain CLAUSE")
		return ExitUsage
	}
	id := strings.ToUpper(args[0])
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
	fset := newFlagSet("apexcheck validate", stderr)
	var f implFlags
	f.register(fset)
	verbose := fset.Bool("v", false, "print every message checked, not only those with problems")
	if code, done := parse(fset, args, stderr); done {
		return code
	}
	argv, _, err := f.command()
	if err != nil {
		return usageError(fset, stderr, err)
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
