package matrix

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/conformance/verdict"
	"github.com/apexcheck/apexcheck/protocol"
)

// compareSuite is a small spec and suite: CALL-1 is core and proved by the
// core scenario call_core; EXEC-1 and EXEC-2 are apex's; EXEC-3 has no
// scenario.
func compareSuite() ([]suite.Clause, []suite.Scenario) {
	clauses := []suite.Clause{{ID: "CALL-1", Level: "MUST", Core: true, Provenance: "derived: t", Text: "A `call` runs.", File: "call.md"},
		{ID: "EXEC-1", Level: "MUST", Provenance: "derived: t", Text: "Exact.", File: "exec.md"},
		{ID: "EXEC-2", Level: "MUST", Provenance: "derived: t", Text: "Needs a capability.", File: "exec.md"},
		{ID: "EXEC-3", Level: "SHOULD", Provenance: "derived: t", Text: "Unproved.", File: "exec.md"}}
	core := scen("call_core", "CALL-1")
	core.Profiles = []suite.Profile{suite.Core}
	needs := scen("exec_needs", "EXEC-2")
	needs.Requires = []string{"bg"}
	return clauses, []suite.Scenario{core, scen("exec_a", "EXEC-1"), scen("exec_b", "EXEC-1"), needs}
}

// jsonReport writes a report with the given outcomes (by scenario) as JSON
// Lines and reads it back.
func jsonReport(t *testing.T, name string, profile suite.Profile, scenarios []suite.Scenario, outcomes map[string]suite.Outcome) *verdict.ReadRun {
	t.Helper()
	rep := &verdict.Report{Kit: "1", Suite: "sha256:s", Profile: profile, Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Implementation: protocol.Implementation{Name: name, Version: "1.0", Language: "go"}}
	for _, s := range profile.Scenarios(scenarios) {
		o, ok := outcomes[s.Name]
		if !ok {
			o = suite.Passed
		}
		msg := ""
		if o != suite.Passed {
			msg = "FAIL: /tmp/apexcheck-scenarios-1/" + s.Name + ".txtar:4: why " + s.Name
		}
		rep.Results = append(rep.Results, suite.Result{Scenario: s, Outcome: o, Message: msg, Log: "log"})
	}
	var buf bytes.Buffer
	if err := rep.WriteJSONLines(&buf); err != nil {
		t.Fatal(err)
	}
	run, err := verdict.ReadReport(&buf)
	if err != nil {
		t.Fatal(err)
	}
	run.File = name + ".jsonl"
	return run
}

func TestReadReportErrors(t *testing.T) {
	header := `{"type":"header","kit":"1","suite":"s","profile":"core","implementation":{"name":"x","version":"1","language":"go"},"capabilities":[],"started":"2026-01-02T03:04:05Z"}`
	line := func(name, outcome string) string {
		return `{"type":"scenario","name":"` + name + `","outcome":"` + outcome + `","clauses":["CALL-1"]}`
	}
	footer := `{"type":"footer","passed":1}`
	tests := []struct {
		name, data, err string
	}{
		{"ok", header + "\n" + line("call_a", "passed") + "\n" + `{"type":"future","x":1}` + "\n" + footer + "\n", ""},
		{"empty", "", "no header"},
		{"no header", line("call_a", "passed") + "\n" + footer, "first line is not a header"},
		{"no footer", header + "\n" + line("call_a", "passed") + "\n", "no footer"},
		{"after footer", header + "\n" + footer + "\n" + line("call_a", "passed"), "after the footer"},
		{"twice", header + "\n" + line("call_a", "passed") + "\n" + line("call_a", "failed") + "\n" + footer, "reported twice"},
		{"bad outcome", header + "\n" + line("call_a", "fine") + "\n" + footer, `outcome "fine"`},
		{"bad profile", strings.Replace(header, `"core"`, `"lax"`, 1) + "\n" + footer, `profile "lax"`},
		{"not JSON", header + "\nnot json\n" + footer, "line 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, err := verdict.ReadReport(strings.NewReader(tt.data))
			if tt.err == "" {
				if err != nil || run.Profile != suite.Core || len(run.Results) != 1 || run.Results[0].Scenario.Area != "call" {
					t.Fatalf("run %+v, err %v", run, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
		})
	}
}

func TestCompareCells(t *testing.T) {
	clauses, scenarios := compareSuite()
	good := jsonReport(t, "good", suite.Apex, scenarios, map[string]suite.Outcome{"exec_needs": suite.Skipped})
	bad := jsonReport(t, "bad", suite.Apex, scenarios, map[string]suite.Outcome{"exec_b": suite.Failed, "exec_needs": suite.Skipped})
	crashed := jsonReport(t, "crashed", suite.Apex, scenarios, map[string]suite.Outcome{"exec_a": suite.Errored, "exec_needs": suite.Skipped})
	core := jsonReport(t, "good", suite.Core, scenarios, nil)
	m, err := Compare([]*verdict.ReadRun{good, bad, crashed, core}, clauses, scenarios, "sha256:s", "1")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][4]CellOutcome{
		"CALL-1": {CellPassed, CellPassed, CellPassed, CellPassed},
		"EXEC-1": {CellPassed, CellFailed, CellErrored, CellAbsent},
		"EXEC-2": {CellSkipped, CellSkipped, CellSkipped, CellAbsent},
		"EXEC-3": {CellAbsent, CellAbsent, CellAbsent, CellAbsent},
	}
	for id, outs := range want {
		for i, o := range outs {
			if got := m.Rows[i].Cells[id].Outcome; got != o {
				t.Errorf("%s of %s: %s, want %s", id, m.Rows[i].Run.Label(), got, o)
			}
		}
	}
	if why := m.Rows[3].Cells["EXEC-1"].Why; why != "not in profile core" {
		t.Errorf("why EXEC-1 is absent under core: %q", why)
	}
	if why := m.Rows[0].Cells["EXEC-3"].Why; why != "no scenario proves it" {
		t.Errorf("why EXEC-3 is absent: %q", why)
	}
	// good skipped a MUST scenario for a capability it lacks: not
	// certified; core needs only call_core.
	for i, certified := range []bool{false, false, false, true} {
		if c := m.Rows[i].Certificate; c.Certified != certified {
			t.Errorf("%s certified = %v, want %v (denied %v)", m.Rows[i].Run.Label(), c.Certified, certified, c.Denied)
		}
	}
	if c := m.Rows[3].Certificate; c.Totals.MustClauses != 1 || c.Profile != suite.Core {
		t.Errorf("core certificate: %+v", c)
	}
	if _, err := Compare([]*verdict.ReadRun{good, good}, clauses, scenarios, "sha256:s", "1"); err == nil || !strings.Contains(err.Error(), "both report good 1.0 (apex)") {
		t.Errorf("two reports of one implementation and profile: %v", err)
	}
	if m.Rows[1].Cells["EXEC-1"].Failing()[0].Message != "FAIL: exec_b.txtar:4: why exec_b" {
		t.Errorf("failure message not cleaned: %q", m.Rows[1].Cells["EXEC-1"].Failing()[0].Message)
	}
}

// TestCompareOtherSuite: a run of another suite is certified against the
// scenarios it reports, and flagged.
func TestCompareOtherSuite(t *testing.T) {
	clauses, scenarios := compareSuite()
	core := jsonReport(t, "old", suite.Core, scenarios, nil)
	m, err := Compare([]*verdict.ReadRun{core}, clauses, scenarios, "sha256:newer", "1")
	if err != nil {
		t.Fatal(err)
	}
	if r := m.Rows[0]; r.SuiteMatches || !r.Certificate.Certified {
		t.Errorf("suite matches %v, certified %v (%v)", r.SuiteMatches, r.Certificate.Certified, r.Certificate.Denied)
	}
	var md bytes.Buffer
	if err := m.WriteMarkdown(&md, Options{Generator: "g"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "r1 ran suite `sha256:s`, not this kit's") {
		t.Errorf("Markdown does not flag the other suite:\n%s", md.String())
	}
}

func TestMatrixPages(t *testing.T) {
	clauses, scenarios := compareSuite()
	bad := jsonReport(t, "bad<impl>", suite.Apex, scenarios, map[string]suite.Outcome{"exec_b": suite.Failed})
	m, err := Compare([]*verdict.ReadRun{bad}, clauses, scenarios, "sha256:s", "1")
	if err != nil {
		t.Fatal(err)
	}
	var md, page bytes.Buffer
	opt := Options{SpecBase: "../spec/", HTMLPage: "matrix.html", Generator: "make matrix"}
	if err := m.WriteMarkdown(&md, opt); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteHTML(&page, opt); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| r1 | bad&lt;impl&gt; | 1.0 | apex | 3 | 1 | 0 | 0 |",
		"| [EXEC-1](../spec/exec.md) | MUST |  | [❌](#fail-r1-exec_b) |",
		"| [CALL-1](../spec/call.md) | MUST | core | ✅ |",
		`- <a id="fail-r1-exec_b"></a>` + "`exec_b` failed (EXEC-1)",
		"FAIL: exec_b.txtar:4: why exec_b",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	for _, want := range []string{
		`<td class="cell" data-report="r1" data-profile="apex" data-outcome="failed"`,
		`<a class="fail-link" href="#fail-r1-exec_b">why</a>`,
		`<div class="failure" id="fail-r1-exec_b">`,
		`<div class="clause" id="clause-CALL-1" data-area="CALL">`,
		`A <code>call</code> runs.`,
		`bad&lt;impl&gt;`,
	} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	for _, banned := range []string{"http://", "https://", "<link", "src="} {
		if strings.Contains(page.String(), banned) {
			t.Errorf("HTML holds %q: the page must be self-contained", banned)
		}
	}
}

func TestInlineCode(t *testing.T) {
	tests := map[string]string{
		"plain <b>":          "plain &lt;b&gt;",
		"run `ls -l` now":    "run <code>ls -l</code> now",
		"``a ` b`` and `c`":  "<code>a ` b</code> and <code>c</code>",
		"`` `x` ``":          "<code>`x`</code>",
		"unclosed ` tick":    "unclosed ` tick",
		"`<&>`":              "<code>&lt;&amp;&gt;</code>",
		"two ``` and ` here": "two ``` and ` here",
	}
	for in, want := range tests {
		if got := string(inlineCode(in)); got != want {
			t.Errorf("inlineCode(%q) = %q, want %q", in, got, want)
		}
	}
}

func scen(name string, clauses ...string) suite.Scenario {
	area, _, _ := strings.Cut(name, "_")
	return suite.Scenario{Name: name, Path: name + ".txtar", Summary: "summary of " + name, Clauses: clauses, Area: area}
}
