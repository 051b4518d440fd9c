package verdict

import (
	"testing"

	"github.com/apexcheck/apexcheck/conformance/suite"
)

// TestJudge: the ledger decides when there is one, else the certificate
// when the run was certified (a shard's by its denials alone), else any
// failed or errored scenario denies.
func TestJudge(t *testing.T) {
	failing := []suite.Result{
		{Scenario: suite.Scenario{Name: "call_a"}, Outcome: suite.Passed},
		{Scenario: suite.Scenario{Name: "call_b"}, Outcome: suite.Failed},
	}
	passing := []suite.Result{failing[0], {Scenario: failing[1].Scenario, Outcome: suite.Passed}}
	listsB := &Ledger{Expected: []Expectation{{Scenario: "call_b", Clause: "CALL-2", Reason: "known"}}}
	// staleB lists call_b, but was reviewed against another version of it
	// (as CheckSuite marks it).
	staleB := &Ledger{Expected: []Expectation{{Scenario: "call_b", Clause: "CALL-2", Reason: "known", stale: "call_b: reviewed against an older version"}}}
	tests := []struct {
		name    string
		results []suite.Result
		ledger  *Ledger
		cert    *Certificate
		want    bool
	}{
		{"all passed", passing, nil, nil, true},
		{"a failure", failing, nil, nil, false},
		{"a failure the ledger lists", failing, listsB, nil, true},
		{"a listed scenario now passes", passing, listsB, nil, false},
		{"the ledger decides over a certificate", failing, listsB, &Certificate{}, true},
		{"a stale entry, though it fails as listed", failing, staleB, nil, false},
		{"a stale entry, though certified", failing, staleB, &Certificate{Certified: true}, false},
		{"certified despite a SHOULD failure", failing, nil, &Certificate{Certified: true}, true},
		{"certification denied", passing, nil, &Certificate{Denied: []string{"x"}}, false},
		{"a shard without denials", failing, nil, &Certificate{Shard: "1/2"}, true},
		{"a shard with a denial", passing, nil, &Certificate{Shard: "1/2", Denied: []string{"x"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := Judge(&Report{Results: tt.results}, tt.ledger, tt.cert)
			if j.Conformant != tt.want {
				t.Errorf("Conformant = %v, want %v (ledger verdict %+v)", j.Conformant, tt.want, j.Ledger)
			}
		})
	}
}
