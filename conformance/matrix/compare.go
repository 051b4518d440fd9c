package matrix

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/conformance/verdict"
)

// CellOutcome is what one implementation's scenarios say of one clause.
type CellOutcome string

// The cell outcomes, from worst to best; Absent when no scenario of the
// run cites the clause.
const (
	CellFailed  CellOutcome = "failed"  // a scenario citing it failed
	CellErrored CellOutcome = "errored" // none failed, one errored
	CellSkipped CellOutcome = "skipped" // every scenario citing it was skipped
	CellPartial CellOutcome = "partial" // some passed, the others were skipped
	CellPassed  CellOutcome = "passed"  // every scenario citing it ran and passed
	CellAbsent  CellOutcome = "absent"  // no scenario of the run cites it
)

// CellOutcomes lists the outcomes in the order filters and legends show.
var CellOutcomes = []CellOutcome{CellPassed, CellFailed, CellErrored, CellSkipped, CellPartial, CellAbsent}

// Cell is one implementation's verdict on one clause.
type Cell struct {
	Outcome CellOutcome
	// Results are the run's scenarios that cite the clause, by name.
	Results []verdict.ReadResult
	// Why says why a cell is absent: the clause is outside the run's
	// profile, or no scenario proves it.
	Why string
}

// Failing returns the cell's scenarios that failed or errored.
func (c Cell) Failing() []verdict.ReadResult {
	var out []verdict.ReadResult
	for _, r := range c.Results {
		if r.Outcome == suite.Failed || r.Outcome == suite.Errored {
			out = append(out, r)
		}
	}
	return out
}

// Row is one implementation's run in a matrix.
type Row struct {
	// ID names the row in anchors: the implementation's name and the
	// run's profile ("pi-coding-agent-core"), with its version too when
	// two runs of one profile share a name.
	ID  string
	Run *verdict.ReadRun
	// Totals count the run's outcomes; Certificate is the certification
	// the run earns under its profile, computed here from its outcomes.
	Totals      suite.Totals
	Certificate verdict.Certificate
	// SuiteMatches is false when the run used another suite than this
	// kit's: its outcomes may not hold for the scenarios as they are now.
	SuiteMatches bool
	Cells        map[string]Cell
	// MustDeclared counts the MUST clauses of the run's profile that the
	// capabilities it declared let it be tested on: every scenario of the
	// profile citing the clause needs only declared capabilities. A
	// clause outside them can never be verified (its scenarios are
	// skipped), so Certificate.Totals.MustVerified is read against this.
	MustDeclared int
	// MustUndeclared counts the MUST clauses of the profile that a
	// scenario tests only with a capability the run did not declare.
	MustUndeclared int
	// Ledger is the run's expectation ledger (SetLedgers), whose reviewed
	// reasons explain its failures; nil when it has none.
	Ledger *verdict.Ledger
}

// Matrix is implementations × clauses: what each run says of each clause.
type Matrix struct {
	Kit, Suite string
	Clauses    []suite.Clause
	Rows       []Row
	// cited names the scenarios of the suite that cite each clause.
	cited map[string][]string
}

// Compare builds the matrix of runs against this kit's spec (clauses),
// suite (its scenarios) and suite digest. Certification is decided here,
// as `apexcheck --certify` decides it, against this suite when the run's
// digest is this suite's, else against the scenarios the run reports. Two
// runs of the same implementation, version and profile are an error: the
// matrix would show either.
func Compare(runs []*verdict.ReadRun, clauses []suite.Clause, scenarios []suite.Scenario, digest, kit string) (*Matrix, error) {
	if len(runs) == 0 {
		return nil, errors.New("compare: no report")
	}
	m := &Matrix{Kit: kit, Suite: digest, Clauses: clauses, cited: map[string][]string{}}
	for _, s := range scenarios {
		for _, id := range s.Clauses {
			m.cited[id] = append(m.cited[id], s.Name)
		}
	}
	labels := map[string]string{}
	names := map[string]int{} // runs per implementation name and profile
	for _, run := range runs {
		if prev, dup := labels[run.Label()]; dup {
			return nil, fmt.Errorf("compare: %s and %s both report %s: give one", prev, run.File, run.Label())
		}
		labels[run.Label()] = run.File
		names[run.Implementation.Name+" "+string(run.Profile.OrDefault())]++
	}
	for _, run := range runs {
		id := run.Implementation.Name
		if names[id+" "+string(run.Profile.OrDefault())] > 1 {
			id += "-" + run.Implementation.Version
		}
		id = slug(id + "-" + string(run.Profile.OrDefault()))
		row := Row{ID: id, Run: run, SuiteMatches: run.Suite == digest, Cells: map[string]Cell{}}
		results := make([]suite.Result, len(run.Results))
		reported := make([]suite.Scenario, len(run.Results))
		for j, r := range run.Results {
			results[j], reported[j] = r.Result, r.Scenario
			if run.Profile == suite.Core {
				// The run selected its scenarios by its profile.
				reported[j].Profiles = []suite.Profile{suite.Core}
			}
		}
		row.Totals = suite.Count(results)
		against := scenarios
		if !row.SuiteMatches {
			against = reported
		}
		rep := &verdict.Report{Kit: run.Kit, Suite: run.Suite, Profile: run.Profile, Implementation: run.Implementation,
			Capabilities: run.Capabilities, Results: results}
		row.Certificate = verdict.Certify(rep, against, clauses, run.Started)
		row.MustDeclared, row.MustUndeclared = mustDeclared(run, against, clauses)
		for _, c := range clauses {
			row.Cells[c.ID] = m.cell(run, c)
		}
		m.Rows = append(m.Rows, row)
	}
	return m, nil
}

// mustDeclared counts the MUST clauses of run's profile that every
// scenario citing them can test with the capabilities run declared, and
// those that a scenario citing them needs an undeclared capability for. A
// scenario that skipped itself as not applicable to the run counts for
// neither, as it does not for verdict.Certify.
func mustDeclared(run *verdict.ReadRun, scenarios []suite.Scenario, clauses []suite.Clause) (declared, undeclared int) {
	profile := run.Profile.OrDefault()
	must := verdict.MustClauses(profile.Clauses(clauses))
	caps := map[string]bool{}
	for _, c := range run.Capabilities {
		caps[c] = true
	}
	skipped := map[string]string{} // the run's skipped scenarios, with why
	for _, r := range run.Results {
		if r.Outcome == suite.Skipped {
			skipped[r.Scenario.Name] = r.Message
		}
	}
	testable := map[string]bool{}
	for _, s := range profile.Scenarios(scenarios) {
		ok := len(s.Missing(caps)) == 0
		if why, skip := skipped[s.Name]; skip && ok && !strings.HasPrefix(why, "not run:") {
			// It skipped itself as not applicable to this tool, as
			// verdict.Certify judges: it neither tests nor verifies.
			continue
		}
		for _, id := range s.Clauses {
			if !must[id] {
				continue
			}
			if was, seen := testable[id]; seen {
				testable[id] = was && ok
			} else {
				testable[id] = ok
			}
		}
	}
	for _, ok := range testable {
		if ok {
			declared++
		} else {
			undeclared++
		}
	}
	return declared, undeclared
}

// SetLedgers gives runs their expectation ledgers, so that the pages show
// the reviewed reason beside each failure a ledger lists. A ledger
// belongs to the run whose implementation ("name version", as the ledger's
// implementation member names it) and profile are its own; a ledger that
// belongs to no run, or a second ledger for one run, is an error. The
// ledgers should have been checked against this suite
// (verdict.Ledger.CheckSuite), so that an entry reviewed against an older
// scenario shows as such.
func (m *Matrix) SetLedgers(ledgers []*verdict.Ledger) error {
	for _, l := range ledgers {
		name := l.Path
		if name == "" {
			name = "a ledger"
		}
		found := false
		for i := range m.Rows {
			r := &m.Rows[i]
			impl := r.Run.Implementation
			if l.Implementation != impl.Name+" "+impl.Version || l.Profile.OrDefault() != r.Run.Profile.OrDefault() {
				continue
			}
			if r.Ledger != nil {
				return fmt.Errorf("compare: %s and %s are both ledgers of %s: give one", r.Ledger.Path, name, r.Run.Label())
			}
			r.Ledger, found = l, true
		}
		if !found {
			return fmt.Errorf("compare: %s reviews %q under profile %s, but no report given is of it (a report's implementation is its name and version)",
				name, l.Implementation, l.Profile.OrDefault())
		}
	}
	return nil
}

// Tools returns the implementations' names in the order of their first
// run.
func (m *Matrix) Tools() []string {
	var out []string
	for _, r := range m.Rows {
		if !slices.Contains(out, r.Run.Implementation.Name) {
			out = append(out, r.Run.Implementation.Name)
		}
	}
	return out
}

// Profiles returns the profiles of the runs, core first: the smaller
// profile, which every implementation is expected to meet, is where a
// reader starts.
func (m *Matrix) Profiles() []suite.Profile {
	var out []suite.Profile
	for _, p := range []suite.Profile{suite.Core, suite.Apex} {
		for _, r := range m.Rows {
			if r.Run.Profile.OrDefault() == p {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// RowsOf returns the runs of profile p, in the order given.
func (m *Matrix) RowsOf(p suite.Profile) []Row {
	var out []Row
	for _, r := range m.Rows {
		if r.Run.Profile.OrDefault() == p {
			out = append(out, r)
		}
	}
	return out
}

// ClausesOf returns the spec's clauses in profile p.
func (m *Matrix) ClausesOf(p suite.Profile) []suite.Clause { return p.Clauses(m.Clauses) }

// slug makes s safe in an anchor: letters, digits, '.', '-' and '_' kept,
// anything else a '-'.
func slug(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '-'
	}, s)
}

// cell decides what run says of clause c.
func (m *Matrix) cell(run *verdict.ReadRun, c suite.Clause) Cell {
	var cell Cell
	for _, r := range run.Results {
		for _, id := range r.Scenario.Clauses {
			if id == c.ID {
				cell.Results = append(cell.Results, r)
				break
			}
		}
	}
	if len(cell.Results) == 0 {
		cell.Outcome = CellAbsent
		switch {
		case !run.Profile.HasClause(c):
			cell.Why = "not in profile " + string(run.Profile.OrDefault())
		case len(m.cited[c.ID]) == 0:
			cell.Why = "no scenario proves it"
		default:
			cell.Why = "not in this run"
		}
		return cell
	}
	var t suite.Totals
	for _, r := range cell.Results {
		t.Add(r.Outcome)
	}
	switch {
	case t.Failed > 0:
		cell.Outcome = CellFailed
	case t.Errored > 0:
		cell.Outcome = CellErrored
	case t.Passed == 0:
		cell.Outcome = CellSkipped
	case t.Skipped > 0:
		cell.Outcome = CellPartial
	default:
		cell.Outcome = CellPassed
	}
	return cell
}

// Areas returns the clause areas in order of first appearance.
func (m *Matrix) Areas() []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range m.Clauses {
		if a := clauseArea(c.ID); !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}

// Cited returns the names of the suite's scenarios that cite clause id.
func (m *Matrix) Cited(id string) []string { return m.cited[id] }

func clauseArea(id string) string {
	a, _, _ := strings.Cut(id, "-")
	return a
}
