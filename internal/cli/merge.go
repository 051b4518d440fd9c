package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/apexcheck/apexcheck/conformance"
	"github.com/apexcheck/apexcheck/internal/version"
)

// mergeHelp is what merge --help prints between the synopsis and the flags.
const mergeHelp = `
Merge the JSON Lines reports of shard runs (apexcheck --shard i/n --json FILE,
one per shard) into one verdict, as if the whole suite had run at once. It
refuses reports of different kits, suites, implementations or capabilities,
and reports that do not cover the suite exactly once.

Exit status: as for a run: 0 conformant (or matching the --expect ledger;
certified with --certify), 1 not, 2 bad usage or reports that cannot merge.`

// cmdMerge merges shard reports: apexcheck merge [flags] REPORT.jsonl...
func cmdMerge(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("merge", stdout, stderr)
	var f runFlags
	fs.BoolVar(&f.verbose, "v", false, "print every scenario's outcome")
	fs.StringVar(&f.jsonFile, "json", "", "write the merged JSON Lines report to `FILE`")
	fs.StringVar(&f.junitFile, "junit", "", "write a JUnit XML report to `FILE`")
	fs.StringVar(&f.mdFile, "markdown", "", "write a Markdown summary to `FILE` (for $GITHUB_STEP_SUMMARY)")
	fs.StringVar(&f.badgeFile, "badge", "", "write a shields.io endpoint badge to `FILE`")
	fs.StringVar(&f.expect, "expect", "", "check the merged run against the expectation ledger `FILE`")
	fs.BoolVar(&f.certify, "certify", false, "certify the merged run: every MUST scenario must have run and passed; prints a certificate")
	fs.StringVar(&f.certFile, "certificate", "", "with --certify, also write the certificate to `FILE` (JSON when it ends in .json)")
	// Flags may follow the file names too: parse up to each name in turn.
	var files []string
	for rest := args; ; {
		if code, done := fs.parse(rest, -1); done {
			return code
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(files) == 0 {
		return fs.usageError(errors.New("no reports given"))
	}
	if f.certFile != "" && !f.certify {
		return fs.usageError(errors.New("--certificate needs --certify"))
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "apexcheck merge:", err)
		return ExitUsage
	}
	var shards []*conformance.ShardReport
	for _, file := range files {
		sr, err := conformance.LoadShardReport(file)
		if err != nil {
			return fail(err)
		}
		shards = append(shards, sr)
	}
	all, err := conformance.LoadScenarios(suite.Scripts, ".")
	if err != nil {
		return fail(err)
	}
	digest, err := conformance.SuiteDigest(suite.Data, ".")
	if err != nil {
		return fail(err)
	}
	rep, err := conformance.MergeReports(shards, all, digest)
	if err != nil {
		return fail(err)
	}
	if rep.Kit != version.Kit {
		// The suite digest decides what ran; a different kit version with
		// the same suite only changes how reports are written.
		fmt.Fprintf(stderr, "apexcheck merge: note: the reports were written by apexcheck %s, this is %s\n", rep.Kit, version.Kit)
	}
	clauses, err := conformance.LoadClauses(suite.Spec)
	if err != nil {
		return fail(err)
	}
	if f.expect != "" {
		l, err := conformance.LoadLedger(f.expect)
		if err == nil {
			err = l.CheckSuite(suite.Data, version.Kit, clauses)
		}
		if err != nil {
			return fail(err)
		}
		if l.Note != "" {
			fmt.Fprintln(stderr, "apexcheck merge: note:", l.Note)
		}
		rep.Ledger = l
	}
	impl := rep.Implementation
	fmt.Fprintf(stdout, "apexcheck %s (suite %s) merging %d reports of %s %s (%s)\n",
		version.Kit, conformance.ShortDigest(digest), len(shards), impl.Name, impl.Version, impl.Language)
	fmt.Fprintf(stdout, "capabilities: %s\n", strings.Join(rep.Capabilities, " "))
	if rep.Ledger != nil {
		fmt.Fprintf(stdout, "expectation ledger: %s (%d known failures)\n", rep.Ledger.Path, len(rep.Ledger.Expected))
	}
	for _, r := range rep.Results {
		printResult(stdout, rep, r, f.verbose)
	}
	code := ExitConformant
	if err := writeReports(rep, &f, stdout); err != nil {
		fmt.Fprintln(stderr, "apexcheck merge:", err)
		code = ExitUsage
	}
	writeSummary(stdout, rep.Results)
	v := rep.Ledger.Evaluate(rep.Results)
	if rep.Ledger != nil {
		writeVerdict(stdout, rep.Ledger, v)
	}
	if !v.OK() && code == ExitConformant {
		code = ExitNotConformant
	}
	if f.certify {
		cert := conformance.Certify(rep, all, clauses, time.Now())
		fmt.Fprintln(stdout)
		cert.WriteText(stdout)
		if f.certFile != "" {
			if err := writeCertificate(f.certFile, cert); err != nil {
				return fail(err)
			}
		}
		// As in a run: with a ledger the ledger decides, else the
		// certificate does.
		if rep.Ledger == nil && code != ExitUsage {
			code = ExitConformant
			if !cert.Certified {
				code = ExitNotConformant
			}
		}
	}
	return code
}

// writeCertificate writes a certificate as text, or as JSON when the file
// name ends in .json.
func writeCertificate(file string, cert conformance.Certificate) error {
	return writeFile(file, func(w io.Writer) error {
		if strings.HasSuffix(file, ".json") {
			return cert.WriteJSON(w)
		}
		return cert.WriteText(w)
	})
}

// certifyShard ends a run with --certify --shard: a shard cannot certify
// alone, so it checks only its own scenarios by certification's rules (a
// MUST scenario that failed, errored or was skipped denies) and says that
// the certificate comes from apexcheck merge. code is the run's exit code
// so far; with a ledger, the ledger keeps deciding.
func certifyShard(stdout, stderr io.Writer, rep *conformance.Report, selected []conformance.Scenario, shard string, code int, ledger *conformance.Ledger) int {
	clauses, err := conformance.LoadClauses(suite.Spec)
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck:", err)
		return ExitUsage
	}
	cert := conformance.Certify(rep, selected, clauses, time.Now())
	fmt.Fprintf(stdout, "\nshard %s: %d of %d MUST scenarios ran and passed\n", shard, cert.Totals.MustPassed, cert.Totals.MustTotal)
	for _, d := range cert.Denied {
		fmt.Fprintf(stdout, "  denies certification: %s\n", d)
	}
	fmt.Fprintln(stdout, "the certificate comes from merging every shard's --json report: apexcheck merge --certify REPORT.jsonl...")
	if ledger == nil && code != ExitUsage {
		code = ExitConformant
		if len(cert.Denied) > 0 {
			code = ExitNotConformant
		}
	}
	return code
}
