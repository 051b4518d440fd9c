package apexcheck_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/apexcheck/apexcheck"
	"github.com/apexcheck/apexcheck/conformance/suite"
)

// TestClauseCoverage fails when a MUST clause has no scenario, or a
// scenario cites a clause the spec does not define: the clause index and
// the suite cannot drift apart.
func TestClauseCoverage(t *testing.T) {
	clauses, err := suite.LoadClauses(apexcheck.Spec)
	if err != nil {
		t.Fatal(err)
	}
	scenarios, err := suite.LoadScenarios(apexcheck.Scripts, ".")
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]suite.Clause{}
	for _, c := range clauses {
		defined[c.ID] = c
	}
	proven := map[string][]string{}
	for _, s := range scenarios {
		for _, id := range s.Clauses {
			if _, ok := defined[id]; !ok {
				t.Errorf("%s cites %s, which no spec file defines", s.Path, id)
			}
			proven[id] = append(proven[id], s.Name)
		}
	}
	var missing []string
	for _, c := range clauses {
		if c.Level == "MUST" && len(proven[c.ID]) == 0 && !strings.Contains(c.Provenance, "untestable") {
			missing = append(missing, c.ID+" ("+c.File+")")
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("MUST clauses without a scenario:\n  %s", strings.Join(missing, "\n  "))
	}
}

// TestScenarioNames checks the naming rule: <area>_<behaviour>.txtar with
// a known area.
func TestScenarioNames(t *testing.T) {
	areas := map[string]bool{"call": true, "exec": true, "output": true, "path": true, "perm": true,
		"bg": true, "display": true, "evidence": true, "proto": true}
	scenarios, err := suite.LoadScenarios(apexcheck.Scripts, ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range scenarios {
		if !areas[s.Area] || !strings.Contains(s.Name, "_") {
			t.Errorf("%s: name is not <area>_<behaviour> with a known area", s.Path)
		}
		if s.Summary == "" {
			t.Errorf("%s: header has no summary line", s.Path)
		}
	}
}
