package verdict

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/protocol"
)

// inconclusiveRun has a MUST scenario left inconclusive, a SHOULD one
// inconclusive and a MUST one passed.
func inconclusiveRun() (*Report, []suite.Scenario, []suite.Clause) {
	scenarios := []suite.Scenario{
		{Name: "path_a", Area: "path", Clauses: []string{"PATH-6"}},
		{Name: "path_b", Area: "path", Clauses: []string{"PATH-7"}},
		{Name: "path_c", Area: "path", Clauses: []string{"PATH-9"}},
	}
	clauses := []suite.Clause{{ID: "PATH-6", Level: "MUST"}, {ID: "PATH-7", Level: "SHOULD"}, {ID: "PATH-9", Level: "MUST"}}
	rep := &Report{Kit: "9.9.9", Suite: "sha256:x", Implementation: protocol.Implementation{Name: "impl", Version: "1"},
		Results: []suite.Result{
			{Scenario: scenarios[0], Outcome: suite.Inconclusive, Attempts: 3, Message: "inconclusive in all 3 attempts; the last: the machine missed the 5s bound"},
			{Scenario: scenarios[1], Outcome: suite.Inconclusive, Attempts: 3, Message: "inconclusive in all 3 attempts"},
			{Scenario: scenarios[2], Outcome: suite.Passed},
		}}
	return rep, scenarios, clauses
}

// TestInconclusiveWithholdsCertification: a MUST scenario left
// inconclusive neither passes nor denies; certification is withheld and
// the judgement is inconclusive, unless something else denies.
func TestInconclusiveWithholdsCertification(t *testing.T) {
	rep, scenarios, clauses := inconclusiveRun()
	cert := Certify(rep, scenarios, clauses, time.Now())
	if cert.Certified || !cert.Withheld() || len(cert.Denied) != 0 || len(cert.Inconclusive) != 1 || !strings.HasPrefix(cert.Inconclusive[0], "path_a (MUST PATH-6)") {
		t.Errorf("certificate %+v: want withheld by path_a alone", cert)
	}
	if cert.Totals.Inconclusive != 2 || cert.Totals.MustPassed != 1 || cert.Totals.MustTotal != 2 {
		t.Errorf("totals %+v", cert.Totals)
	}
	var b strings.Builder
	cert.WriteText(&b)
	if !strings.Contains(b.String(), "apexcheck certificate: WITHHELD (inconclusive") || !strings.Contains(b.String(), "2 inconclusive of 3") {
		t.Errorf("certificate text:\n%s", b.String())
	}
	if j := Judge(rep, nil, &cert); j.Conformant || !j.Inconclusive {
		t.Errorf("judged with the certificate: %+v, want inconclusive", j)
	}
	if j := Judge(rep, nil, nil); j.Conformant || !j.Inconclusive {
		t.Errorf("judged without a certificate: %+v, want inconclusive", j)
	}
	// A failure decides, inconclusive runs or not.
	rep.Results[2].Outcome = suite.Failed
	cert = Certify(rep, scenarios, clauses, time.Now())
	if cert.Certified || cert.Withheld() {
		t.Errorf("certificate %+v: want denied by path_c", cert)
	}
	for _, c := range []*Certificate{&cert, nil} {
		if j := Judge(rep, nil, c); j.Conformant || j.Inconclusive {
			t.Errorf("judged %+v with a failure: want not conformant", j)
		}
	}
}

// TestInconclusiveInReports: format 2 reports carry the outcome, its
// attempts and its count, and read back; a format 1 report cannot hold it.
func TestInconclusiveInReports(t *testing.T) {
	rep, _, _ := inconclusiveRun()
	var buf bytes.Buffer
	if err := rep.WriteJSONLines(&buf); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{`"format":2`, `"outcome":"inconclusive"`, `"attempts":3`, `"inconclusive":2`} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %s:\n%s", want, text)
		}
	}
	run, err := ReadReport(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if run.Format != 2 || run.Results[0].Outcome != suite.Inconclusive || run.Results[0].Attempts != 3 {
		t.Errorf("read back: format %d, %+v", run.Format, run.Results[0])
	}
	old := strings.Replace(text, `"format":2,`, "", 1)
	if _, err := ReadReport(strings.NewReader(old)); err == nil || !strings.Contains(err.Error(), "format 1") {
		t.Errorf("an inconclusive outcome in a format 1 report: %v", err)
	}
	newer := strings.Replace(text, `"format":2,`, `"format":3,`, 1)
	if _, err := ReadReport(strings.NewReader(newer)); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("a report of a newer format: %v", err)
	}
	if b := rep.Badge(); b.Color != "lightgrey" || !strings.Contains(b.Message, "2 inconclusive") {
		t.Errorf("badge %+v", b)
	}
}
