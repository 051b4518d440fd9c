package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/conformance/verdict"
	"github.com/apexcheck/apexcheck/internal/version"
)

// ledgerHelp is what ledger --help prints between the synopsis and the
// flags.
const ledgerHelp = `
migrate rewrites expectation ledgers written in the old format (pinned to the
whole suite's digest) in the current one, where each entry pins the version
of its scenario it was reviewed against and the kit that reviewed it, so that
a kit upgrade flags only the entries whose scenario changed. A ledger pinned
to the suite this kit runs is migrated exactly, every clause and reason kept;
one pinned to another suite is refused (redraft it with --expect FILE
--write-expect FILE and review every entry). A ledger in the current format
is left as it is.`

// cmdLedger runs a ledger subcommand: apexcheck ledger migrate FILE...
func cmdLedger(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("ledger", stdout, stderr)
	if code, done := fs.parse(args, -1); done {
		return code
	}
	if fs.NArg() == 0 || fs.Arg(0) != "migrate" {
		return fs.usageError(errors.New("want: ledger migrate FILE..."))
	}
	files := fs.Args()[1:]
	if len(files) == 0 {
		return fs.usageError(errors.New("ledger migrate: no ledger given"))
	}
	clauses, err := suite.LoadClauses(embedded.Spec)
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck ledger:", err)
		return ExitUsage
	}
	code := ExitConformant
	for _, file := range files {
		msg, err := migrateLedger(file, clauses)
		if err != nil {
			fmt.Fprintln(stderr, "apexcheck ledger:", err)
			code = ExitUsage
			continue
		}
		fmt.Fprintln(stdout, msg)
	}
	return code
}

// migrateLedger rewrites one ledger in the current format, in place: the
// new file replaces the old only once it is written whole.
func migrateLedger(file string, clauses []suite.Clause) (string, error) {
	l, err := verdict.LoadLedger(file)
	if err != nil {
		return "", err
	}
	if l.Format == verdict.LedgerFormat {
		return fmt.Sprintf("%s: already in format %d", file, verdict.LedgerFormat), nil
	}
	if err := l.CheckSuite(embedded.Data, version.Kit, clauses); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), filepath.Base(file)+".*")
	if err != nil {
		return "", fmt.Errorf("migrate %s: %w", file, err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename, there is nothing to remove
	err = l.WriteJSON(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if info, serr := os.Stat(file); serr == nil {
			err = os.Chmod(tmp.Name(), info.Mode().Perm())
		}
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		return "", fmt.Errorf("migrate %s: %w", file, err)
	}
	return fmt.Sprintf("%s: migrated to format %d, %d entries each pinned to its scenario", file, verdict.LedgerFormat, len(l.Expected)), nil
}
