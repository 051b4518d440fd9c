package matrix

import (
	"bytes"
	"slices"
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
	if !strings.Contains(md.String(), "old 1.0 (core) ran suite `sha256:s`, not this kit's") {
		t.Errorf("Markdown does not flag the other suite:\n%s", md.String())
	}
}

func TestMatrixPages(t *testing.T) {
	clauses, scenarios := compareSuite()
	bad := jsonReport(t, "bad<impl>", suite.Apex, scenarios, map[string]suite.Outcome{"exec_b": suite.Failed, "exec_a": suite.Failed,
		"exec_needs": suite.Skipped})
	core := jsonReport(t, "bad<impl>", suite.Core, scenarios, nil)
	m, err := Compare([]*verdict.ReadRun{bad, core}, clauses, scenarios, "sha256:s", "1")
	if err != nil {
		t.Fatal(err)
	}
	ledger := &verdict.Ledger{Format: verdict.LedgerFormat, Implementation: "bad<impl> 1.0", Path: "adapters/bad/expected.json",
		Expected: []verdict.Expectation{{Scenario: "exec_b", Outcome: suite.Failed, Clause: "EXEC-1", Reason: "bad <says> `nope`"}}}
	if err := m.SetLedgers([]*verdict.Ledger{ledger}); err != nil {
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
		"| bad&lt;impl&gt; | 1.0 | no | 1 of 2 | 1 of 3 | none | 1 | [2 + 0](#failures-bad-impl--apex) (1 / 1) | 1 | `bad&lt;impl&gt;.jsonl` |",
		"| bad&lt;impl&gt; | 1.0 | **yes** | 1 of 1 | 0 of 1 | none | 1 |",
		"### EXEC (apex)\n\n| clause | level | bad&lt;impl&gt; |",
		"| [EXEC-1](../spec/exec.md) | MUST | [❌†](#fail-bad-impl--apex-exec_a) |",
		"| [CALL-1](../spec/call.md) | MUST | ✅ |",
		`- <a id="fail-bad-impl--apex-exec_b"></a>` + "`exec_b` failed (EXEC-1): Reviewed reason (violates EXEC-1): bad &lt;says&gt; `nope`",
		`- <a id="fail-bad-impl--apex-exec_a"></a>` + "`exec_a` failed (EXEC-1): Not reviewed: the tool's ledger does not list this failure.",
		"FAIL: exec_b.txtar:4: why exec_b",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	// Core comes first, in both pages.
	if c, a := strings.Index(md.String(), "## core profile"), strings.Index(md.String(), "## apex profile"); c < 0 || a < c {
		t.Errorf("Markdown: core profile at %d, apex at %d; want core first", c, a)
	}
	if c, a := strings.Index(page.String(), `id="matrix-core"`), strings.Index(page.String(), `id="matrix-apex"`); c < 0 || a < c {
		t.Errorf("HTML: core table at %d, apex at %d; want core first", c, a)
	}
	for _, want := range []string{
		`<th data-report="bad-impl--apex" data-profile="apex" title="bad&lt;impl&gt; 1.0 (apex)"><a href="#impl-bad-impl--apex">bad&lt;impl&gt;</a><br><small>1.0</small></th>`,
		`<td class="cell" data-tool="bad&lt;impl&gt;" data-report="bad-impl--apex" data-outcome="failed" data-verdict="not reviewed"`,
		`<a class="fail-link" href="#fail-bad-impl--apex-exec_a">FAIL</a> <small>not reviewed</small>`,
		`<div class="failure" id="fail-bad-impl--apex-exec_b" data-verdict="reviewed">`,
		`<p class="reason">Reviewed reason (violates EXEC-1): bad &lt;says&gt; `,
		`<td data-label="MUST clauses verified" class="num">1 of 2</td>`,
		`<div class="clause" id="clause-CALL-1" data-area="CALL">`,
		`A <code>call</code> runs.`,
	} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	for _, banned := range []string{"http://", "https://", "<link", "src=", ">r1<"} {
		if strings.Contains(page.String(), banned) {
			t.Errorf("HTML holds %q: the page must be self-contained and name its tools", banned)
		}
	}
}

// TestSetLedgers: a ledger belongs to the run of its implementation and
// profile, and one that belongs to none, or a second for one run, is an
// error.
func TestSetLedgers(t *testing.T) {
	clauses, scenarios := compareSuite()
	apex := jsonReport(t, "x", suite.Apex, scenarios, nil)
	core := jsonReport(t, "x", suite.Core, scenarios, nil)
	ledger := func(impl string, p suite.Profile) *verdict.Ledger {
		return &verdict.Ledger{Format: verdict.LedgerFormat, Implementation: impl, Profile: p, Path: impl + string(p)}
	}
	tests := []struct {
		name    string
		ledgers []*verdict.Ledger
		err     string
		apex    string // the path of the apex run's ledger
	}{
		{"both", []*verdict.Ledger{ledger("x 1.0", suite.Core), ledger("x 1.0", "")}, "", "x 1.0"},
		{"none", nil, "", ""},
		{"other version", []*verdict.Ledger{ledger("x 2.0", "")}, `reviews "x 2.0" under profile apex, but no report given is of it`, ""},
		{"other name", []*verdict.Ledger{ledger("y 1.0", suite.Core)}, `reviews "y 1.0" under profile core`, ""},
		{"twice", []*verdict.Ledger{ledger("x 1.0", ""), ledger("x 1.0", suite.Apex)}, "are both ledgers of x 1.0 (apex)", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Compare([]*verdict.ReadRun{apex, core}, clauses, scenarios, "sha256:s", "1")
			if err != nil {
				t.Fatal(err)
			}
			err = m.SetLedgers(tt.ledgers)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if l := m.Rows[0].Ledger; l != nil {
				got = l.Path
			}
			if got != tt.apex {
				t.Errorf("the apex run's ledger is %q, want %q", got, tt.apex)
			}
		})
	}
}

// TestFailureExplanation: each failure says what its ledger says of it,
// and the ledger's entries that did not fail are accounted for.
func TestFailureExplanation(t *testing.T) {
	clauses, scenarios := compareSuite()
	run := jsonReport(t, "x", suite.Apex, scenarios, map[string]suite.Outcome{"exec_a": suite.Failed, "exec_b": suite.Errored,
		"exec_needs": suite.Skipped})
	m, err := Compare([]*verdict.ReadRun{run}, clauses, scenarios, "sha256:s", "1")
	if err != nil {
		t.Fatal(err)
	}
	r := m.Rows[0]
	if f := r.Failures(); len(f) != 2 || f[0].Explanation(false) != "Not reviewed: no ledger was given for this run." {
		t.Fatalf("without a ledger: %+v", f)
	}
	r.Ledger = &verdict.Ledger{Format: verdict.LedgerFormat, Implementation: "x 1.0", Expected: []verdict.Expectation{
		{Scenario: "exec_a", Outcome: suite.Failed, Clause: "EXEC-1", Reason: "a is wrong", Flaky: true},
		{Scenario: "exec_b", Outcome: suite.Failed, Clause: "EXEC-1", Reason: "b is wrong"},
		{Scenario: "call_core", Clause: "CALL-1", Reason: "c was wrong"},
		{Scenario: "exec_needs", Clause: "EXEC-2", Reason: "needs"},
	}}
	want := []string{
		"Reviewed reason (violates EXEC-1; flaky: a race in the tool, it passes sometimes): a is wrong",
		"Not reviewed as errored: the ledger expects it to be failed (violates EXEC-1): b is wrong",
	}
	var got []string
	for _, f := range r.Failures() {
		got = append(got, f.Explanation(true))
	}
	if !slices.Equal(got, want) {
		t.Errorf("explanations:\n%q\nwant\n%q", got, want)
	}
	notes := r.LedgerNotes()
	if len(notes) != 2 || !strings.HasPrefix(notes[0], "call_core is listed, but passed: fixed") ||
		!strings.HasPrefix(notes[1], "exec_needs is listed, but was skipped") {
		t.Errorf("ledger notes: %q", notes)
	}
}

// TestMustDeclared: the MUST clauses a run can be tested on are those
// whose every scenario needs only capabilities it declared.
func TestMustDeclared(t *testing.T) {
	clauses, scenarios := compareSuite()
	without := jsonReport(t, "without", suite.Apex, scenarios, map[string]suite.Outcome{"exec_needs": suite.Skipped})
	with := jsonReport(t, "with", suite.Apex, scenarios, nil)
	with.Capabilities = []string{"bg"}
	m, err := Compare([]*verdict.ReadRun{without, with}, clauses, scenarios, "sha256:s", "1")
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][2]int{{2, 1}, {3, 0}} {
		if r := m.Rows[i]; r.MustDeclared != want[0] || r.MustUndeclared != want[1] {
			t.Errorf("%s: %d declared, %d undeclared; want %v", r.Run.Label(), r.MustDeclared, r.MustUndeclared, want)
		}
	}
	if v := m.Rows[0].Certificate.Totals.MustVerified; v != 2 {
		t.Errorf("without bg: %d MUST clauses verified, want 2", v)
	}
}

// TestRowIDs: a run's anchor names its tool and profile, and its version
// too when two runs of one profile share a name.
func TestRowIDs(t *testing.T) {
	clauses, scenarios := compareSuite()
	a := jsonReport(t, "x y", suite.Apex, scenarios, nil)
	b := jsonReport(t, "x y", suite.Apex, scenarios, nil)
	b.Implementation.Version = "2.0"
	c := jsonReport(t, "x y", suite.Core, scenarios, nil)
	m, err := Compare([]*verdict.ReadRun{a, b, c}, clauses, scenarios, "sha256:s", "1")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range m.Rows {
		ids = append(ids, r.ID)
	}
	if want := []string{"x-y-1.0-apex", "x-y-2.0-apex", "x-y-core"}; !slices.Equal(ids, want) {
		t.Errorf("IDs %q, want %q", ids, want)
	}
	if p := m.Profiles(); !slices.Equal(p, []suite.Profile{suite.Core, suite.Apex}) {
		t.Errorf("profiles %v, want core first", p)
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
