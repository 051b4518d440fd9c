package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/apexcheck/apexcheck/conformance"
	"github.com/apexcheck/apexcheck/internal/version"
)

// compareGenerator is the command the matrix pages name as their source.
const compareGenerator = "make matrix"

// cmdCompare turns JSON Lines reports into one implementations × clauses
// matrix: Markdown and a self-contained HTML page.
func cmdCompare(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("apexcheck compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	mdFile := fs.String("markdown", "", "write the matrix as Markdown to `FILE` (default: stdout, when --html is not given)")
	htmlFile := fs.String("html", "", "write the matrix as one self-contained HTML page to `FILE`")
	specBase := fs.String("spec-base", "../spec/", "path from the Markdown file to spec/, for clause links")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: apexcheck compare [--markdown FILE] [--html FILE] REPORT.jsonl...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitConformant
		}
		return ExitUsage
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "apexcheck compare: no report given")
		fs.Usage()
		return ExitUsage
	}
	var runs []*conformance.ReadRun
	for _, file := range fs.Args() {
		run, err := conformance.ReadReportFile(file)
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
	opt := conformance.MatrixOptions{SpecBase: *specBase, Generator: compareGenerator}
	if *htmlFile != "" && *mdFile != "" {
		opt.HTMLPage = relPath(*mdFile, *htmlFile)
	}
	code := ExitConformant
	write := func(file string, render func(io.Writer, conformance.MatrixOptions) error) {
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
func buildMatrix(runs []*conformance.ReadRun) (*conformance.Matrix, error) {
	clauses, err := conformance.LoadClauses(suite.Spec)
	if err != nil {
		return nil, err
	}
	scenarios, err := conformance.LoadScenarios(suite.Scripts, ".")
	if err != nil {
		return nil, err
	}
	digest, err := conformance.SuiteDigest(suite.Data, ".")
	if err != nil {
		return nil, err
	}
	return conformance.Compare(runs, clauses, scenarios, digest, version.Kit)
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
