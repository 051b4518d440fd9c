package suite

import (
	"fmt"
	"sort"
	"time"
)

// Outcome is a scenario's outcome. Skips are never passes.
type Outcome string

// The four outcomes (FACTS §8), and a fifth for a run the machine spoiled.
const (
	Passed  Outcome = "passed"
	Failed  Outcome = "failed"
	Errored Outcome = "errored"
	Skipped Outcome = "skipped"
	// Inconclusive is a run whose check failed where a spec'd time bound
	// decides it, with evidence that the machine, not the implementation,
	// missed the bound (the fake shell itself finished too late): the run
	// proves nothing either way. It is never a pass nor a failure; the
	// runner retries it (Config.Attempts), and certification is withheld
	// while it stays inconclusive.
	Inconclusive Outcome = "inconclusive"
)

// Valid reports whether o is one of the five outcomes.
func (o Outcome) Valid() bool {
	switch o {
	case Passed, Failed, Errored, Skipped, Inconclusive:
		return true
	}
	return false
}

// Result is one scenario's outcome.
type Result struct {
	Scenario Scenario
	Outcome  Outcome
	// Message is the failure or skip reason; Log is the full script log.
	Message  string
	Log      string
	Duration time.Duration
	// WorkDir is kept when the runner's Config.KeepWork is set and the scenario did not
	// pass.
	WorkDir string
	// Attempts is how many times the scenario ran: more than one when a
	// run was inconclusive and retried. Zero means once.
	Attempts int
}

// ErroredTag starts the failure message of a scenario that errored (the
// implementation crashed, hung past a bound or broke the protocol) rather
// than failed an assertion. Reports key on it.
const ErroredTag = "[errored]"

// Totals counts outcomes. They are kept apart: a skip is never a pass,
// and an inconclusive run is neither a pass nor a failure.
type Totals struct {
	Passed, Failed, Errored, Skipped, Inconclusive int
}

// Add counts one outcome.
func (t *Totals) Add(o Outcome) {
	switch o {
	case Passed:
		t.Passed++
	case Failed:
		t.Failed++
	case Errored:
		t.Errored++
	case Skipped:
		t.Skipped++
	case Inconclusive:
		t.Inconclusive++
	}
}

// Total is the number of scenarios counted, skipped and inconclusive ones
// included.
func (t Totals) Total() int { return t.Passed + t.Failed + t.Errored + t.Skipped + t.Inconclusive }

// Ran is the number of scenarios that ran to a verdict: skipped and
// inconclusive ones excluded.
func (t Totals) Ran() int { return t.Passed + t.Failed + t.Errored }

// PassPercent is the share of the scenarios that ran which passed, in
// percent, rounded down; 0 when none ran. Skips are in neither the
// numerator nor the denominator, so they can never raise it.
func (t Totals) PassPercent() int {
	if t.Ran() == 0 {
		return 0
	}
	return t.Passed * 100 / t.Ran()
}

// String is "P passed, F failed, E errored, S skipped", followed by ", I
// inconclusive" when there are any.
func (t Totals) String() string {
	s := fmt.Sprintf("%d passed, %d failed, %d errored, %d skipped", t.Passed, t.Failed, t.Errored, t.Skipped)
	if t.Inconclusive > 0 {
		s += fmt.Sprintf(", %d inconclusive", t.Inconclusive)
	}
	return s
}

// Count totals results.
func Count(results []Result) Totals {
	var t Totals
	for _, r := range results {
		t.Add(r.Outcome)
	}
	return t
}

// AreaTotals are the totals of one area.
type AreaTotals struct {
	Area string
	Totals
}

// CountByArea totals results per area, sorted by area.
func CountByArea(results []Result) []AreaTotals {
	byArea := map[string]*Totals{}
	for _, r := range results {
		if byArea[r.Scenario.Area] == nil {
			byArea[r.Scenario.Area] = &Totals{}
		}
		byArea[r.Scenario.Area].Add(r.Outcome)
	}
	out := make([]AreaTotals, 0, len(byArea))
	for a, t := range byArea {
		out = append(out, AreaTotals{Area: a, Totals: *t})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Area < out[j].Area })
	return out
}
