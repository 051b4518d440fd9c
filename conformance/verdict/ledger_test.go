package verdict

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apexcheck/apexcheck/conformance/suite"
)

func TestParseLedgerRejects(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"not JSON", `{`, "unexpected EOF"},
		{"unknown member", `{"kit":"1","expected":[],"extra":1}`, "unknown field"},
		{"no pin", `{"expected":[]}`, "pins no suite version"},
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

func TestLedgerCheckSuite(t *testing.T) {
	scenarios := []suite.Scenario{scen("exec_a", "EXEC-1", "EXEC-2"), scen("exec_b", "EXEC-3")}
	tests := []struct {
		name   string
		ledger Ledger
		want   string // "" for no error
	}{
		{"digest matches", Ledger{Suite: "sha256:aa", Expected: []Expectation{{Scenario: "exec_a", Clause: "EXEC-2", Reason: "r"}}}, ""},
		{"kit matches", Ledger{Kit: "1.0"}, ""},
		{"digest wins over kit", Ledger{Suite: "sha256:bb", Kit: "1.0"}, "is for suite sha256:bb"},
		{"other kit", Ledger{Kit: "0.9"}, "is for kit 0.9, but this is kit 1.0"},
		{"unknown scenario", Ledger{Kit: "1.0", Expected: []Expectation{{Scenario: "exec_z", Clause: "EXEC-1", Reason: "r"}}}, "no scenario exec_z"},
		{"clause cited elsewhere", Ledger{Kit: "1.0", Expected: []Expectation{{Scenario: "exec_b", Clause: "EXEC-1", Reason: "r"}}}, ""},
		{"clause undefined", Ledger{Kit: "1.0", Expected: []Expectation{{Scenario: "exec_b", Clause: "EXEC-9", Reason: "r"}}}, "the spec defines no clause EXEC-9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clauses := []suite.Clause{{ID: "EXEC-1"}, {ID: "EXEC-2"}, {ID: "EXEC-3"}}
			err := tt.ledger.CheckSuite("sha256:aa", "1.0", scenarios, clauses)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tt.want != "" && (err == nil || !errors.Is(err, ErrLedger) || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
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
	if err := DraftLedger(&buf, sample().Results, prev, "sha256:new", "2", "impl 1.2", suite.Apex); err != nil {
		t.Fatal(err)
	}
	l, err := ParseLedger(buf.Bytes())
	if err != nil {
		t.Fatalf("draft does not parse: %v\n%s", err, buf.String())
	}
	if l.Suite != "sha256:new" || len(l.Expected) != 3 {
		t.Fatalf("draft %+v", l)
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
	if err := DraftLedger(&buf, sample().Results, nil, "sha256:new", "2", "impl 1.2", suite.Apex); err != nil {
		t.Fatal(err)
	}
	l, _ = ParseLedger(buf.Bytes())
	if e := l.Lookup("exec_c"); e.Clause != "EXEC-1" || e.Reason != "TODO: review: FAIL: exec_c.txtar:3: [errored] implementation closed stdout" || e.Outcome != suite.Errored {
		t.Errorf("new entry %+v", e)
	}
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
