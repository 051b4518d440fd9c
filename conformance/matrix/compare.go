package matrix

import (
	"errors"
	"fmt"
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
	// ID names the row in anchors: "r1", "r2", … in the order given.
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
	for i, run := range runs {
		if prev, dup := labels[run.Label()]; dup {
			return nil, fmt.Errorf("compare: %s and %s both report %s: give one", prev, run.File, run.Label())
		}
		labels[run.Label()] = run.File
		row := Row{ID: fmt.Sprintf("r%d", i+1), Run: run, SuiteMatches: run.Suite == digest, Cells: map[string]Cell{}}
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
		for _, c := range clauses {
			row.Cells[c.ID] = m.cell(run, c)
		}
		m.Rows = append(m.Rows, row)
	}
	return m, nil
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
