package verdict

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/apexcheck/apexcheck/conformance/suite"
)

// Ledger is an implementation's expectation ledger: the scenarios it is
// known to fail, each with the clause it violates and why, pinned to one
// version of the suite. A run checked against a ledger fails on any
// difference in either direction: a failure the ledger does not list, and
// a listed failure that now passes (a ratchet: fixing something means
// removing it from the ledger, so it cannot silently regress).
//
// On disk it is JSON:
//
//	{
//	  "suite": "sha256:…",            // suite.Digest the ledger was reviewed against
//	  "kit": "0.1.0",                 // or/and the kit version
//	  "profile": "core",              // the profile it was reviewed under; absent: apex
//	  "implementation": "pi-coding-agent 0.73.1",
//	  "expected": [
//	    {"scenario": "exec_login_shell", "outcome": "failed", "clause": "EXEC-1",
//	     "reason": "pi runs bash -c, not bash -lc"},
//	    {"scenario": "exec_abort_before_spawn", "clause": "EXEC-11", "flaky": true,
//	     "reason": "pi spawns, then kills: the command races the kill"}
//	  ]
//	}
type Ledger struct {
	// Suite pins the ledger to a suite digest; Kit to a kit version. When
	// Suite is set it decides; else Kit does. One of them is required.
	Suite string `json:"suite,omitempty"`
	Kit   string `json:"kit,omitempty"`
	// Profile is the profile the ledger was reviewed under; empty means
	// Apex. A ledger is checked only under its own profile: the same
	// implementation fails different scenarios under each, and a
	// ledger's entries outside the run's profile would be reported as not
	// run rather than as a mistake.
	Profile suite.Profile `json:"profile,omitempty"`
	// Implementation names what the ledger describes (informational).
	Implementation string        `json:"implementation,omitempty"`
	Expected       []Expectation `json:"expected"`

	// Path is the file the ledger was read from, for messages.
	Path string `json:"-"`
}

// Expectation is one known failure.
type Expectation struct {
	// Scenario is the scenario's name (its file name without .txtar).
	Scenario string `json:"scenario"`
	// Outcome is failed or errored; empty accepts either.
	Outcome suite.Outcome `json:"outcome,omitempty"`
	// Clause is the clause the implementation violates; Reason says how.
	Clause string `json:"clause"`
	Reason string `json:"reason"`
	// Flaky marks a failure that depends on timing in the implementation
	// itself (a race the implementation loses only sometimes): a pass is
	// then accepted too. The reason must say what races. It weakens the
	// ratchet for that one scenario, so use it only for a race the
	// implementation really has, never to quiet a flaky scenario.
	Flaky bool `json:"flaky,omitempty"`
}

// ErrLedger wraps every problem with a ledger itself (unreadable, malformed,
// for another suite version): a configuration error, not a conformance
// result.
var ErrLedger = errors.New("expectation ledger")

// LoadLedger reads and checks the syntax of a ledger file.
func LoadLedger(file string) (*Ledger, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLedger, err)
	}
	l, err := ParseLedger(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	l.Path = file
	return l, nil
}

// ParseLedger parses a ledger and checks that every entry is complete and
// that no scenario is listed twice.
func ParseLedger(data []byte) (*Ledger, error) {
	var l Ledger
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLedger, err)
	}
	if _, err := suite.ParseProfile(string(l.Profile)); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLedger, err)
	}
	if l.Suite == "" && l.Kit == "" {
		return nil, fmt.Errorf("%w: pins no suite version (set \"suite\" to a suite digest or \"kit\" to a kit version)", ErrLedger)
	}
	seen := map[string]bool{}
	for i, e := range l.Expected {
		where := fmt.Sprintf("expected[%d]", i)
		switch {
		case e.Scenario == "":
			return nil, fmt.Errorf("%w: %s: no scenario", ErrLedger, where)
		case seen[e.Scenario]:
			return nil, fmt.Errorf("%w: %s: scenario %s is listed twice", ErrLedger, where, e.Scenario)
		case e.Outcome != "" && e.Outcome != suite.Failed && e.Outcome != suite.Errored:
			return nil, fmt.Errorf("%w: %s (%s): outcome %q, want failed or errored", ErrLedger, where, e.Scenario, e.Outcome)
		case !suite.IsClauseID(e.Clause):
			return nil, fmt.Errorf("%w: %s (%s): clause %q is not a clause ID", ErrLedger, where, e.Scenario, e.Clause)
		case strings.TrimSpace(e.Reason) == "":
			return nil, fmt.Errorf("%w: %s (%s): no reason", ErrLedger, where, e.Scenario)
		}
		seen[e.Scenario] = true
	}
	return &l, nil
}

// CheckSuite checks that the ledger was made for this suite and that every
// entry names a scenario of it and a clause the spec defines. The clause
// need not be one the scenario cites: a scenario can fail on a rule it
// relies on rather than the one it is about (a footer check that fails
// because lines are counted differently violates the counting rule).
func (l *Ledger) CheckSuite(digest, kit string, scenarios []suite.Scenario, clauses []suite.Clause) error {
	name := l.Path
	if name == "" {
		name = "ledger"
	}
	switch {
	case l.Suite != "" && l.Suite != digest:
		return fmt.Errorf("%w: %s is for suite %s, but this kit (%s) runs suite %s: the scenarios changed since it was reviewed; rerun with --write-expect to draft a new ledger and review every entry",
			ErrLedger, name, suite.ShortDigest(l.Suite), kit, suite.ShortDigest(digest))
	case l.Suite == "" && l.Kit != kit:
		return fmt.Errorf("%w: %s is for kit %s, but this is kit %s; rerun with --write-expect to draft a new ledger and review every entry",
			ErrLedger, name, l.Kit, kit)
	}
	known := map[string]bool{}
	for _, s := range scenarios {
		known[s.Name] = true
	}
	defined := map[string]bool{}
	for _, c := range clauses {
		defined[c.ID] = true
	}
	for _, e := range l.Expected {
		if !known[e.Scenario] {
			return fmt.Errorf("%w: %s: no scenario %s in this suite", ErrLedger, name, e.Scenario)
		}
		if !defined[e.Clause] {
			return fmt.Errorf("%w: %s: %s: the spec defines no clause %s", ErrLedger, name, e.Scenario, e.Clause)
		}
	}
	return nil
}

// CheckProfile refuses a ledger reviewed under another profile than the
// run's, and an entry naming a scenario outside the ledger's profile.
func (l *Ledger) CheckProfile(p suite.Profile, scenarios []suite.Scenario) error {
	name := l.Path
	if name == "" {
		name = "ledger"
	}
	if got, want := l.Profile.OrDefault(), p.OrDefault(); got != want {
		return fmt.Errorf("%w: %s is for profile %s, but this run is profile %s: use a ledger reviewed under %s (--write-expect drafts one)",
			ErrLedger, name, got, want, want)
	}
	in := map[string]bool{}
	for _, s := range p.Scenarios(scenarios) {
		in[s.Name] = true
	}
	for _, e := range l.Expected {
		if !in[e.Scenario] {
			return fmt.Errorf("%w: %s: %s is not a scenario of profile %s", ErrLedger, name, e.Scenario, p.OrDefault())
		}
	}
	return nil
}

// Lookup returns the entry for a scenario, or nil.
func (l *Ledger) Lookup(name string) *Expectation {
	if l == nil {
		return nil
	}
	for i := range l.Expected {
		if l.Expected[i].Scenario == name {
			return &l.Expected[i]
		}
	}
	return nil
}

// Status is how a result compares with its ledger.
type Status string

// The statuses. A result without a ledger, or a passed or skipped result
// the ledger does not list, has status None.
const (
	None Status = ""
	// ExpectedFailure: failed (or errored) as the ledger says.
	ExpectedFailure Status = "expected-failure"
	// UnexpectedFailure: failed or errored, and the ledger does not say so
	// (or says the other of failed and errored).
	UnexpectedFailure Status = "unexpected-failure"
	// UnexpectedPass: the ledger lists it, but it passed. The ledger must
	// be ratcheted: remove the entry.
	UnexpectedPass Status = "unexpected-pass"
	// ExpectedNotRun: the ledger lists it, but it was skipped.
	ExpectedNotRun Status = "expected-not-run"
	// FlakyPass: the ledger lists it as flaky, and this time it passed.
	FlakyPass Status = "flaky-pass"
)

// Classify compares one result with the ledger (which may be nil).
func (l *Ledger) Classify(r suite.Result) (Status, *Expectation) {
	e := l.Lookup(r.Scenario.Name)
	bad := r.Outcome == suite.Failed || r.Outcome == suite.Errored
	switch {
	case l == nil:
		if bad {
			return UnexpectedFailure, nil
		}
		return None, nil
	case e == nil && bad:
		return UnexpectedFailure, nil
	case e == nil:
		return None, nil
	case r.Outcome == suite.Passed && e.Flaky:
		return FlakyPass, e
	case r.Outcome == suite.Passed:
		return UnexpectedPass, e
	case r.Outcome == suite.Skipped:
		return ExpectedNotRun, e
	case e.Outcome != "" && e.Outcome != r.Outcome:
		return UnexpectedFailure, e
	default:
		return ExpectedFailure, e
	}
}

// Verdict is a run checked against a ledger.
type Verdict struct {
	Expected   []suite.Result // failed as listed
	Unexpected []suite.Result // failed or errored, not (or differently) listed
	Fixed      []suite.Result // listed, but passed
	NotRun     []suite.Result // listed, but skipped
	FlakyPass  []suite.Result // listed as flaky, and passed this time
}

// OK reports whether the run matches the ledger exactly (entries for
// skipped scenarios aside).
func (v Verdict) OK() bool { return len(v.Unexpected) == 0 && len(v.Fixed) == 0 }

// Evaluate checks results against the ledger (which may be nil: then every
// failure is unexpected).
func (l *Ledger) Evaluate(results []suite.Result) Verdict {
	var v Verdict
	for _, r := range results {
		switch st, _ := l.Classify(r); st {
		case ExpectedFailure:
			v.Expected = append(v.Expected, r)
		case UnexpectedFailure:
			v.Unexpected = append(v.Unexpected, r)
		case UnexpectedPass:
			v.Fixed = append(v.Fixed, r)
		case ExpectedNotRun:
			v.NotRun = append(v.NotRun, r)
		case FlakyPass:
			v.FlakyPass = append(v.FlakyPass, r)
		}
	}
	return v
}

// DraftLedger writes a ledger listing every result that failed or errored,
// pinned to digest and to profile (omitted when it is Apex, the default),
// for a person to review. Entries keep the clause and
// reason of the previous ledger (which may be nil) where it lists the same
// scenario (and an entry that accepts either failed or errored keeps doing
// so, and a flaky entry stays even when it passed); new entries get the scenario's first cited clause and a reason
// starting "TODO", which a reviewer replaces after reading the failure.
func DraftLedger(w io.Writer, results []suite.Result, previous *Ledger, digest, kit, implementation string, profile suite.Profile) error {
	l := Ledger{Suite: digest, Kit: kit, Implementation: implementation, Expected: []Expectation{}}
	if profile.OrDefault() != suite.Apex {
		l.Profile = profile
	}
	for _, r := range results {
		old := previous.Lookup(r.Scenario.Name)
		bad := r.Outcome == suite.Failed || r.Outcome == suite.Errored
		if !bad && (old == nil || !old.Flaky || r.Outcome != suite.Passed) {
			continue // a flaky entry stays although it passed this time
		}
		e := Expectation{Scenario: r.Scenario.Name, Outcome: r.Outcome}
		if !bad {
			e.Outcome = old.Outcome
		}
		if old != nil {
			e.Clause, e.Reason, e.Flaky = old.Clause, old.Reason, old.Flaky
			if old.Outcome == "" {
				e.Outcome = "" // the reviewer accepted either failed or errored
			}
		} else {
			if len(r.Scenario.Clauses) > 0 {
				e.Clause = r.Scenario.Clauses[0]
			}
			e.Reason = "TODO: review: " + firstLine(CleanMessage(r.Message))
		}
		l.Expected = append(l.Expected, e)
	}
	sort.Slice(l.Expected, func(i, j int) bool { return l.Expected[i].Scenario < l.Expected[j].Scenario })
	return writeIndentedJSON(w, l)
}

// writeIndentedJSON writes v as indented JSON without HTML escaping, so
// that reasons quoting shell text stay readable.
func writeIndentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
