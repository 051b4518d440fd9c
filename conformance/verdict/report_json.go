package verdict

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/protocol"
)

// JSON Lines report records. Every line is one JSON object whose "type" is
// header, scenario or footer: one header first, one scenario line per
// scenario in name order, one footer last. A reader that meets an unknown
// member or type ignores it (later kits may add some).
//
// A scenario's outcome is passed, failed, errored, skipped or, since
// format 2, inconclusive (suite.Inconclusive: the machine missed a time
// bound, as its message's evidence says; never a pass nor a failure). The
// header states the format when it is 2 or later, so that a reader of
// format 1, which knows four outcomes, can be told why it meets a fifth;
// a report without the member is format 1. The footer counts inconclusive
// scenarios apart, and a scenario run more than once says how many times
// ("attempts").
type (
	jsonHeader struct {
		Type string `json:"type"` // "header"
		// Format is the report format: 2 since the inconclusive outcome,
		// absent (1) before.
		Format         int                     `json:"format,omitempty"`
		Kit            string                  `json:"kit"`
		Suite          string                  `json:"suite"`
		Profile        suite.Profile           `json:"profile"`
		Implementation protocol.Implementation `json:"implementation"`
		Capabilities   []string                `json:"capabilities"`
		Command        string                  `json:"command,omitempty"`
		Started        string                  `json:"started"`
		Ledger         string                  `json:"ledger,omitempty"`
	}
	jsonScenario struct {
		Type       string        `json:"type"` // "scenario"
		Name       string        `json:"name"`
		File       string        `json:"file"`
		Area       string        `json:"area"`
		Outcome    suite.Outcome `json:"outcome"`
		Clauses    []string      `json:"clauses"`
		Requires   []string      `json:"requires,omitempty"`
		DurationMs int64         `json:"durationMs"`
		// Attempts is how many times the scenario ran, when more than
		// once (an inconclusive run is retried).
		Attempts int `json:"attempts,omitempty"`
		// Message is the failure, error, skip or inconclusive reason; Line the scenario
		// line that failed, when known.
		Message   string `json:"message,omitempty"`
		Line      int    `json:"line,omitempty"`
		Reproduce string `json:"reproduce,omitempty"`
		WorkDir   string `json:"workDir,omitempty"`
		// Log is the scenario's full log (every command, its output and
		// any diff), for failed and errored scenarios.
		Log string `json:"log,omitempty"`
		// Failure is what went wrong, for failed and errored scenarios:
		// location, clauses, expected and got, stderr, rerun command.
		Failure *Failure `json:"failure,omitempty"`
		// Expectation and the ledger's clause and reason, with --expect.
		Expectation Status `json:"expectation,omitempty"`
		Clause      string `json:"clause,omitempty"`
		Reason      string `json:"reason,omitempty"`
	}
	jsonFooter struct {
		Type    string `json:"type"` // "footer"
		Passed  int    `json:"passed"`
		Failed  int    `json:"failed"`
		Errored int    `json:"errored"`
		Skipped int    `json:"skipped"`
		// Inconclusive counts the scenarios left inconclusive (format 2).
		Inconclusive int   `json:"inconclusive,omitempty"`
		Total        int   `json:"total"`
		DurationMs   int64 `json:"durationMs"`
		// PassPercent is Totals.PassPercent: of the scenarios that ran.
		PassPercent int `json:"passPercent"`
		// With --expect: whether the run matched the ledger, and the counts.
		LedgerMatched *bool `json:"ledgerMatched,omitempty"`
		Expected      *int  `json:"expectedFailures,omitempty"`
		Unexpected    *int  `json:"unexpectedFailures,omitempty"`
		Fixed         *int  `json:"unexpectedPasses,omitempty"`
		// SetupError is set when the run never reached its scenarios.
		SetupError *SetupError `json:"setupError,omitempty"`
	}
)

// ReportFormat is the JSON Lines report format this kit writes (see the
// records above): 2, the first with the inconclusive outcome.
const ReportFormat = 2

// WriteJSONLines writes the report as JSON Lines.
func (rep *Report) WriteJSONLines(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	caps := rep.Capabilities
	if caps == nil {
		caps = []string{}
	}
	h := jsonHeader{Type: "header", Format: ReportFormat, Kit: rep.Kit, Suite: rep.Suite, Profile: rep.Profile.OrDefault(), Implementation: rep.Implementation,
		Capabilities: caps, Command: rep.Command, Started: rep.Started.UTC().Format(time.RFC3339)}
	if rep.Ledger != nil {
		h.Ledger = rep.Ledger.Path
	}
	if err := enc.Encode(h); err != nil {
		return fmt.Errorf("write JSON report: %w", err)
	}
	for _, r := range rep.Results {
		line := jsonScenario{Type: "scenario", Name: r.Scenario.Name, File: rep.ScenarioFile(r.Scenario),
			Area: r.Scenario.Area, Outcome: r.Outcome, Clauses: r.Scenario.Clauses, Requires: r.Scenario.Requires,
			DurationMs: r.Duration.Milliseconds(), Message: rep.Message(r), WorkDir: r.WorkDir}
		if r.Attempts > 1 {
			line.Attempts = r.Attempts
		}
		if line.Clauses == nil {
			line.Clauses = []string{}
		}
		if r.Outcome == suite.Failed || r.Outcome == suite.Errored {
			line.Line = FailingLine(r)
			line.Reproduce = rep.Reproduce(r.Scenario)
			line.Log = LogTail(r.Log, MaxLog)
			f := rep.Failure(r)
			line.Failure = &f
		}
		if rep.Ledger != nil {
			st, e := rep.Ledger.Classify(r)
			line.Expectation = st
			if e != nil {
				line.Clause, line.Reason = e.Clause, e.Reason
			}
		}
		if err := enc.Encode(line); err != nil {
			return fmt.Errorf("write JSON report: %w", err)
		}
	}
	t := suite.Count(rep.Results)
	f := jsonFooter{Type: "footer", Passed: t.Passed, Failed: t.Failed, Errored: t.Errored, Skipped: t.Skipped, Inconclusive: t.Inconclusive,
		Total: t.Total(), DurationMs: rep.Duration.Milliseconds(), PassPercent: t.PassPercent(), SetupError: rep.SetupError}
	if rep.Ledger != nil {
		v := rep.Ledger.Evaluate(rep.Results)
		ok, exp, unexp, fixed := v.OK(), len(v.Expected), len(v.Unexpected), len(v.Fixed)
		f.LedgerMatched, f.Expected, f.Unexpected, f.Fixed = &ok, &exp, &unexp, &fixed
	}
	if err := enc.Encode(f); err != nil {
		return fmt.Errorf("write JSON report: %w", err)
	}
	return nil
}
