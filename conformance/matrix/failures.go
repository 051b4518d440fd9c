package matrix

import (
	"fmt"
	"strings"

	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/conformance/verdict"
)

// Failure is one scenario of a run that failed or errored, with what the
// run's ledger says of it.
type Failure struct {
	verdict.ReadResult
	// Status is how the failure compares with the ledger:
	// ExpectedFailure when a reviewed entry lists it, StaleExpectation when
	// the entry was reviewed against another version of the scenario,
	// UnexpectedFailure when no entry (or no ledger) does, or an entry
	// expects the other of failed and errored.
	Status verdict.Status
	// Entry is the ledger's entry for the scenario, if any.
	Entry *verdict.Expectation
}

// Reviewed reports whether a person reviewed this very failure: a current
// ledger entry lists it with its outcome, and its reason is not the draft
// verdict.DraftLedger writes ("TODO: review: …").
func (f Failure) Reviewed() bool { return f.Status == verdict.ExpectedFailure && !f.draft() }

// draft reports whether the failure's entry is a draft no one reviewed.
func (f Failure) draft() bool { return f.Entry != nil && strings.HasPrefix(f.Entry.Reason, "TODO") }

// Verdict is a short word for the ledger's judgement: "reviewed",
// "stale" or "not reviewed".
func (f Failure) Verdict() string {
	switch {
	case f.Reviewed():
		return "reviewed"
	case f.Status == verdict.StaleExpectation:
		return "stale"
	}
	return "not reviewed"
}

// Explanation says what the ledger says of the failure, for a reader who
// must tell a defect of the tool from a wording the scenario does not
// accept: the reviewed reason and the clause it names, or why there is
// none.
func (f Failure) Explanation(hasLedger bool) string {
	e := f.Entry
	switch {
	case f.Reviewed():
		s := fmt.Sprintf("Reviewed reason (violates %s", e.Clause)
		if e.Flaky {
			s += "; flaky: a race in the tool, it passes sometimes"
		}
		return s + "): " + e.Reason
	case f.draft():
		return "Not reviewed: the ledger's entry is a draft: " + e.Reason
	case f.Status == verdict.StaleExpectation:
		return fmt.Sprintf("Reviewed against an older version of this scenario (kit %s), so it may no longer hold (violates %s): %s", e.Kit, e.Clause, e.Reason)
	case e != nil:
		return fmt.Sprintf("Not reviewed as %s: the ledger expects it to be %s (violates %s): %s", f.Outcome, e.Outcome, e.Clause, e.Reason)
	case hasLedger:
		return "Not reviewed: the tool's ledger does not list this failure."
	}
	return "Not reviewed: no ledger was given for this run."
}

// Failures returns the run's scenarios that failed or errored, in the
// report's order, each with its ledger's judgement.
func (r Row) Failures() []Failure {
	var out []Failure
	for _, res := range r.Run.Results {
		if res.Outcome != suite.Failed && res.Outcome != suite.Errored {
			continue
		}
		out = append(out, r.failure(res))
	}
	return out
}

// failure judges one failed or errored result of the row by its ledger.
func (r Row) failure(res verdict.ReadResult) Failure {
	st, e := r.Ledger.Classify(res.Result)
	return Failure{ReadResult: res, Status: st, Entry: e}
}

// LedgerNotes says what became of the ledger's entries whose scenario did
// not fail in the run: passed (the failure is fixed, or a flaky race went
// the other way this time), skipped, not run, or gone from the suite.
func (r Row) LedgerNotes() []string {
	if r.Ledger == nil {
		return nil
	}
	outcome := map[string]suite.Outcome{}
	for _, res := range r.Run.Results {
		outcome[res.Scenario.Name] = res.Outcome
	}
	var out []string
	for _, e := range r.Ledger.Expected {
		o, ran := outcome[e.Scenario]
		var what string
		switch {
		case o == suite.Failed || o == suite.Errored:
			continue
		case !ran && e.Stale() != "":
			what = "is listed, but the suite has no such scenario any more"
		case !ran:
			what = "is listed, but the run did not report it"
		case o == suite.Passed && e.Flaky:
			what = "is listed as flaky and passed this time"
		case o == suite.Passed:
			what = "is listed, but passed: fixed, or the ledger is stale"
		default:
			what = "is listed, but was " + string(o)
		}
		out = append(out, fmt.Sprintf("%s %s (violates %s: %s)", e.Scenario, what, e.Clause, e.Reason))
	}
	return out
}
