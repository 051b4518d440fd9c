package verdict_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/conformance/verdict"
	"github.com/apexcheck/apexcheck/protocol"
)

// A vendor's ledger lists the failures they know of; a run conforms when
// it differs from the ledger nowhere.
func ExampleJudge() {
	// Each entry pins the scenario it was reviewed against (CheckSuite
	// flags an entry whose scenario changed since).
	ledger, err := verdict.ParseLedger([]byte(`{
	  "format": 2,
	  "expected": [
	    {"scenario": "exec_exit_code", "scenarioDigest": "sha256:3f0c8e5f9a1d2b4c6e8f0a1b3c5d7e9f2a4b6c8d0e1f3a5b7c9d1e2f4a6b8c0d", "kit": "1.0",
	     "clause": "EXEC-3", "reason": "exit codes above 128 are folded"}
	  ]
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	results := []suite.Result{
		{Scenario: suite.Scenario{Name: "call_basic"}, Outcome: suite.Passed},
		{Scenario: suite.Scenario{Name: "exec_exit_code"}, Outcome: suite.Failed},
		{Scenario: suite.Scenario{Name: "exec_stderr"}, Outcome: suite.Skipped},
	}
	for _, r := range results {
		st, _ := ledger.Classify(r)
		fmt.Printf("%s: %s", r.Scenario.Name, r.Outcome)
		if st != verdict.None {
			fmt.Printf(" (%s)", st)
		}
		fmt.Println()
	}
	j := verdict.Judge(&verdict.Report{Results: results}, ledger, nil)
	fmt.Println("conformant:", j.Conformant)
	// Output:
	// call_basic: passed
	// exec_exit_code: failed (expected-failure)
	// exec_stderr: skipped
	// conformant: true
}

// A JSON Lines report written by one run is read back by another tool (a
// merge, the matrix) as a ReadRun.
func ExampleReadReport() {
	rep := &verdict.Report{Kit: "1.0", Suite: "sha256:0123", Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Implementation: protocol.Implementation{Name: "tiny", Version: "0.1", Language: "sh"},
		Results: []suite.Result{
			{Scenario: suite.Scenario{Name: "call_basic", Clauses: []string{"CALL-1"}}, Outcome: suite.Passed},
			{Scenario: suite.Scenario{Name: "exec_exit_code", Clauses: []string{"EXEC-3"}}, Outcome: suite.Failed, Message: "FAIL: exec_exit_code.txtar:4: exit 1"},
		}}
	var b strings.Builder
	if err := rep.WriteJSONLines(&b); err != nil {
		fmt.Println(err)
		return
	}
	run, err := verdict.ReadReport(strings.NewReader(b.String()))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(run.Label())
	for _, r := range run.Results {
		fmt.Println(r.Scenario.Name, r.Outcome)
	}
	// Output:
	// tiny 0.1 (apex)
	// call_basic passed
	// exec_exit_code failed
}

// A certificate says whether every MUST scenario of the profile ran and
// passed; a failed SHOULD scenario is a note, not a denial.
func ExampleCertify() {
	clauses := []suite.Clause{{ID: "CALL-1", Level: "MUST"}, {ID: "CALL-2", Level: "SHOULD"}}
	scenarios := []suite.Scenario{{Name: "call_basic", Clauses: []string{"CALL-1"}}, {Name: "call_nice", Clauses: []string{"CALL-2"}}}
	rep := &verdict.Report{Results: []suite.Result{
		{Scenario: scenarios[0], Outcome: suite.Passed},
		{Scenario: scenarios[1], Outcome: suite.Failed, Message: "FAIL: call_nice.txtar:3: text differs"},
	}}
	cert := verdict.Certify(rep, scenarios, clauses, time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	fmt.Println("certified:", cert.Certified)
	for _, n := range cert.Notes {
		fmt.Println("note:", n)
	}
	// Output:
	// certified: true
	// note: call_nice (CALL-2) failed: FAIL: call_nice.txtar:3: text differs
}
