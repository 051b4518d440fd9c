package verdict

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/apexcheck/apexcheck/conformance/suite"
)

// Ledger is an implementation's expectation ledger: the scenarios it is
// known to fail, each with the clause it violates and why, and each pinned
// to the version of its scenario it was reviewed against. A run checked
// against a ledger fails on any difference in either direction: a failure
// the ledger does not list, and a listed failure that now passes (a
// ratchet: fixing something means removing it from the ledger, so it cannot
// silently regress).
//
// On disk it is JSON (format 2):
//
//	{
//	  "format": 2,
//	  "profile": "core",              // the profile it was reviewed under; absent: apex
//	  "implementation": "pi-coding-agent 0.73.1",
//	  "expected": [
//	    {"scenario": "exec_login_shell",
//	     "scenarioDigest": "sha256:…",  // suite.ScenarioDigests: the version of the scenario reviewed
//	     "kit": "0.1.0",                // the kit version that reviewed the entry
//	     "outcome": "failed", "clause": "EXEC-1",
//	     "reason": "pi runs bash -c, not bash -lc"},
//	    {"scenario": "exec_abort_before_spawn", "scenarioDigest": "sha256:…", "kit": "0.1.0",
//	     "clause": "EXEC-11", "flaky": true,
//	     "reason": "pi spawns, then kills: the command races the kill"}
//	  ]
//	}
//
// Each entry pins its own scenario, so a new kit invalidates only the
// entries whose scenario it changed: CheckSuite marks an entry whose
// scenario's digest differs, or whose scenario is gone, as stale, and a
// run checked against the ledger then fails for that entry alone (status
// [StaleExpectation]) until it is reviewed and repinned (--write-expect
// drafts the repinned ledger). Every other entry is judged as before, and
// a scenario the ledger does not list fails the run when it fails.
//
// Format 1, the first, had no "format" member: it pinned the whole ledger
// to one suite digest ("suite") or kit version ("kit"), and its entries
// pinned nothing. CheckSuite still reads it: pinned to the suite this kit
// runs, it is upgraded in memory exactly (each entry pinned to its
// scenario as it is today, since that is what it was reviewed against) and
// Note says how to rewrite the file (apexcheck ledger migrate FILE); pinned
// to another suite, it is refused, since nothing then tells which entries
// still hold.
//
// Member names are matched exactly: "Scenario" is not "scenario".
type Ledger struct {
	// Format is the ledger's format: 2, or 0 (absent) or 1 for the first
	// format.
	Format int `json:"format,omitempty"`
	// Suite (format 1 only) pinned the ledger to a suite digest; Kit
	// (format 1 only) to a kit version. When Suite is set it decides;
	// else Kit does. One of them is required in format 1.
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
	// Note, set by CheckSuite when it upgraded a format-1 ledger in
	// memory, says so and how to migrate the file: one line for stderr.
	Note string `json:"-"`
}

// Expectation is one known failure.
type Expectation struct {
	// Scenario is the scenario's name (its file name without .txtar).
	Scenario string `json:"scenario"`
	// ScenarioDigest is the digest (suite.ScenarioDigests) of the scenario
	// the entry was reviewed against; Kit the kit version that reviewed it.
	// Both are required in format 2 and absent in format 1.
	ScenarioDigest string `json:"scenarioDigest,omitempty"`
	Kit            string `json:"kit,omitempty"`
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

	// stale, set by CheckSuite, says why the entry no longer holds: its
	// scenario changed or is gone. Empty: the entry is current.
	stale string
	// gone: the suite has no scenario of this name any more.
	gone bool
}

// Stale says why the entry was reviewed against another version of its
// scenario than the suite's (as CheckSuite found), or "" when it was not.
func (e Expectation) Stale() string { return e.stale }

// LedgerFormat is the format DraftLedger writes and CheckSuite upgrades a
// format-1 ledger to.
const LedgerFormat = 2

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

// The member names of a ledger and of an entry, as their JSON tags spell
// them: encoding/json matches names case-insensitively, ParseLedger does
// not.
var (
	ledgerMembers = []string{"format", "suite", "kit", "profile", "implementation", "expected"}
	entryMembers  = []string{"scenario", "scenarioDigest", "kit", "outcome", "clause", "reason", "flaky"}
)

// digestPattern is a digest as suite.Digest and suite.ScenarioDigests
// write it.
var digestPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// ParseLedger parses a ledger and checks that every entry is complete and
// that no scenario is listed twice.
func ParseLedger(data []byte) (*Ledger, error) {
	var l Ledger
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLedger, err)
	}
	if err := checkMemberNames(data); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLedger, err)
	}
	if _, err := suite.ParseProfile(string(l.Profile)); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLedger, err)
	}
	switch l.Format {
	case 0, 1:
		if l.Suite == "" && l.Kit == "" {
			return nil, fmt.Errorf("%w: pins no suite version (set \"suite\" to a suite digest or \"kit\" to a kit version, or write format %d, whose entries pin their scenarios)", ErrLedger, LedgerFormat)
		}
	case LedgerFormat:
		if l.Suite != "" || l.Kit != "" {
			return nil, fmt.Errorf("%w: format %d pins each entry to its scenario: drop the ledger's \"suite\" and \"kit\"", ErrLedger, LedgerFormat)
		}
	default:
		return nil, fmt.Errorf("%w: format %d: this kit reads formats 1 and %d", ErrLedger, l.Format, LedgerFormat)
	}
	seen := map[string]bool{}
	for i, e := range l.Expected {
		where := fmt.Sprintf("expected[%d]", i)
		switch {
		case e.Scenario == "":
			return nil, fmt.Errorf("%w: %s: no scenario", ErrLedger, where)
		case seen[e.Scenario]:
			return nil, fmt.Errorf("%w: %s: scenario %s is listed twice", ErrLedger, where, e.Scenario)
		case l.Format == LedgerFormat && !digestPattern.MatchString(e.ScenarioDigest):
			return nil, fmt.Errorf("%w: %s (%s): scenarioDigest %q is not a digest (sha256: and 64 hex digits)", ErrLedger, where, e.Scenario, e.ScenarioDigest)
		case l.Format == LedgerFormat && e.Kit == "":
			return nil, fmt.Errorf("%w: %s (%s): no kit (the kit version that reviewed the entry)", ErrLedger, where, e.Scenario)
		case l.Format != LedgerFormat && (e.ScenarioDigest != "" || e.Kit != ""):
			return nil, fmt.Errorf("%w: %s (%s): an entry pins its scenario only in format %d: set \"format\": %d and drop the ledger's \"suite\" and \"kit\"", ErrLedger, where, e.Scenario, LedgerFormat, LedgerFormat)
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

// checkMemberNames refuses a member whose name differs from a known one
// only in case, which encoding/json would silently accept as that one
// (unknown names are refused by the decoder already). data has decoded as
// a Ledger, so its shape is known.
func checkMemberNames(data []byte) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return err
	}
	if err := exactNames(top, ledgerMembers, "ledger"); err != nil {
		return err
	}
	var entries []map[string]json.RawMessage
	if raw, ok := top["expected"]; ok {
		if err := json.Unmarshal(raw, &entries); err != nil {
			return err
		}
	}
	for i, e := range entries {
		if err := exactNames(e, entryMembers, fmt.Sprintf("expected[%d]", i)); err != nil {
			return err
		}
	}
	return nil
}

func exactNames(obj map[string]json.RawMessage, known []string, where string) error {
	for name := range obj {
		if slices.Contains(known, name) {
			continue
		}
		for _, k := range known {
			if strings.EqualFold(name, k) {
				return fmt.Errorf("%s: member %q: member names are case-sensitive; want %q", where, name, k)
			}
		}
		return fmt.Errorf("%s: unknown field %q", where, name)
	}
	return nil
}

// CheckSuite checks the ledger against the suite this kit runs (fsys is
// the tree suite.Digest covers, the scenarios and the data they read; kit
// the kit's version): every entry must name a clause the spec defines, and
// each entry whose scenario changed since it was reviewed, or is gone, is
// marked stale (Expectation.Stale), which fails the run for that entry
// alone. A format-1 ledger pinned to this suite (or, without a digest, to
// this kit) is upgraded in memory to format 2, each entry pinned to its
// scenario as it is, and Note set; one pinned to another suite is refused.
//
// The clause need not be one the scenario cites: a scenario can fail on a
// rule it relies on rather than the one it is about (a footer check that
// fails because lines are counted differently violates the counting rule).
func (l *Ledger) CheckSuite(fsys fs.FS, kit string, clauses []suite.Clause) error {
	name := l.Path
	if name == "" {
		name = "ledger"
	}
	digests, err := suite.ScenarioDigests(fsys, ".")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrLedger, err)
	}
	if l.Format != LedgerFormat {
		digest, err := suite.Digest(fsys, ".")
		if err != nil {
			return fmt.Errorf("%w: %w", ErrLedger, err)
		}
		if err := l.upgrade(name, digest, kit, digests); err != nil {
			return err
		}
	}
	defined := map[string]bool{}
	for _, c := range clauses {
		defined[c.ID] = true
	}
	for i := range l.Expected {
		e := &l.Expected[i]
		if !defined[e.Clause] {
			return fmt.Errorf("%w: %s: %s: the spec defines no clause %s", ErrLedger, name, e.Scenario, e.Clause)
		}
		e.stale, e.gone = "", false
		switch d, ok := digests[e.Scenario]; {
		case !ok:
			e.stale, e.gone = fmt.Sprintf("%s: listed in the ledger (reviewed with kit %s), but this suite has no such scenario any more: review the entry and drop it (--write-expect drafts the ledger without it)", e.Scenario, e.Kit), true
		case d != e.ScenarioDigest:
			e.stale = fmt.Sprintf("%s: reviewed against an older version of the scenario (kit %s, %s; now %s): review the entry and repin it (--write-expect)", e.Scenario, e.Kit, suite.ShortDigest(e.ScenarioDigest), suite.ShortDigest(d))
		}
	}
	return nil
}

// upgrade reads a format-1 ledger as format 2 when it was pinned to this
// very suite, and refuses it otherwise.
func (l *Ledger) upgrade(name, digest, kit string, digests map[string]string) error {
	migrate := fmt.Sprintf("redraft it with this kit (apexcheck --impl ... --expect %s --write-expect %s carries the reviewed clauses and reasons over) and review every entry", name, name)
	switch {
	case l.Suite != "" && l.Suite != digest:
		return fmt.Errorf("%w: %s is in the old format, pinned to the whole suite %s, but this kit (%s) runs suite %s: nothing tells which of its entries still hold; %s",
			ErrLedger, name, suite.ShortDigest(l.Suite), kit, suite.ShortDigest(digest), migrate)
	case l.Suite == "" && l.Kit != kit:
		return fmt.Errorf("%w: %s is in the old format, pinned to kit %s, but this is kit %s: nothing tells which of its entries still hold; %s",
			ErrLedger, name, l.Kit, kit, migrate)
	}
	reviewer := l.Kit
	if reviewer == "" {
		reviewer = kit
	}
	for i := range l.Expected {
		e := &l.Expected[i]
		d, ok := digests[e.Scenario]
		if !ok {
			return fmt.Errorf("%w: %s: no scenario %s in this suite", ErrLedger, name, e.Scenario)
		}
		e.ScenarioDigest, e.Kit = d, reviewer
	}
	l.Format, l.Suite, l.Kit = LedgerFormat, "", ""
	l.Note = fmt.Sprintf("%s is in the old ledger format (pinned to the whole suite), read as format %d with each entry pinned to its scenario; rewrite it so: apexcheck ledger migrate %s", name, LedgerFormat, name)
	return nil
}

// CheckProfile refuses a ledger reviewed under another profile than the
// run's, and a current entry naming a scenario outside the ledger's profile
// (a stale one is flagged for review already).
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
		if !in[e.Scenario] && e.stale == "" {
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
	// ExpectedNotRun: the ledger lists it, but it was skipped or
	// inconclusive.
	ExpectedNotRun Status = "expected-not-run"
	// FlakyPass: the ledger lists it as flaky, and this time it passed.
	FlakyPass Status = "flaky-pass"
	// StaleExpectation: the ledger lists it, but its entry was reviewed
	// against another version of the scenario (CheckSuite): whatever the
	// outcome, the entry must be reviewed and repinned.
	StaleExpectation Status = "stale-entry"
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
	case e.stale != "":
		return StaleExpectation, e
	case r.Outcome == suite.Passed && e.Flaky:
		return FlakyPass, e
	case r.Outcome == suite.Passed:
		return UnexpectedPass, e
	case r.Outcome == suite.Skipped || r.Outcome == suite.Inconclusive:
		// An inconclusive run, like a skip, shows nothing of the listed
		// failure: it neither confirms nor fixes it.
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
	// Stale are the entries reviewed against another version of their
	// scenario, whatever it did in this run, and those whose scenario is
	// gone from the suite: each must be reviewed and repinned.
	Stale []Expectation
}

// OK reports whether the run matches the ledger exactly (entries for
// skipped scenarios aside).
func (v Verdict) OK() bool { return len(v.Unexpected) == 0 && len(v.Fixed) == 0 && len(v.Stale) == 0 }

// Evaluate checks results against the ledger (which may be nil: then every
// failure is unexpected). An entry whose scenario is gone from the suite
// is stale in every run, whichever scenarios it ran.
func (l *Ledger) Evaluate(results []suite.Result) Verdict {
	var v Verdict
	if l != nil {
		for _, e := range l.Expected {
			if e.gone {
				v.Stale = append(v.Stale, e)
			}
		}
	}
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
		case StaleExpectation:
			v.Stale = append(v.Stale, *l.Lookup(r.Scenario.Name))
		}
	}
	return v
}

// DraftLedger writes a ledger (format 2) listing every result that failed
// or errored, each entry pinned to its scenario in fsys (the tree
// suite.Digest covers), and the ledger to profile (omitted when it is Apex,
// the default), for a person to review. Entries keep the clause and reason
// of the previous ledger (which may be nil) where it lists the same
// scenario (and an entry that accepts either failed or errored keeps doing
// so, and a flaky entry stays even when it passed), and the kit that
// reviewed them where the scenario is the one they were reviewed against;
// an entry whose scenario changed is repinned to it, with this kit as its
// reviewer. New entries get the scenario's first cited clause and a reason
// starting "TODO", which a reviewer replaces after reading the failure.
// When partial is true the run selected only part of the suite (--run,
// --area, --shard), and the previous entries of the scenarios it did not
// run are kept exactly as they were, so that a reviewer can repin the few
// scenarios a kit upgrade changed without rerunning the rest; an entry
// whose scenario left the suite is dropped either way.
func DraftLedger(w io.Writer, results []suite.Result, previous *Ledger, fsys fs.FS, kit, implementation string, profile suite.Profile, partial bool) error {
	digests, err := suite.ScenarioDigests(fsys, ".")
	if err != nil {
		return fmt.Errorf("draft ledger: %w", err)
	}
	l := Ledger{Format: LedgerFormat, Implementation: implementation, Expected: []Expectation{}}
	if profile.OrDefault() != suite.Apex {
		l.Profile = profile
	}
	for _, r := range results {
		old := previous.Lookup(r.Scenario.Name)
		bad := r.Outcome == suite.Failed || r.Outcome == suite.Errored
		if !bad && (old == nil || !old.Flaky || r.Outcome != suite.Passed) {
			continue // a flaky entry stays although it passed this time
		}
		e := Expectation{Scenario: r.Scenario.Name, ScenarioDigest: digests[r.Scenario.Name], Kit: kit, Outcome: r.Outcome}
		if e.ScenarioDigest == "" {
			return fmt.Errorf("draft ledger: no scenario %s in the suite", r.Scenario.Name)
		}
		if !bad {
			e.Outcome = old.Outcome
		}
		if old != nil {
			e.Clause, e.Reason, e.Flaky = old.Clause, old.Reason, old.Flaky
			if old.ScenarioDigest == e.ScenarioDigest && old.Kit != "" {
				e.Kit = old.Kit // reviewed against this very scenario
			}
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
	if partial && previous != nil {
		ran := make(map[string]bool, len(results))
		for _, r := range results {
			ran[r.Scenario.Name] = true
		}
		for _, e := range previous.Expected {
			if !ran[e.Scenario] && digests[e.Scenario] != "" {
				l.Expected = append(l.Expected, e)
			}
		}
	}
	sort.Slice(l.Expected, func(i, j int) bool { return l.Expected[i].Scenario < l.Expected[j].Scenario })
	return writeIndentedJSON(w, l)
}

// WriteJSON writes the ledger as DraftLedger does (a format-1 ledger that
// CheckSuite upgraded is written in format 2).
func (l *Ledger) WriteJSON(w io.Writer) error { return writeIndentedJSON(w, l) }

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
