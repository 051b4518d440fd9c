package verdict

import (
	"bytes"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/apexcheck/apexcheck"
	"github.com/apexcheck/apexcheck/conformance/suite"
)

// digest64 is a well-formed digest.
var digest64 = "sha256:" + strings.Repeat("ab", 32)

func TestParseLedgerRejects(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"not JSON", `{`, "unexpected EOF"},
		{"unknown member", `{"kit":"1","expected":[],"extra":1}`, "unknown field"},
		{"no pin", `{"expected":[]}`, "pins no suite version"},
		{"case-variant member", `{"kit":"1","expected":[{"Scenario":"a","clause":"EXEC-1","reason":"r"}]}`, `member "Scenario": member names are case-sensitive; want "scenario"`},
		{"case-variant top member", `{"Kit":"1","expected":[]}`, `member "Kit": member names are case-sensitive`},
		{"case-variant format-2 member", `{"format":2,"expected":[{"scenario":"a","scenariodigest":"` + digest64 + `","kit":"1","clause":"EXEC-1","reason":"r"}]}`, `member "scenariodigest"`},
		{"unknown format", `{"format":3,"expected":[]}`, "format 3: this kit reads formats 1 and 2"},
		{"format 2 with a suite", `{"format":2,"suite":"` + digest64 + `","expected":[]}`, "drop the ledger's \"suite\" and \"kit\""},
		{"format 2 entry unpinned", `{"format":2,"expected":[{"scenario":"a","kit":"1","clause":"EXEC-1","reason":"r"}]}`, "scenarioDigest \"\" is not a digest"},
		{"format 2 entry without kit", `{"format":2,"expected":[{"scenario":"a","scenarioDigest":"` + digest64 + `","clause":"EXEC-1","reason":"r"}]}`, "no kit"},
		{"format 1 entry pinned", `{"kit":"1","expected":[{"scenario":"a","scenarioDigest":"` + digest64 + `","clause":"EXEC-1","reason":"r"}]}`, "an entry pins its scenario only in format 2"},
		{"no scenario", `{"kit":"1","expected":[{"clause":"EXEC-1","reason":"r"}]}`, "no scenario"},
		{"twice", `{"kit":"1","expected":[{"scenario":"a","clause":"EXEC-1","reason":"r"},{"scenario":"a","clause":"EXEC-1","reason":"r"}]}`, "listed twice"},
		{"bad outcome", `{"kit":"1","expected":[{"scenario":"a","outcome":"skipped","clause":"EXEC-1","reason":"r"}]}`, "want failed or errored"},
		{"bad clause", `{"kit":"1","expected":[{"scenario":"a","clause":"exec 1","reason":"r"}]}`, "not a clause ID"},
		{"no reason", `{"kit":"1","expected":[{"scenario":"a","clause":"EXEC-1","reason":" "}]}`, "no reason"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseLedger([]byte(tt.json))
			if err == nil || !errors.Is(err, ErrLedger) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want ErrLedger containing %q", err, tt.want)
			}
		})
	}
}

// ledgerSuite is a small suite tree as CheckSuite reads it: two
// scenarios, one of them reading a data file, and the data file.
func ledgerSuite() fstest.MapFS {
	return fstest.MapFS{
		"scripts/exec_a.txtar":         {Data: []byte("# a\n# clauses: EXEC-1\n\nexec true\n")},
		"scripts/exec_b.txtar":         {Data: []byte("# b\n# clauses: EXEC-3\n\npermcorpus commands.json\n")},
		"scripts/exec_c.txtar":         {Data: []byte("# c\n# clauses: EXEC-2\n\npermcorpus -local bypass-commands.json\n")},
		"permissions/commands.json":    {Data: []byte("[]\n")},
		"permissions/README.md":        {Data: []byte("not digested\n")},
		"scripts/bypass-commands.json": {Data: []byte("[]\n")},
	}
}

// digestsOf returns the scenario digests of a suite tree, or fails t.
func digestsOf(t *testing.T, fsys fs.FS) map[string]string {
	t.Helper()
	d, err := suite.ScenarioDigests(fsys, ".")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// pinned is an entry of a format-2 ledger pinned to digest.
func pinned(scenario, digest string) Expectation {
	return Expectation{Scenario: scenario, ScenarioDigest: digest, Kit: "0.9", Clause: "EXEC-1", Reason: "r"}
}

func TestLedgerCheckSuite(t *testing.T) {
	fsys := ledgerSuite()
	d := digestsOf(t, fsys)
	digest, err := suite.Digest(fsys, ".")
	if err != nil {
		t.Fatal(err)
	}
	old := "sha256:" + strings.Repeat("0", 64)
	tests := []struct {
		name   string
		ledger Ledger
		want   string            // error; "" for none
		stale  map[string]string // scenario: text its Stale() must hold
		note   string
	}{
		{name: "current entries", ledger: Ledger{Format: 2, Expected: []Expectation{pinned("exec_a", d["exec_a"]), pinned("exec_b", d["exec_b"])}}},
		{name: "another kit reviewed it", ledger: Ledger{Format: 2, Expected: []Expectation{{Scenario: "exec_a", ScenarioDigest: d["exec_a"], Kit: "0.0.1", Clause: "EXEC-1", Reason: "r"}}}},
		{name: "changed scenario", ledger: Ledger{Format: 2, Expected: []Expectation{pinned("exec_a", old), pinned("exec_b", d["exec_b"])}},
			stale: map[string]string{"exec_a": "exec_a: reviewed against an older version of the scenario (kit 0.9"}},
		{name: "removed scenario", ledger: Ledger{Format: 2, Expected: []Expectation{pinned("exec_gone", old)}},
			stale: map[string]string{"exec_gone": "no such scenario any more"}},
		{name: "clause undefined", ledger: Ledger{Format: 2, Expected: []Expectation{{Scenario: "exec_a", ScenarioDigest: d["exec_a"], Kit: "1", Clause: "EXEC-9", Reason: "r"}}},
			want: "the spec defines no clause EXEC-9"},
		{name: "old format, this suite", ledger: Ledger{Suite: digest, Kit: "0.8", Expected: []Expectation{{Scenario: "exec_b", Clause: "EXEC-3", Reason: "r"}}},
			note: "is in the old ledger format"},
		{name: "old format, this kit", ledger: Ledger{Kit: "1.0", Expected: []Expectation{{Scenario: "exec_b", Clause: "EXEC-3", Reason: "r"}}},
			note: "apexcheck ledger migrate"},
		{name: "old format, another suite", ledger: Ledger{Suite: old, Kit: "1.0"},
			want: "pinned to the whole suite sha256:000000000000, but this kit (1.0) runs suite " + suite.ShortDigest(digest)},
		{name: "old format, another kit", ledger: Ledger{Kit: "0.9"}, want: "pinned to kit 0.9, but this is kit 1.0"},
		{name: "old format, unknown scenario", ledger: Ledger{Kit: "1.0", Expected: []Expectation{{Scenario: "exec_z", Clause: "EXEC-1", Reason: "r"}}},
			want: "no scenario exec_z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clauses := []suite.Clause{{ID: "EXEC-1"}, {ID: "EXEC-2"}, {ID: "EXEC-3"}}
			l := tt.ledger
			err := l.CheckSuite(fsys, "1.0", clauses)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tt.want != "" && (err == nil || !errors.Is(err, ErrLedger) || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			case tt.want != "":
				return
			}
			for _, e := range l.Expected {
				want, ok := tt.stale[e.Scenario]
				if got := e.Stale(); ok != (got != "") || !strings.Contains(got, want) {
					t.Errorf("%s: Stale() = %q, want %q", e.Scenario, got, want)
				}
			}
			if !strings.Contains(l.Note, tt.note) || (tt.note == "") != (l.Note == "") {
				t.Errorf("note %q, want %q", l.Note, tt.note)
			}
			if tt.note != "" {
				// Upgraded exactly: format 2, every entry pinned to its
				// scenario as it is and to the kit that reviewed the ledger.
				e := l.Expected[0]
				if l.Format != LedgerFormat || l.Suite != "" || l.Kit != "" || e.ScenarioDigest != d["exec_b"] || e.Kit != tt.ledger.Kit {
					t.Errorf("upgraded ledger %+v", l)
				}
			}
		})
	}
}

// TestLedgerJudgesEntriesByTheirScenario is the ledger's semantics in one
// table: a run checked against a format-2 ledger after the suite changed.
func TestLedgerJudgesEntriesByTheirScenario(t *testing.T) {
	fsys := ledgerSuite()
	d := digestsOf(t, fsys)
	old := "sha256:" + strings.Repeat("0", 64)
	tests := []struct {
		name    string
		entry   *Expectation  // nil: the ledger does not list exec_a
		outcome suite.Outcome // exec_a's outcome in the run
		want    Status
		ok      bool
	}{
		{"unchanged, fails as listed", ptr(pinned("exec_a", d["exec_a"])), suite.Failed, ExpectedFailure, true},
		{"unchanged, now passes", ptr(pinned("exec_a", d["exec_a"])), suite.Passed, UnexpectedPass, false},
		{"changed, fails", ptr(pinned("exec_a", old)), suite.Failed, StaleExpectation, false},
		{"changed, passes", ptr(pinned("exec_a", old)), suite.Passed, StaleExpectation, false},
		{"changed, skipped", ptr(pinned("exec_a", old)), suite.Skipped, StaleExpectation, false},
		{"not listed, fails", nil, suite.Failed, UnexpectedFailure, false},
		{"not listed, passes", nil, suite.Passed, None, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// exec_b is listed, unchanged, and fails as listed throughout:
			// whatever happens to exec_a's entry leaves it alone.
			l := &Ledger{Format: 2, Expected: []Expectation{pinned("exec_b", d["exec_b"])}}
			if tt.entry != nil {
				l.Expected = append(l.Expected, *tt.entry)
			}
			if err := l.CheckSuite(fsys, "1.0", []suite.Clause{{ID: "EXEC-1"}}); err != nil {
				t.Fatal(err)
			}
			results := []suite.Result{{Scenario: scen("exec_a"), Outcome: tt.outcome}, {Scenario: scen("exec_b"), Outcome: suite.Failed}}
			if st, _ := l.Classify(results[0]); st != tt.want {
				t.Errorf("exec_a classified %q, want %q", st, tt.want)
			}
			if st, _ := l.Classify(results[1]); st != ExpectedFailure {
				t.Errorf("exec_b classified %q, want expected-failure", st)
			}
			v := l.Evaluate(results)
			if v.OK() != tt.ok {
				t.Errorf("verdict OK = %v, want %v: %+v", v.OK(), tt.ok, v)
			}
			if tt.want == StaleExpectation && (len(v.Stale) != 1 || v.Stale[0].Scenario != "exec_a") {
				t.Errorf("stale %+v, want exec_a alone", v.Stale)
			}
		})
	}
	t.Run("removed scenario", func(t *testing.T) {
		l := &Ledger{Format: 2, Expected: []Expectation{pinned("exec_b", d["exec_b"]), pinned("exec_gone", old)}}
		if err := l.CheckSuite(fsys, "1.0", []suite.Clause{{ID: "EXEC-1"}}); err != nil {
			t.Fatal(err)
		}
		// Flagged although no result names it, and in every run.
		v := l.Evaluate([]suite.Result{{Scenario: scen("exec_b"), Outcome: suite.Failed}})
		if v.OK() || len(v.Stale) != 1 || v.Stale[0].Scenario != "exec_gone" || len(v.Expected) != 1 {
			t.Errorf("verdict %+v, want exec_gone stale and exec_b expected", v)
		}
		if err := l.CheckProfile(suite.Apex, []suite.Scenario{scen("exec_a"), scen("exec_b")}); err != nil {
			t.Errorf("a removed scenario's entry is flagged as stale, not refused by the profile check: %v", err)
		}
	})
}

// TestScenarioEditFlagsOnlyItsEntries copies the real suite, edits one
// scenario, and checks a ledger listing several: only the entry naming
// the edited scenario is stale.
func TestScenarioEditFlagsOnlyItsEntries(t *testing.T) {
	fsys := fstest.MapFS{}
	err := fs.WalkDir(apexcheck.Suite, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(apexcheck.Suite, p)
		fsys[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	clauses, err := suite.LoadClauses(apexcheck.Spec)
	if err != nil {
		t.Fatal(err)
	}
	d := digestsOf(t, fsys)
	names := []string{"exec_login_shell", "call_ambiguous", "perm_corpus_whole", "perm_match_exact"}
	var l Ledger
	l.Format = 2
	for _, n := range names {
		if d[n] == "" {
			t.Fatalf("no scenario %s in the suite", n)
		}
		l.Expected = append(l.Expected, Expectation{Scenario: n, ScenarioDigest: d[n], Kit: "0.1.0", Clause: "EXEC-1", Reason: "r"})
	}
	tests := []struct {
		name  string
		edit  func()
		stale []string
	}{
		{"one scenario", func() {
			f := fsys["scripts/exec_login_shell.txtar"]
			f.Data = append(slices.Clip(f.Data), "\n# an edit\n"...)
		}, []string{"exec_login_shell"}},
		// Edits accumulate: exec_login_shell stays edited.
		{"the corpus some scenarios read", func() {
			f := fsys["permissions/commands.json"]
			f.Data = append(slices.Clip(f.Data), '\n')
		}, []string{"exec_login_shell", "perm_corpus_whole"}},
	}
	for _, tt := range tests {
		tt.edit()
		check := l
		check.Expected = slices.Clone(l.Expected)
		if err := check.CheckSuite(fsys, "0.2.0", clauses); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var stale []string
		for _, e := range check.Expected {
			if e.Stale() != "" {
				stale = append(stale, e.Scenario)
			}
		}
		slices.Sort(stale)
		if !slices.Equal(stale, tt.stale) {
			t.Errorf("after an edit to %s: stale entries %v, want %v", tt.name, stale, tt.stale)
		}
	}
}

func TestLedgerClassify(t *testing.T) {
	l := &Ledger{Kit: "1", Expected: []Expectation{
		{Scenario: "exec_any", Clause: "EXEC-1", Reason: "r"},
		{Scenario: "exec_failed", Outcome: suite.Failed, Clause: "EXEC-1", Reason: "r"},
		{Scenario: "exec_flaky", Clause: "EXEC-1", Reason: "races", Flaky: true},
	}}
	tests := []struct {
		ledger  *Ledger
		name    string
		outcome suite.Outcome
		want    Status
	}{
		{nil, "exec_other", suite.Failed, UnexpectedFailure},
		{nil, "exec_other", suite.Passed, None},
		{l, "exec_other", suite.Errored, UnexpectedFailure},
		{l, "exec_other", suite.Skipped, None},
		{l, "exec_any", suite.Failed, ExpectedFailure},
		{l, "exec_any", suite.Errored, ExpectedFailure},
		{l, "exec_any", suite.Passed, UnexpectedPass},
		{l, "exec_any", suite.Skipped, ExpectedNotRun},
		{l, "exec_failed", suite.Failed, ExpectedFailure},
		{l, "exec_failed", suite.Errored, UnexpectedFailure},
		{l, "exec_flaky", suite.Passed, FlakyPass},
		{l, "exec_flaky", suite.Failed, ExpectedFailure},
	}
	for _, tt := range tests {
		got, _ := tt.ledger.Classify(suite.Result{Scenario: suite.Scenario{Name: tt.name}, Outcome: tt.outcome})
		if got != tt.want {
			t.Errorf("ledger %v: %s %s classified %q, want %q", tt.ledger != nil, tt.name, tt.outcome, got, tt.want)
		}
	}
}

func TestLedgerEvaluateRatchet(t *testing.T) {
	l := &Ledger{Kit: "1", Expected: []Expectation{
		{Scenario: "call_b", Clause: "CALL-2", Reason: "known"},
		{Scenario: "exec_c", Clause: "EXEC-1", Reason: "known"},
	}}
	rep := sample()
	if v := l.Evaluate(rep.Results); !v.OK() || len(v.Expected) != 2 {
		t.Errorf("exact match: %+v", v)
	}
	rep.Results[1].Outcome = suite.Passed
	if v := l.Evaluate(rep.Results); v.OK() || len(v.Fixed) != 1 {
		t.Errorf("an expected failure that passes must fail the run: %+v", v)
	}
	rep = sample()
	rep.Results[0].Outcome = suite.Failed
	if v := l.Evaluate(rep.Results); v.OK() || len(v.Unexpected) != 1 {
		t.Errorf("an unlisted failure must fail the run: %+v", v)
	}
	l.Expected[0].Flaky = true
	rep = sample()
	rep.Results[1].Outcome = suite.Passed
	if v := l.Evaluate(rep.Results); !v.OK() || len(v.FlakyPass) != 1 {
		t.Errorf("a flaky entry that passes must not fail the run: %+v", v)
	}
}

func TestDraftLedger(t *testing.T) {
	prev := &Ledger{Kit: "1", Expected: []Expectation{
		{Scenario: "call_b", Outcome: suite.Failed, Clause: "CALL-2", Reason: "reviewed <reason>"},
		{Scenario: "exec_c", Clause: "EXEC-2", Reason: "flaky between failed and errored"},
		{Scenario: "call_a", Clause: "CALL-1", Reason: "races", Flaky: true},
	}}
	var buf bytes.Buffer
	if err := DraftLedger(&buf, sample().Results, prev, draftSuite, "2", "impl 1.2", suite.Apex, false); err != nil {
		t.Fatal(err)
	}
	l, err := ParseLedger(buf.Bytes())
	if err != nil {
		t.Fatalf("draft does not parse: %v\n%s", err, buf.String())
	}
	if l.Format != LedgerFormat || l.Suite != "" || len(l.Expected) != 3 {
		t.Fatalf("draft %+v", l)
	}
	d := digestsOf(t, draftSuite)
	for _, e := range l.Expected {
		if e.ScenarioDigest != d[e.Scenario] || e.Kit != "2" {
			t.Errorf("%s pinned to %s by kit %s, want %s by kit 2", e.Scenario, e.ScenarioDigest, e.Kit, d[e.Scenario])
		}
	}
	if e := l.Lookup("call_b"); e.Reason != "reviewed <reason>" || e.Outcome != suite.Failed {
		t.Errorf("kept entry %+v", e)
	}
	if e := l.Lookup("exec_c"); e.Clause != "EXEC-2" || e.Outcome != "" {
		t.Errorf("entry accepting either outcome %+v", e)
	}
	if e := l.Lookup("call_a"); e == nil || !e.Flaky || e.Reason != "races" {
		t.Errorf("a flaky entry that passed this time was dropped: %+v", e)
	}
	buf.Reset()
	if err := DraftLedger(&buf, sample().Results, nil, draftSuite, "2", "impl 1.2", suite.Apex, false); err != nil {
		t.Fatal(err)
	}
	l, _ = ParseLedger(buf.Bytes())
	if e := l.Lookup("exec_c"); e.Clause != "EXEC-1" || e.Reason != "TODO: review: FAIL: exec_c.txtar:3: [errored] implementation closed stdout" || e.Outcome != suite.Errored {
		t.Errorf("new entry %+v", e)
	}
}

// TestDraftLedgerRepins: a redraft keeps the kit that reviewed an entry
// whose scenario is unchanged, and repins one whose scenario changed.
func TestDraftLedgerRepins(t *testing.T) {
	d := digestsOf(t, draftSuite)
	prev := &Ledger{Format: 2, Expected: []Expectation{
		{Scenario: "call_b", ScenarioDigest: d["call_b"], Kit: "1", Clause: "CALL-2", Reason: "reviewed"},
		{Scenario: "exec_c", ScenarioDigest: "sha256:" + strings.Repeat("0", 64), Kit: "1", Clause: "EXEC-2", Reason: "reviewed too"},
	}}
	var buf bytes.Buffer
	if err := DraftLedger(&buf, sample().Results, prev, draftSuite, "2", "impl 1.2", suite.Apex, false); err != nil {
		t.Fatal(err)
	}
	l, err := ParseLedger(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if e := l.Lookup("call_b"); e.Kit != "1" || e.ScenarioDigest != d["call_b"] {
		t.Errorf("unchanged entry %+v, want kit 1 kept", e)
	}
	if e := l.Lookup("exec_c"); e.Kit != "2" || e.ScenarioDigest != d["exec_c"] || e.Reason != "reviewed too" {
		t.Errorf("changed entry %+v, want repinned by kit 2, reason kept", e)
	}
}

// TestDraftLedgerPartial: a draft from a run of part of the suite keeps,
// untouched, the entries of the scenarios the run did not select, and drops
// an entry whose scenario left the suite; a whole run drops them all.
func TestDraftLedgerPartial(t *testing.T) {
	kept := Expectation{Scenario: "exec_c", ScenarioDigest: "sha256:" + strings.Repeat("1", 64), Kit: "1", Clause: "EXEC-2", Reason: "reviewed, not rerun"}
	prev := &Ledger{Format: 2, Expected: []Expectation{kept, {Scenario: "gone_x", Kit: "1", Clause: "GONE-1", Reason: "left the suite"}}}
	var only []suite.Result
	for _, r := range sample().Results {
		if r.Scenario.Name != "exec_c" {
			only = append(only, r)
		}
	}
	for _, partial := range []bool{true, false} {
		var buf bytes.Buffer
		if err := DraftLedger(&buf, only, prev, draftSuite, "2", "impl 1.2", suite.Apex, partial); err != nil {
			t.Fatal(err)
		}
		l, err := ParseLedger(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		e := l.Lookup("exec_c")
		switch {
		case partial && (e == nil || *e != kept):
			t.Errorf("partial run: entry of a scenario not run is %+v, want %+v kept", e, kept)
		case !partial && e != nil:
			t.Errorf("whole run: entry of a scenario without a result kept: %+v", e)
		}
		if l.Lookup("gone_x") != nil {
			t.Errorf("partial=%v: entry of a scenario that left the suite kept", partial)
		}
	}
}

// draftSuite is a suite tree holding the scenarios of sample().
var draftSuite = fstest.MapFS{
	"call_a.txtar": {Data: []byte("# a\n")},
	"call_b.txtar": {Data: []byte("# b\n")},
	"exec_c.txtar": {Data: []byte("# c\n")},
	"exec_d.txtar": {Data: []byte("# d\n")},
}

func TestCertify(t *testing.T) {
	clauses := []suite.Clause{{ID: "CALL-1", Level: "MUST"}, {ID: "CALL-2", Level: "SHOULD"}, {ID: "EXEC-1", Level: "MUST"}, {ID: "EXEC-3", Level: "MUST"}}
	scenarios := []suite.Scenario{scen("call_a", "CALL-1"), scen("call_b", "CALL-2"), scen("exec_c", "EXEC-1", "EXEC-2"), scen("exec_d", "EXEC-3")}
	date := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	tests := []struct {
		name      string
		outcomes  []suite.Outcome // per suite scenario; "" means not in the results
		certified bool
		denied    string
	}{
		{"all pass", []suite.Outcome{suite.Passed, suite.Passed, suite.Passed, suite.Passed}, true, ""},
		{"SHOULD failure does not deny", []suite.Outcome{suite.Passed, suite.Failed, suite.Passed, suite.Passed}, true, ""},
		{"MUST skip denies", []suite.Outcome{suite.Passed, suite.Passed, suite.Passed, suite.Skipped}, false, "exec_d (MUST EXEC-3) skipped"},
		{"MUST failure denies", []suite.Outcome{suite.Passed, suite.Passed, suite.Failed, suite.Passed}, false, "exec_c (MUST EXEC-1) failed"},
		{"MUST not run denies", []suite.Outcome{suite.Passed, suite.Passed, suite.Passed, ""}, false, "exec_d (MUST EXEC-3) did not run"},
		{"MUST stopped by --max-fail denies", []suite.Outcome{suite.Passed, suite.Passed, suite.Passed, suite.Skipped}, false, "exec_d (MUST EXEC-3) skipped: not run: stopped after 1 failures"},
		{"a scenario that does not apply denies nothing", []suite.Outcome{suite.Passed, suite.Passed, suite.Passed, suite.Skipped}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := sample()
			rep.Results = nil
			for i, o := range tt.outcomes {
				if o != "" {
					rep.Results = append(rep.Results, suite.Result{Scenario: scenarios[i], Outcome: o, Message: "why"})
				}
			}
			// exec_d needs "bg", which sample() does not declare, unless
			// the case is about a scenario skipping itself.
			scenarios := append([]suite.Scenario(nil), scenarios...)
			scenarios[3].Requires = []string{"bg"}
			if strings.HasPrefix(tt.name, "MUST stopped") {
				rep.Results[3].Message = "not run: stopped after 1 failures"
				scenarios[3].Requires = nil
			}
			if strings.HasPrefix(tt.name, "a scenario that does not apply") {
				scenarios[3].Requires = nil
			}
			for i := range rep.Results {
				for _, s := range scenarios {
					if s.Name == rep.Results[i].Scenario.Name {
						rep.Results[i].Scenario = s
					}
				}
			}
			c := Certify(rep, scenarios, clauses, date)
			if c.Certified != tt.certified {
				t.Errorf("certified = %v, want %v (denied %v)", c.Certified, tt.certified, c.Denied)
			}
			if tt.denied != "" && (len(c.Denied) != 1 || !strings.HasPrefix(c.Denied[0], tt.denied)) {
				t.Errorf("denied %q, want %q", c.Denied, tt.denied)
			}
			var text, js bytes.Buffer
			if err := c.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if err := c.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			verdict := "apexcheck certificate: CERTIFIED\n"
			if !tt.certified {
				verdict = "apexcheck certificate: NOT CERTIFIED\n"
			}
			for _, want := range []string{verdict, "implementation  impl 1.2 (go)", "suite           sha256:0123456789abcdef0123", "date            2026-05-06T07:08:09Z"} {
				if !strings.Contains(text.String(), want) {
					t.Errorf("certificate text lacks %q:\n%s", want, text.String())
				}
			}
		})
	}
}

// TestStaleEntryInReports: every report a run writes names a stale entry.
func TestStaleEntryInReports(t *testing.T) {
	rep := sample()
	l := &Ledger{Format: 2, Path: "expected.json", Expected: []Expectation{
		{Scenario: "call_b", ScenarioDigest: "sha256:" + strings.Repeat("0", 64), Kit: "1", Clause: "CALL-2", Reason: "r"},
	}}
	if err := l.CheckSuite(draftSuite, "2", []suite.Clause{{ID: "CALL-2"}}); err != nil {
		t.Fatal(err)
	}
	rep.Ledger = l
	want := "call_b: reviewed against an older version of the scenario (kit 1, sha256:000000000000; now sha256:"
	for _, w := range []struct {
		name  string
		write func(*bytes.Buffer) error
		also  string
	}{
		{"markdown", func(b *bytes.Buffer) error { return rep.WriteMarkdown(b) }, "### Ledger entries to review"},
		{"junit", func(b *bytes.Buffer) error { return rep.WriteJUnit(b) }, `type="stale-entry"`},
		{"annotations", func(b *bytes.Buffer) error { return rep.WriteAnnotations(b) }, "::error file=expected.json,title=apexcheck%3A call_b%3A stale ledger entry::"},
		{"json", func(b *bytes.Buffer) error { return rep.WriteJSONLines(b) }, `"expectation":"stale-entry"`},
	} {
		var b bytes.Buffer
		if err := w.write(&b); err != nil {
			t.Fatal(err)
		}
		text := b.String()
		if w.name != "json" && !strings.Contains(text, want) || !strings.Contains(text, w.also) {
			t.Errorf("%s report lacks the stale entry (%q, %q):\n%s", w.name, want, w.also, text)
		}
	}
}

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }
