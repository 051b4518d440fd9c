package cli

import (
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/apexcheck/apexcheck/conformance"
	"github.com/apexcheck/apexcheck/conformance/client"
	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/conformance/verdict"
	"github.com/apexcheck/apexcheck/internal/version"
	"github.com/apexcheck/apexcheck/protocol"
)

const runHelp = `
Without a command, apexcheck runs the scenarios of its embedded suite against
the implementation --impl names, or against its own reference when --impl is
not given, and prints each failure, a summary and the verdict.

Exit status: 0 conformant (or matching the --expect ledger; certified with
--certify), 1 not, 2 bad usage or setup, 3 inconclusive (nothing failed, but
a scenario's time bound was missed by the machine in every attempt:
certification withheld, rerun on a quieter machine), 130 interrupted (SIGINT
or SIGTERM: the implementations are killed, the run's files removed, and the
scenarios that finished before are summed up), 141 when the reader of the
output went away (apexcheck | head: the same clean-up, quietly).`

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
	cfg := conformance.Config{Impl: argv, Scripts: embedded.Scripts, Dir: ".", Parallel: f.parallel, Tracker: new(client.Tracker),
		Bound: f.bound, Startup: f.mcp.startup, KeepWork: f.keepWork, SelfExe: self, MaxFail: f.maxFail}
	if f.failFast {
		cfg.MaxFail = 1
	}
	all, err := suite.LoadScenarios(embedded.Scripts, ".")
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck:", err)
		return ExitUsage
	}
	if err := f.selectFlags.apply(&cfg, all); err != nil {
		return fs.usageError(err)
	}
	profile := cfg.Profile
	digest, err := suite.Digest(embedded.Data, ".")
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck:", err)
		return ExitUsage
	}
	clauses, err := suite.LoadClauses(embedded.Spec)
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck:", err)
		return ExitUsage
	}
	// ledger checks the run; previous only lends its reviewed reasons to a
	// draft (--write-expect), which is how a ledger for an older suite is
	// brought up to date.
	var ledger, previous *verdict.Ledger
	if f.expect != "" {
		if ledger, err = verdict.LoadLedger(f.expect); err == nil {
			previous = ledger
			err = ledger.CheckSuite(embedded.Data, version.Kit, clauses)
			if err == nil {
				err = ledger.CheckProfile(profile, all)
			}
			if err == nil {
				err = ledger.CheckReviewed()
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
		cfg.CountsAsFailure = func(r suite.Result) bool {
			st, _ := ledger.Classify(r)
			return st == verdict.UnexpectedFailure
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

	// From here on a signal or a closed output ends the run cleanly, the
	// handshake included.
	watch := watchInterrupts(stdout, stderr, cfg.Tracker)
	stdout, stderr = watch.writer(stdout), watch.writer(stderr)
	hello, err := conformance.Handshake(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "apexcheck: implementation %q: %v\n", strings.Join(cfg.Impl, " "), err)
		// The reports say it too: in CI they are often all anyone reads.
		rep := &verdict.Report{Kit: version.Kit, Suite: digest, Profile: profile,
			Implementation: protocol.Implementation{Name: strings.Join(cfg.Impl, " ")}, Command: f.commandLine(),
			ScriptDir: "testdata/scripts", Started: time.Now(), SetupError: verdict.NewSetupError(err)}
		if err := writeReports(rep, &f.reportFlags, stdout); err != nil {
			fmt.Fprintln(stderr, "apexcheck:", err)
		}
		watch.stop()
		return ExitUsage
	}
	impl := *hello.Hello.Implementation
	cfg.Capabilities = hello.Capabilities()
	fmt.Fprintf(stdout, "apexcheck %s (suite %s, profile %s) checking %s %s (%s)\n", version.Kit, suite.ShortDigest(digest), profile, impl.Name, impl.Version, impl.Language)
	fmt.Fprintf(stdout, "capabilities: %s\n", strings.Join(sortedKeys(cfg.Capabilities), " "))
	if ledger != nil {
		fmt.Fprintf(stdout, "expectation ledger: %s (%d known failures): a failure the ledger lists is expected and counts as a pass; the run fails only where it differs from the ledger\n", ledger.Path, len(ledger.Expected))
	}

	// The report is built before the run, so that each failure printed as
	// it happens reads as it will in the reports.
	rep := &verdict.Report{Kit: version.Kit, Suite: digest, Profile: profile, Implementation: impl,
		Capabilities: sortedKeys(cfg.Capabilities), Command: f.commandLine(), ScriptDir: "testdata/scripts",
		Ledger: ledger, Clauses: clauses, Scripts: embedded.Scripts, RerunFlags: f.rerunFlags()}
	prog := newProgress(f.progress, stderr, len(selected), f.verbose)
	cfg.OnResult = func(r suite.Result) {
		watch.result(r, func() { prog.finish(r, func() { printResult(stdout, rep, r, f.verbose) }) })
	}
	cfg.OnStart = prog.start
	start := time.Now()
	watch.started(len(selected), prog.done)
	results, err := conformance.Run(cfg)
	watch.stop()
	prog.done()
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck:", err)
		return ExitUsage
	}
	rep.Started, rep.Duration, rep.Results = start, time.Since(start), results

	usageErr := false
	if err := writeReports(rep, &f.reportFlags, stdout); err != nil {
		fmt.Fprintln(stderr, "apexcheck:", err)
		usageErr = true
	}
	writeSummary(stdout, results)
	if ledger != nil {
		writeVerdict(stdout, ledger, ledger.Evaluate(results))
	}
	if f.writeExpect != "" {
		if err := writeFile(f.writeExpect, func(w io.Writer) error {
			return verdict.DraftLedger(w, results, previous, embedded.Data, version.Kit, impl.Name+" "+impl.Version, profile,
				f.run != "" || len(f.areas) > 0 || f.shard != "")
		}); err != nil {
			fmt.Fprintln(stderr, "apexcheck:", err)
			usageErr = true
		} else {
			fmt.Fprintf(stdout, "draft ledger written to %s: review every entry before checking it in\n", f.writeExpect)
		}
	}
	var cert *verdict.Certificate
	switch {
	case f.certify && f.shard != "":
		if cert = certifyShard(stdout, stderr, rep, selected, f.shard); cert == nil {
			return ExitUsage
		}
	case f.certify:
		c := verdict.Certify(rep, all, clauses, time.Now())
		cert = &c
		fmt.Fprintln(stdout)
		cert.WriteText(stdout)
		if f.certFile != "" {
			if err := writeCertificate(f.certFile, *cert); err != nil {
				fmt.Fprintln(stderr, "apexcheck:", err)
				return ExitUsage
			}
		}
	}
	return exitCode(verdict.Judge(rep, ledger, cert), usageErr)
}

// printResult prints one scenario's outcome: every one with -v, else only
// those that failed, errored or disagree with the ledger. A failure gets
// its whole block (verdict.Failure): where, which clauses, expected
// and got, stderr, the rerun command; -v adds the scenario's log before it.
func printResult(w io.Writer, rep *verdict.Report, r suite.Result, verbose bool) {
	st, e := rep.Ledger.Classify(r)
	if !verbose && st != verdict.UnexpectedFailure && st != verdict.UnexpectedPass && st != verdict.StaleExpectation &&
		r.Outcome != suite.Inconclusive {
		return
	}
	label := strings.ToUpper(string(r.Outcome))
	switch st {
	case verdict.ExpectedFailure:
		label = "XFAIL"
	case verdict.UnexpectedPass:
		label = "XPASS"
	case verdict.StaleExpectation:
		label = "STALE"
	}
	fmt.Fprintf(w, "%-8s %s (%.1fs)\n", label, r.Scenario.Name, r.Duration.Seconds())
	switch {
	case st == verdict.StaleExpectation:
		fmt.Fprintf(w, "    %s (it %s this time)\n", e.Stale(), r.Outcome)
	case st == verdict.UnexpectedPass:
		fmt.Fprintf(w, "    listed in the ledger as failing (%s: %s), but passed: remove the entry\n", e.Clause, e.Reason)
	case st == verdict.ExpectedFailure:
		fmt.Fprintf(w, "    expected (%s): %s\n", e.Clause, e.Reason)
	case st == verdict.FlakyPass:
		fmt.Fprintf(w, "    listed as flaky (%s): %s\n", e.Clause, e.Reason)
	case r.Outcome == suite.Failed || r.Outcome == suite.Errored:
		if verbose {
			// The scenario's own explanation first: testscript keeps only
			// the first line of each passed section in the log, and a
			// long log loses its start.
			scripts := rep.Scripts
			if scripts == nil {
				scripts = embedded.Scripts // a merge: its reports are of the embedded suite
			}
			if data, err := fs.ReadFile(scripts, r.Scenario.Path); err == nil {
				fmt.Fprintf(w, "    scenario (apexcheck show %s):\n%s\n", r.Scenario.Name, indent8(explanation(data)))
			}
		}
		if verbose && r.Log != "" {
			// The whole log: each command and its output, which the
			// block's diff and tails summarise.
			fmt.Fprintf(w, "    log:\n%s\n", indent8(rep.ShippedPaths(r.Scenario, verdict.LogTail(r.Log, verdict.MaxLog))))
		}
		fmt.Fprintln(w, indent(rep.Failure(r).Text()))
	case r.Outcome == suite.Skipped && r.Message != "":
		fmt.Fprintln(w, indent(r.Message))
	case r.Outcome == suite.Inconclusive:
		fmt.Fprintln(w, indent(r.Message+"\nrerun:  "+rep.Reproduce(r.Scenario)))
	case verbose && r.Attempts > 1:
		fmt.Fprintln(w, indent(r.Message))
	}
}

// writeSummary prints passed / failed / errored / skipped per area and in
// total. Skips are never counted as passes.
func writeSummary(w io.Writer, results []suite.Result) {
	fmt.Fprintf(w, "\n%-12s %7s %7s %7s %7s\n", "area", "passed", "failed", "errored", "skipped")
	line := func(name string, t suite.Totals) {
		fmt.Fprintf(w, "%-12s %7d %7d %7d %7d\n", name, t.Passed, t.Failed, t.Errored, t.Skipped)
	}
	for _, a := range suite.CountByArea(results) {
		line(a.Area, a.Totals)
	}
	total := suite.Count(results)
	line("total", total)
	writeSkips(w, results)
	writeInconclusive(w, results)
	fmt.Fprintln(w, total)
}

// writeSkips prints the skipped scenarios grouped by reason, largest group
// first, so that "58 skipped" reads as what it is: a capability not
// declared, a program not installed, a kernel feature missing.
func writeSkips(w io.Writer, results []suite.Result) {
	groups := map[string][]string{}
	for _, r := range results {
		if r.Outcome == suite.Skipped {
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

// writeInconclusive lists the scenarios left inconclusive, which the
// table's columns do not count: neither passed nor failed.
func writeInconclusive(w io.Writer, results []suite.Result) {
	var names []string
	for _, r := range results {
		if r.Outcome == suite.Inconclusive {
			names = append(names, r.Scenario.Name)
		}
	}
	if len(names) > 0 {
		fmt.Fprintf(w, "\ninconclusive (the machine, not the implementation, missed a time bound in every attempt; neither passed nor failed): %s\n",
			strings.Join(names, ", "))
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

func writeVerdict(w io.Writer, l *verdict.Ledger, v verdict.Verdict) {
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

// certifyShard judges one shard of a run with --certify --shard: a shard
// cannot certify alone, so it checks only its own scenarios by
// certification's rules (a MUST scenario that failed, errored or was
// skipped denies) and says that the certificate comes from apexcheck
// merge. It returns nil when the spec cannot be read.
func certifyShard(stdout, stderr io.Writer, rep *verdict.Report, selected []suite.Scenario, shard string) *verdict.Certificate {
	clauses, err := suite.LoadClauses(embedded.Spec)
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck:", err)
		return nil
	}
	cert := verdict.Certify(rep, selected, clauses, time.Now())
	cert.Shard = shard
	fmt.Fprintf(stdout, "\nshard %s: %d of %d MUST scenarios ran and passed\n", shard, cert.Totals.MustPassed, cert.Totals.MustTotal)
	for _, d := range cert.Denied {
		fmt.Fprintf(stdout, "  denies certification: %s\n", d)
	}
	fmt.Fprintln(stdout, "the certificate comes from merging every shard's --json report: apexcheck merge --certify REPORT.jsonl...")
	return &cert
}
