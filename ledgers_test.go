package apexcheck_test

import (
	"path/filepath"
	"testing"

	"github.com/apexcheck/apexcheck"
	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/conformance/verdict"
	"github.com/apexcheck/apexcheck/internal/version"
)

// TestLedgersCurrent reads every ledger the repository ships (the third
// parties' and the adapter skeletons') against this suite: each is in the
// current format, names clauses the spec defines, and has no entry whose
// scenario changed or went since it was reviewed. A scenario edit fails
// here at once, naming the entries to review, instead of minutes into a
// third party's run.
func TestLedgersCurrent(t *testing.T) {
	clauses, err := suite.LoadClauses(apexcheck.Spec)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, glob := range []string{"adapters/*/expected*.json", "internal/skeleton/ledgers/*.json"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 11 {
		t.Fatalf("found %d ledgers, want the 11 the repository ships: %v", len(files), files)
	}
	for _, file := range files {
		l, err := verdict.LoadLedger(file)
		if err != nil {
			t.Error(err)
			continue
		}
		if l.Format != verdict.LedgerFormat {
			t.Errorf("%s: format %d, want %d (apexcheck ledger migrate %s)", file, l.Format, verdict.LedgerFormat, file)
		}
		if err := l.CheckSuite(apexcheck.Suite, version.Kit, clauses); err != nil {
			t.Error(err)
			continue
		}
		for _, e := range l.Expected {
			if s := e.Stale(); s != "" {
				t.Errorf("%s: stale entry %s", file, s)
			}
		}
	}
}
