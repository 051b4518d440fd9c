package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/conformance/verdict"
	"github.com/apexcheck/apexcheck/internal/version"
)

// mergeHelp is what merge --help prints between the synopsis and the flags.
const mergeHelp = `
Merge the JSON Lines reports of shard runs (apexcheck --shard i/n --json FILE,
one per shard) into one verdict, as if the whole suite had run at once. It
refuses reports of different kits, suites, implementations or capabilities,
and reports that do not cover the suite exactly once.

With --profile core, the reports of an apex run (one report, or its
shards) give the core verdict: the results of the core scenarios alone,
judged and certified under core. A profile only selects scenarios, and a
core scenario runs alike in both, so one apex run certifies both profiles.

Exit status: as for a run: 0 conformant (or matching the --expect ledger;
certified with --certify), 1 not, 2 bad usage or reports that cannot merge,
3 inconclusive (nothing failed, but a scenario stayed inconclusive).`

// cmdMerge merges shard reports: apexcheck merge [flags] REPORT.jsonl...
func cmdMerge(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("merge", stdout, stderr)
	var f reportFlags
	f.register(fs.FlagSet, reportUsage{
		json:    "write the merged JSON Lines report to `FILE`",
		expect:  "check the merged run against the expectation ledger `FILE`",
		certify: "certify the merged run: every MUST scenario must have run and passed; prints a certificate",
	})
	profileName := fs.String("profile", "", "give the verdict of profile `NAME` (core) from apex reports: their core scenarios only")
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
	var shards []*verdict.ShardReport
	for _, file := range files {
		sr, err := verdict.LoadShardReport(file)
		if err != nil {
			return fail(err)
		}
		shards = append(shards, sr)
	}
	all, err := suite.LoadScenarios(embedded.Scripts, ".")
	if err != nil {
		return fail(err)
	}
	digest, err := suite.Digest(embedded.Data, ".")
	if err != nil {
		return fail(err)
	}
	rep, err := verdict.MergeReports(shards, all, digest)
	if err != nil {
		return fail(err)
	}
	profileNote := string(rep.Profile.OrDefault())
	if *profileName != "" {
		p, err := suite.ParseProfile(*profileName)
		if err != nil {
			return fs.usageError(err)
		}
		if p != rep.Profile.OrDefault() {
			profileNote = fmt.Sprintf("profile %s from the %s run", p, rep.Profile.OrDefault())
		}
		if err := verdict.Narrow(rep, p); err != nil {
			return fail(err)
		}
	}
	if !strings.HasPrefix(profileNote, "profile ") {
		profileNote = "profile " + profileNote
	}
	if rep.Kit != version.Kit {
		// The suite digest decides what ran; a different kit version with
		// the same suite only changes how reports are written.
		fmt.Fprintf(stderr, "apexcheck merge: note: the reports were written by apexcheck %s, this is %s\n", rep.Kit, version.Kit)
	}
	clauses, err := suite.LoadClauses(embedded.Spec)
	if err != nil {
		return fail(err)
	}
	if f.expect != "" {
		l, err := verdict.LoadLedger(f.expect)
		if err == nil {
			err = l.CheckSuite(embedded.Data, version.Kit, clauses)
		}
		if err == nil {
			err = l.CheckReviewed()
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
	fmt.Fprintf(stdout, "apexcheck %s (suite %s, %s) merging %d reports of %s %s (%s)\n",
		version.Kit, suite.ShortDigest(digest), profileNote, len(shards), impl.Name, impl.Version, impl.Language)
	fmt.Fprintf(stdout, "capabilities: %s\n", strings.Join(rep.Capabilities, " "))
	if rep.Ledger != nil {
		fmt.Fprintf(stdout, "expectation ledger: %s (%d known failures)\n", rep.Ledger.Path, len(rep.Ledger.Expected))
	}
	for _, r := range rep.Results {
		printResult(stdout, rep, r, f.verbose)
	}
	usageErr := false
	if err := writeReports(rep, &f, stdout); err != nil {
		fmt.Fprintln(stderr, "apexcheck merge:", err)
		usageErr = true
	}
	writeSummary(stdout, rep.Results)
	if rep.Ledger != nil {
		writeVerdict(stdout, rep.Ledger, rep.Ledger.Evaluate(rep.Results))
	}
	var cert *verdict.Certificate
	if f.certify {
		c := verdict.Certify(rep, all, clauses, time.Now())
		cert = &c
		fmt.Fprintln(stdout)
		cert.WriteText(stdout)
		if f.certFile != "" {
			if err := writeCertificate(f.certFile, *cert); err != nil {
				return fail(err)
			}
		}
	}
	// As in a run (Judge): with a ledger the ledger decides, else the
	// certificate does.
	return exitCode(verdict.Judge(rep, rep.Ledger, cert), usageErr)
}
