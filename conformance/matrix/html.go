package matrix

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/conformance/verdict"
)

// WriteHTML writes the matrix as one self-contained HTML page: inline
// style and script, no external asset and no link leaving the page. One
// section per profile, core first, each with its tools' totals and a table
// of its clauses (rows) against its tools (columns, named); then every
// failure with the reviewed reason its ledger gives; then the clauses'
// text. Filters by area, profile and outcome. Below 800 px wide the tables
// stack, one card per clause (or tool), so that nothing scrolls sideways.
func (m *Matrix) WriteHTML(w io.Writer, opt Options) error {
	if err := matrixPage.Execute(w, m.htmlView(opt)); err != nil {
		return fmt.Errorf("write matrix: %w", err)
	}
	return nil
}

// The view the template renders: everything precomputed, so that the
// template only prints.
type (
	htmlView struct {
		Kit, Suite, Generator string
		Areas                 []string
		Outcomes              []htmlOutcome
		Profiles              []htmlProfile
		Clauses               []htmlClause
	}
	htmlOutcome struct {
		Name, Symbol, Words string
	}
	htmlProfile struct {
		Name                 string
		Clauses, MustClauses int
		Runs                 []htmlRun
		Rows                 []htmlClauseRow
	}
	htmlRun struct {
		ID, Label, Name, Version, Language, Profile, File, Capabilities string
		Totals                                                          suite.Totals
		MustVerified, MustDeclared, MustUndeclared, MustClauses         int
		Reviewed, Unreviewed                                            int
		Certified, SuiteMatches                                         bool
		RunSuite, Started, Ledger                                       string
		LedgerEntries                                                   int
		Failures                                                        []htmlFailure
		LedgerNotes                                                     []string
	}
	htmlFailure struct {
		Anchor, Scenario, Outcome, Message, Reproduce string
		Verdict, Explanation                          string
		Line                                          int
		Clauses                                       []string
	}
	htmlClauseRow struct {
		ID, Area, Level string
		Text            template.HTML
		Cells           []htmlCell
	}
	htmlClause struct {
		ID, Area, Level, Provenance, File string
		Core                              bool
		Text                              template.HTML
		Scenarios                         []string
	}
	htmlCell struct {
		Tool, Row, Outcome, Symbol, Title, FailAnchor, Verdict string
	}
)

func (m *Matrix) htmlView(opt Options) htmlView {
	v := htmlView{Kit: m.Kit, Suite: m.Suite, Generator: opt.Generator, Areas: m.Areas()}
	for _, o := range CellOutcomes {
		v.Outcomes = append(v.Outcomes, htmlOutcome{string(o), cellWord[o], cellWords[o]})
	}
	for _, p := range m.Profiles() {
		clauses := m.ClausesOf(p)
		hp := htmlProfile{Name: string(p), Clauses: len(clauses), MustClauses: len(verdict.MustClauses(clauses))}
		rows := m.RowsOf(p)
		for _, r := range rows {
			hp.Runs = append(hp.Runs, htmlRunOf(r))
		}
		for _, c := range clauses {
			hr := htmlClauseRow{ID: c.ID, Area: clauseArea(c.ID), Level: c.Level, Text: inlineCode(c.Text)}
			for _, r := range rows {
				hr.Cells = append(hr.Cells, htmlCellOf(r, r.Cells[c.ID]))
			}
			hp.Rows = append(hp.Rows, hr)
		}
		v.Profiles = append(v.Profiles, hp)
	}
	for _, c := range m.Clauses {
		v.Clauses = append(v.Clauses, htmlClause{ID: c.ID, Area: clauseArea(c.ID), Level: c.Level, Provenance: c.Provenance,
			File: c.File, Core: c.Core, Text: inlineCode(c.Text), Scenarios: m.Cited(c.ID)})
	}
	return v
}

func htmlRunOf(r Row) htmlRun {
	impl := r.Run.Implementation
	caps := strings.Join(r.Run.Capabilities, " ")
	if caps == "" {
		caps = "none"
	}
	hr := htmlRun{ID: r.ID, Label: r.Run.Label(), Name: impl.Name, Version: impl.Version, Language: impl.Language,
		Profile: string(r.Run.Profile.OrDefault()), File: r.Run.File, Capabilities: caps, Totals: r.Totals,
		MustVerified: r.Certificate.Totals.MustVerified, MustDeclared: r.MustDeclared, MustUndeclared: r.MustUndeclared,
		MustClauses: r.Certificate.Totals.MustClauses, Certified: r.Certificate.Certified, SuiteMatches: r.SuiteMatches,
		RunSuite: suite.ShortDigest(r.Run.Suite), LedgerNotes: r.LedgerNotes()}
	if !r.Run.Started.IsZero() {
		hr.Started = r.Run.Started.UTC().Format("2006-01-02 15:04 UTC")
	}
	if r.Ledger != nil {
		hr.Ledger, hr.LedgerEntries = r.Ledger.Path, len(r.Ledger.Expected)
	}
	for _, f := range r.Failures() {
		if f.Reviewed() {
			hr.Reviewed++
		} else {
			hr.Unreviewed++
		}
		hr.Failures = append(hr.Failures, htmlFailure{Anchor: failAnchor(r.ID, f.Scenario.Name), Scenario: f.Scenario.Name,
			Outcome: string(f.Outcome), Message: shortMessage(f.Message), Reproduce: f.Reproduce, Line: f.Line,
			Clauses: f.Scenario.Clauses, Verdict: f.Verdict(), Explanation: f.Explanation(r.Ledger != nil)})
	}
	return hr
}

// htmlCellOf renders one run's cell: its outcome, and for a failure the
// ledger's judgement, with every scenario and reason in its title.
func htmlCellOf(r Row, cell Cell) htmlCell {
	hc := htmlCell{Tool: r.Run.Implementation.Name, Row: r.ID, Outcome: string(cell.Outcome), Symbol: cellWord[cell.Outcome]}
	title := []string{r.Run.Label() + ": " + string(cell.Outcome)}
	if cell.Why != "" {
		title = append(title, cell.Why)
	}
	verdicts := map[string]bool{}
	for _, res := range cell.Results {
		t := res.Scenario.Name + " " + string(res.Outcome)
		if res.Outcome == suite.Failed || res.Outcome == suite.Errored {
			f := r.failure(res)
			verdicts[f.Verdict()] = true
			t += ". " + f.Explanation(r.Ledger != nil)
		} else if res.Outcome != suite.Passed && res.Message != "" {
			t += ": " + firstLine(res.Message)
		}
		title = append(title, t)
	}
	hc.Title = strings.Join(title, "\n")
	if f := cell.Failing(); len(f) > 0 {
		hc.FailAnchor = failAnchor(r.ID, f[0].Scenario.Name)
		// The worst judgement of the cell's failures shows.
		for _, v := range []string{"not reviewed", "stale", "reviewed"} {
			if verdicts[v] {
				hc.Verdict = v
				break
			}
		}
	}
	return hc
}

// cellWord is how the HTML page shows a cell outcome: a short word, which
// any font renders (emoji need a font the reader may lack), on the colour
// of its outcome.
var cellWord = map[CellOutcome]string{
	CellPassed:  "pass",
	CellFailed:  "FAIL",
	CellErrored: "ERROR",
	CellSkipped: "skip",
	CellPartial: "part",
	CellAbsent:  "–",
}

// inlineCode renders a clause's text as HTML: escaped, with its
// backtick-quoted runs (the spec's exact texts) as <code>. A run opened by
// N backticks closes at the next run of exactly N, as in CommonMark.
func inlineCode(text string) template.HTML {
	var b strings.Builder
	for len(text) > 0 {
		i := strings.IndexByte(text, '`')
		if i < 0 {
			b.WriteString(template.HTMLEscapeString(text))
			break
		}
		b.WriteString(template.HTMLEscapeString(text[:i]))
		n := len(text[i:]) - len(strings.TrimLeft(text[i:], "`"))
		fence, rest := text[i:i+n], text[i+n:]
		end := -1
		for j := 0; j < len(rest); {
			k := strings.Index(rest[j:], fence)
			if k < 0 {
				break
			}
			k += j
			m := len(rest[k:]) - len(strings.TrimLeft(rest[k:], "`"))
			if m == n {
				end = k
				break
			}
			j = k + m
		}
		if end < 0 {
			b.WriteString(template.HTMLEscapeString(fence))
			text = rest
			continue
		}
		code := rest[:end]
		if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
			code = code[1 : len(code)-1]
		}
		b.WriteString("<code>" + template.HTMLEscapeString(code) + "</code>")
		text = rest[end+n:]
	}
	return template.HTML(b.String())
}
