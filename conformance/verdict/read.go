package verdict

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

	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/protocol"
)

// ReadRun is one JSON Lines report ([Report.WriteJSONLines]) read back: who
// was certified, under which profile and suite, and every scenario's
// outcome.
type ReadRun struct {
	// File is where the report was read from, for messages.
	File           string
	Kit            string
	Suite          string
	Profile        suite.Profile
	Implementation protocol.Implementation
	Capabilities   []string
	Started        time.Time
	// Format is the report's format (1 when its header states none).
	Format  int
	Results []ReadResult
}

// ReadResult is one scenario line of a report.
type ReadResult struct {
	suite.Result
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
			p, err := suite.ParseProfile(string(h.Profile))
			if err != nil {
				return nil, fmt.Errorf("%w: line %d: header: %w", ErrReport, n, err)
			}
			if h.Implementation.Name == "" {
				return nil, fmt.Errorf("%w: line %d: header names no implementation", ErrReport, n)
			}
			started, _ := time.Parse(time.RFC3339, h.Started)
			run.Kit, run.Suite, run.Profile, run.Implementation = h.Kit, h.Suite, p, h.Implementation
			run.Capabilities, run.Started = h.Capabilities, started
			run.Format = max(h.Format, 1)
			if run.Format > ReportFormat {
				return nil, fmt.Errorf("%w: line %d: header: report format %d, newer than this kit's %d", ErrReport, n, h.Format, ReportFormat)
			}
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
			case !s.Outcome.Valid():
				return nil, fmt.Errorf("%w: line %d: scenario %s: outcome %q", ErrReport, n, s.Name, s.Outcome)
			case s.Outcome == suite.Inconclusive && run.Format < 2:
				return nil, fmt.Errorf("%w: line %d: scenario %s: outcome %q in a report of format %d, which has none (format 2 added it)", ErrReport, n, s.Name, s.Outcome, run.Format)
			}
			seen[s.Name] = true
			area := s.Area
			if area == "" {
				area, _, _ = strings.Cut(s.Name, "_")
			}
			run.Results = append(run.Results, ReadResult{
				Result: suite.Result{Scenario: suite.Scenario{Name: s.Name, Path: s.File, Area: area, Clauses: s.Clauses, Requires: s.Requires},
					Outcome: s.Outcome, Message: CleanMessage(s.Message), Duration: time.Duration(s.DurationMs) * time.Millisecond,
					Attempts: s.Attempts},
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
