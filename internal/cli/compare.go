package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

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
HTML page with filters by area, profile and outcome. Each implementation row
shows its name, version, profile, counts and whether it is certified.`

// cmdCompare turns JSON Lines reports into one implementations × clauses
// matrix: Markdown and a self-contained HTML page.
func cmdCompare(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("compare", stdout, stderr)
	mdFile := fs.String("markdown", "", "write the matrix as Markdown to `FILE` (default: stdout, when --html is not given)")
	htmlFile := fs.String("html", "", "write the matrix as one self-contained HTML page to `FILE`")
	specBase := fs.String("spec-base", "../spec/", "path from the Markdown file to spec/, for clause links")
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
	m, err := buildMatrix(runs)
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

// buildMatrix compares runs against the embedded spec and suite.
func buildMatrix(runs []*verdict.ReadRun) (*matrix.Matrix, error) {
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
	return matrix.Compare(runs, clauses, scenarios, digest, version.Kit)
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
