package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/apexcheck/apexcheck/conformance/matrix"
	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/conformance/verdict"
	"github.com/apexcheck/apexcheck/internal/version"
)

// compareGenerator is the command the matrix pages name as their source.
const compareGenerator = "make matrix"

// compareHelp is what compare --help prints between the synopsis and the
// flags.
const compareHelp = `
Turn the JSON Lines reports of several runs (--json FILE) into one
implementations × clauses matrix: a Markdown page and one self-contained
HTML page with filters by area, profile and outcome: one section per
profile, core first, each with its tools' totals (certified or not, MUST
clauses verified of those its declared capabilities let it be tested on)
and a clauses × tools table. Give each tool's expectation ledgers with
--ledger (one per use; a ledger belongs to the report of the implementation
and profile it names) to show the reviewed reason beside each failure.`

// cmdCompare turns JSON Lines reports into one implementations × clauses
// matrix: Markdown and a self-contained HTML page.
func cmdCompare(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("compare", stdout, stderr)
	mdFile := fs.String("markdown", "", "write the matrix as Markdown to `FILE` (default: stdout, when --html is not given)")
	htmlFile := fs.String("html", "", "write the matrix as one self-contained HTML page to `FILE`")
	specBase := fs.String("spec-base", "../spec/", "path from the Markdown file to spec/, for clause links")
	var ledgers fileList
	fs.Var(&ledgers, "ledger", "show the reviewed reasons of the expectation ledger `FILE` beside the failures of its report (repeatable)")
	if code, done := fs.parse(args, -1); done {
		return code
	}
	if fs.NArg() == 0 {
		return fs.usageError(errors.New("no report given"))
	}
	var runs []*verdict.ReadRun
	for _, file := range fs.Args() {
		run, err := verdict.ReadReportFile(file)
		if err != nil {
			fmt.Fprintln(stderr, "apexcheck compare:", err)
			return ExitUsage
		}
		runs = append(runs, run)
	}
	m, err := buildMatrix(runs, ledgers)
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck compare:", err)
		return ExitUsage
	}
	opt := matrix.Options{SpecBase: *specBase, Generator: compareGenerator}
	if *htmlFile != "" && *mdFile != "" {
		opt.HTMLPage = relPath(*mdFile, *htmlFile)
	}
	code := ExitConformant
	write := func(file string, render func(io.Writer, matrix.Options) error) {
		if err := writeFile(file, func(w io.Writer) error { return render(w, opt) }); err != nil {
			fmt.Fprintln(stderr, "apexcheck compare:", err)
			code = ExitUsage
		}
	}
	if *mdFile != "" {
		write(*mdFile, m.WriteMarkdown)
	}
	if *htmlFile != "" {
		write(*htmlFile, m.WriteHTML)
	}
	if *mdFile == "" && *htmlFile == "" {
		if err := m.WriteMarkdown(stdout, opt); err != nil {
			fmt.Fprintln(stderr, "apexcheck compare:", err)
			return ExitUsage
		}
	}
	return code
}

// buildMatrix compares runs against the embedded spec and suite, and gives
// them the ledgers in files, each checked against the suite.
func buildMatrix(runs []*verdict.ReadRun, files []string) (*matrix.Matrix, error) {
	clauses, err := suite.LoadClauses(embedded.Spec)
	if err != nil {
		return nil, err
	}
	scenarios, err := suite.LoadScenarios(embedded.Scripts, ".")
	if err != nil {
		return nil, err
	}
	digest, err := suite.Digest(embedded.Data, ".")
	if err != nil {
		return nil, err
	}
	m, err := matrix.Compare(runs, clauses, scenarios, digest, version.Kit)
	if err != nil {
		return nil, err
	}
	var ledgers []*verdict.Ledger
	for _, f := range files {
		l, err := verdict.LoadLedger(f)
		if err != nil {
			return nil, err
		}
		if err := l.CheckSuite(embedded.Data, version.Kit, clauses); err != nil {
			return nil, err
		}
		ledgers = append(ledgers, l)
	}
	if err := m.SetLedgers(ledgers); err != nil {
		return nil, err
	}
	return m, nil
}

// fileList is the value of a repeatable flag naming files.
type fileList []string

func (l *fileList) String() string { return strings.Join(*l, " ") }

func (l *fileList) Set(v string) error {
	if v == "" {
		return errors.New("empty file name")
	}
	*l = append(*l, v)
	return nil
}

// relPath is the path of target relative to the directory of from, for a
// link between two generated files; target as given when that fails.
func relPath(from, target string) string {
	rel, err := filepath.Rel(filepath.Dir(from), target)
	if err != nil {
		return target
	}
	return filepath.ToSlash(rel)
}
