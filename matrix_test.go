package apexcheck_test

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apexcheck/apexcheck/conformance/verdict"
	"github.com/apexcheck/apexcheck/internal/cli"
)

// matrixReports are the checked-in reports `make matrix` reads, in the
// order it reads them.
func matrixReports(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("docs/reports/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no report under docs/reports")
	}
	sort.Strings(files)
	return files
}

// matrixLedgers are the expectation ledgers `make matrix` gives, as the
// --ledger flags it passes.
func matrixLedgers(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("adapters/*/expected*.json")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var args []string
	for _, f := range files {
		// Only the ledgers of tools with a report, as the Makefile's
		// MATRIX_LEDGERS: a new third party has none before its first
		// make docs.
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		l, err := verdict.ParseLedger(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		name, _, _ := strings.Cut(l.Implementation, " ")
		if reports, _ := filepath.Glob("docs/reports/" + name + ".*.jsonl"); len(reports) == 0 {
			continue
		}
		args = append(args, "--ledger", f)
	}
	return args
}

// TestMatrixUpToDate fails when docs/matrix.md or docs/matrix.html is not
// what `make matrix` makes of the reports under docs/reports and the
// ledgers under adapters, or of this spec: a report added, a ledger's
// reason reviewed, a clause changed, or the generator changed.
func TestMatrixUpToDate(t *testing.T) {
	dir := t.TempDir()
	md, page := filepath.Join(dir, "matrix.md"), filepath.Join(dir, "matrix.html")
	var stdout, stderr bytes.Buffer
	args := append([]string{"compare", "--markdown", md, "--html", page}, matrixLedgers(t)...)
	args = append(args, matrixReports(t)...)
	if code := cli.Main(args, &stdout, &stderr); code != cli.ExitConformant {
		t.Fatalf("apexcheck compare: exit %d\n%s", code, stderr.String())
	}
	for _, f := range []struct{ fresh, checkedIn string }{{md, "docs/matrix.md"}, {page, "docs/matrix.html"}} {
		want, err := os.ReadFile(f.fresh)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(f.checkedIn)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run `make matrix` and commit the result", f.checkedIn)
		}
	}
}
