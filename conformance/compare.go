package conformance

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/apexcheck/apexcheck/protocol"
)

// ReadRun is one JSON Lines report (Report.WriteJSONLines) read back: who
// was certified, under which profile and suite, and every scenario's
// outcome.
type ReadRun struct {
	// File is where the report was read from, for messages.
	File           string
	Kit            string
	Suite          string
	Profile        Profile
	Implementation protocol.Implementation
	Capabilities   []string
	Started        time.Time
	Results        []ReadResult
}

// ReadResult is one scenario line of a report.
type ReadResult struct {
	Result
	// Line is the scenario line that failed, when known; Reproduce the
	// command that reruns the scenario.
	Line      int
	Reproduce string
}

// ErrReport wraps every problem with a report file: unreadable, not JSON
// Lines, or missing its header or footer.
var ErrReport = errors.New("report")

// ReadReportFile reads a JSON Lines report from a file.
func ReadReportFile(file string) (*ReadRun, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrReport, err)
	}
	defer f.Close()
	run, err := ReadReport(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	run.File = file
	return run, nil
}

// ReadReport reads a JSON Lines report: one header line first, scenario
// lines, one footer line last. Unknown members and line types are ignored,
// as the format says; anything else malformed is an error naming the line.
func ReadReport(r io.Reader) (*ReadRun, error) {
	var run ReadRun
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), protocol.MaxLine)
	n, header, footer := 0, false, false
	seen := map[string]bool{}
	for sc.Scan() {
		n++
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		if footer {
			return nil, fmt.Errorf("%w: line %d: a line after the footer", ErrReport, n)
		}
		var typ struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(sc.Bytes(), &typ); err != nil {
			return nil, fmt.Errorf("%w: line %d: %w", ErrReport, n, err)
		}
		if !header && typ.Type != "header" {
			return nil, fmt.Errorf("%w: line %d: the first line is not a header", ErrReport, n)
		}
		switch typ.Type {
		case "header":
			if header {
				return nil, fmt.Errorf("%w: line %d: a second header", ErrReport, n)
			}
			var h jsonHeader
			if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
				return nil, fmt.Errorf("%w: line %d: header: %w", ErrReport, n, err)
			}
			p, err := ParseProfile(string(h.Profile))
			if err != nil {
				return nil, fmt.Errorf("%w: line %d: header: %w", ErrReport, n, err)
			}
			if h.Implementation.Name == "" {
				return nil, fmt.Errorf("%w: line %d: header names no implementation", ErrReport, n)
			}
			started, _ := time.Parse(time.RFC3339, h.Started)
			run.Kit, run.Suite, run.Profile, run.Implementation = h.Kit, h.Suite, p, h.Implementation
			run.Capabilities, run.Started = h.Capabilities, started
			header = true
		case "scenario":
			var s jsonScenario
			if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
				return nil, fmt.Errorf("%w: line %d: scenario: %w", ErrReport, n, err)
			}
			switch {
			case s.Name == "":
				return nil, fmt.Errorf("%w: line %d: scenario without a name", ErrReport, n)
			case seen[s.Name]:
				return nil, fmt.Errorf("%w: line %d: scenario %s reported twice", ErrReport, n, s.Name)
			case s.Outcome != Passed && s.Outcome != Failed && s.Outcome != Errored && s.Outcome != Skipped:
				return nil, fmt.Errorf("%w: line %d: scenario %s: outcome %q", ErrReport, n, s.Name, s.Outcome)
			}
			seen[s.Name] = true
			area := s.Area
			if area == "" {
				area, _, _ = strings.Cut(s.Name, "_")
			}
			run.Results = append(run.Results, ReadResult{
				Result: Result{Scenario: Scenario{Name: s.Name, Path: s.File, Area: area, Clauses: s.Clauses, Requires: s.Requires},
					Outcome: s.Outcome, Message: CleanMessage(s.Message), Duration: time.Duration(s.DurationMs) * time.Millisecond},
				Line: s.Line, Reproduce: s.Reproduce})
		case "footer":
			footer = true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrReport, err)
	}
	switch {
	case !header:
		return nil, fmt.Errorf("%w: empty: no header", ErrReport)
	case !footer:
		// A run that was cut short leaves no footer; its outcomes are not
		// the whole run's.
		return nil, fmt.Errorf("%w: no footer: the run did not finish", ErrReport)
	}
	sort.Slice(run.Results, func(i, j int) bool { return run.Results[i].Scenario.Name < run.Results[j].Scenario.Name })
	return &run, nil
}

// Label names the run for people: implementation, version and profile.
func (r *ReadRun) Label() string {
	return fmt.Sprintf("%s %s (%s)", r.Implementation.Name, r.Implementation.Version, r.Profile.OrDefault())
}

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
	Results []ReadResult
	// Why says why a cell is absent: the clause is outside the run's
	// profile, or no scenario proves it.
	Why string
}

// Failing returns the cell's scenarios that failed or errored.
func (c Cell) Failing() []ReadResult {
	var out []ReadResult
	for _, r := range c.Results {
		if r.Outcome == Failed || r.Outcome == Errored {
			out = append(out, r)
		}
	}
	return out
}

// MatrixRow is one implementation's run in a matrix.
type MatrixRow struct {
	// ID names the row in anchors: "r1", "r2", … in the order given.
	ID  string
	Run *ReadRun
	// Totals count the run's outcomes; Certificate is the certification
	// the run earns under its profile, computed here from its outcomes.
	Totals      Totals
	Certificate Certificate
	// SuiteMatches is false when the run used another suite than this
	// kit's: its outcomes may not hold for the scenarios as they are now.
	SuiteMatches bool
	Cells        map[string]Cell
}

// Matrix is implementations × clauses: what each run says of each clause.
type Matrix struct {
	Kit, Suite string
	Clauses    []Clause
	Rows       []MatrixRow
	// cited names the scenarios of the suite that cite each clause.
	cited map[string][]string
}

// Compare builds the matrix of runs against this kit's spec (clauses),
// suite (its scenarios) and suite digest. Certification is decided here,
// as `apexcheck --certify` decides it, against this suite when the run's
// digest is this suite's, else against the scenarios the run reports. Two
// runs of the same implementation, version and profile are an error: the
// matrix would show either.
func Compare(runs []*ReadRun, clauses []Clause, suite []Scenario, digest, kit string) (*Matrix, error) {
	if len(runs) == 0 {
		return nil, errors.New("compare: no report")
	}
	m := &Matrix{Kit: kit, Suite: digest, Clauses: clauses, cited: map[string][]string{}}
	for _, s := range suite {
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
		row := MatrixRow{ID: fmt.Sprintf("r%d", i+1), Run: run, SuiteMatches: run.Suite == digest, Cells: map[string]Cell{}}
		results := make([]Result, len(run.Results))
		reported := make([]Scenario, len(run.Results))
		for j, r := range run.Results {
			results[j], reported[j] = r.Result, r.Scenario
			if run.Profile == Core {
				// The run selected its scenarios by its profile.
				reported[j].Profiles = []Profile{Core}
			}
		}
		row.Totals = Count(results)
		against := suite
		if !row.SuiteMatches {
			against = reported
		}
		rep := &Report{Kit: run.Kit, Suite: run.Suite, Profile: run.Profile, Implementation: run.Implementation,
			Capabilities: run.Capabilities, Results: results}
		row.Certificate = Certify(rep, against, clauses, run.Started)
		for _, c := range clauses {
			row.Cells[c.ID] = m.cell(run, c)
		}
		m.Rows = append(m.Rows, row)
	}
	return m, nil
}

// cell decides what run says of clause c.
func (m *Matrix) cell(run *ReadRun, c Clause) Cell {
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
	var t Totals
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
