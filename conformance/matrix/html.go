package matrix

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/apexcheck/apexcheck/conformance/suite"
)

// WriteHTML writes the matrix as one self-contained HTML page: inline
// style and script, no external asset and no link leaving the page. A row
// per clause, a column per implementation; filters by area, profile and
// outcome; every cell links to its clause's text further down the page
// and, when it fails, to the failure.
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
		Rows                  []htmlRow
		Clauses               []htmlClause
	}
	htmlOutcome struct {
		Name, Symbol, Words string
	}
	htmlRow struct {
		ID, Label, Name, Version, Language, Profile, File string
		Totals                                            suite.Totals
		MustVerified, MustClauses                         int
		Certified, SuiteMatches                           bool
		RunSuite, Started                                 string
		Failures                                          []htmlFailure
	}
	htmlFailure struct {
		Anchor, Scenario, Outcome, Message, Reproduce string
		Line                                          int
		Clauses                                       []string
	}
	htmlClause struct {
		ID, Area, Level, Provenance, File string
		Core                              bool
		Text                              template.HTML
		Cells                             []htmlCell
		Scenarios                         []string
	}
	htmlCell struct {
		Row, Profile, Outcome, Symbol, Title, FailAnchor string
	}
)

func (m *Matrix) htmlView(opt Options) htmlView {
	v := htmlView{Kit: m.Kit, Suite: m.Suite, Generator: opt.Generator, Areas: m.Areas()}
	for _, o := range CellOutcomes {
		v.Outcomes = append(v.Outcomes, htmlOutcome{string(o), cellWord[o], cellWords[o]})
	}
	for _, r := range m.Rows {
		impl := r.Run.Implementation
		row := htmlRow{ID: r.ID, Label: r.Run.Label(), Name: impl.Name, Version: impl.Version, Language: impl.Language,
			Profile: string(r.Run.Profile.OrDefault()), File: r.Run.File, Totals: r.Totals,
			MustVerified: r.Certificate.Totals.MustVerified, MustClauses: r.Certificate.Totals.MustClauses,
			Certified: r.Certificate.Certified, SuiteMatches: r.SuiteMatches, RunSuite: suite.ShortDigest(r.Run.Suite)}
		if !r.Run.Started.IsZero() {
			row.Started = r.Run.Started.UTC().Format("2006-01-02 15:04 UTC")
		}
		for _, res := range r.Run.Results {
			if res.Outcome != suite.Failed && res.Outcome != suite.Errored {
				continue
			}
			row.Failures = append(row.Failures, htmlFailure{Anchor: failAnchor(r.ID, res.Scenario.Name), Scenario: res.Scenario.Name,
				Outcome: string(res.Outcome), Message: shortMessage(res.Message), Reproduce: res.Reproduce, Line: res.Line,
				Clauses: res.Scenario.Clauses})
		}
		v.Rows = append(v.Rows, row)
	}
	for _, c := range m.Clauses {
		hc := htmlClause{ID: c.ID, Area: clauseArea(c.ID), Level: c.Level, Provenance: c.Provenance, File: c.File,
			Core: c.Core, Text: inlineCode(c.Text), Scenarios: m.Cited(c.ID)}
		for _, r := range m.Rows {
			cell := r.Cells[c.ID]
			hcell := htmlCell{Row: r.ID, Profile: string(r.Run.Profile.OrDefault()), Outcome: string(cell.Outcome),
				Symbol: cellWord[cell.Outcome]}
			title := []string{r.Run.Label() + ": " + string(cell.Outcome)}
			if cell.Why != "" {
				title = append(title, cell.Why)
			}
			for _, res := range cell.Results {
				t := res.Scenario.Name + " " + string(res.Outcome)
				if res.Outcome != suite.Passed && res.Message != "" {
					t += ": " + firstLine(res.Message)
				}
				title = append(title, t)
			}
			hcell.Title = strings.Join(title, "\n")
			if f := cell.Failing(); len(f) > 0 {
				hcell.FailAnchor = failAnchor(r.ID, f[0].Scenario.Name)
			}
			hc.Cells = append(hc.Cells, hcell)
		}
		v.Clauses = append(v.Clauses, hc)
	}
	return v
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

var matrixPage = template.Must(template.New("matrix").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>apexcheck conformance matrix</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1, h2, h3 { font-weight: 600; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ccc; padding: 2px 6px; }
th { background: #f3f3f3; position: sticky; top: 0; }
td.num { text-align: right; }
td.cell { text-align: center; }
td.cell a { text-decoration: none; }
td.cell a { color: inherit; }
.cell[data-outcome="failed"], .cell[data-outcome="errored"] { background: #fde2e2; color: #a11; font-weight: 600; }
.cell[data-outcome="passed"] { background: #e6f4e6; color: #176317; }
.cell[data-outcome="skipped"], .cell[data-outcome="partial"] { background: #fff5d6; color: #7a5a00; }
.cell[data-outcome="absent"] { color: #999; }
span.cell { padding: 0 3px; }
td.cell a.fail-link { color: #a11; font-weight: normal; text-decoration: underline; }
.yes { color: #176317; font-weight: 600; }
.no { color: #a11; font-weight: 600; }
.filters { margin: 1em 0; display: flex; gap: 1.5em; flex-wrap: wrap; align-items: center; }
.clause, .failure { margin: 0.6em 0; padding: 0.4em 0.6em; border-left: 3px solid #ccc; }
.failure { border-color: #d33; }
.meta { color: #666; }
pre { white-space: pre-wrap; background: #f7f7f7; padding: 0.4em; margin: 0.3em 0; }
code { background: #f3f3f3; padding: 0 2px; }
:target { outline: 2px solid #e8a400; }
</style>
</head>
<body>
<h1>apexcheck conformance matrix</h1>
<p class="meta">Kit {{.Kit}}, suite <code>{{.Suite}}</code>. Generated by <code>{{.Generator}}</code>; do not edit. A row is certified when every MUST scenario of its profile ran and passed.</p>

<h2 id="implementations">Implementations</h2>
<table id="implementations-table">
<thead><tr><th>row</th><th>implementation</th><th>version</th><th>language</th><th>profile</th><th>passed</th><th>failed</th><th>errored</th><th>skipped</th><th>MUST clauses verified</th><th>certified</th><th>report</th></tr></thead>
<tbody>
{{range .Rows}}<tr class="impl" id="impl-{{.ID}}" data-report="{{.ID}}" data-profile="{{.Profile}}">
<td>{{.ID}}</td><td>{{.Name}}</td><td>{{.Version}}</td><td>{{.Language}}</td><td>{{.Profile}}</td>
<td class="num">{{.Totals.Passed}}</td><td class="num">{{.Totals.Failed}}</td><td class="num">{{.Totals.Errored}}</td><td class="num">{{.Totals.Skipped}}</td>
<td class="num">{{.MustVerified}} of {{.MustClauses}}</td>
<td>{{if .Certified}}<span class="yes">yes</span>{{else}}<span class="no">no</span>{{end}}</td>
<td><code>{{.File}}</code>{{if .Started}} <span class="meta">{{.Started}}</span>{{end}}{{if not .SuiteMatches}} <span class="no">ran suite {{.RunSuite}}, not this kit's: rerun it</span>{{end}} <a href="#failures-{{.ID}}">failures</a></td>
</tr>
{{end}}</tbody>
</table>

<h2 id="matrix-heading">Clauses × implementations</h2>
<div class="filters">
<label>Area <select id="filter-area"><option value="all">all</option>{{range .Areas}}<option value="{{.}}">{{.}}</option>{{end}}</select></label>
<label>Profile <select id="filter-profile"><option value="all">all</option><option value="apex">apex</option><option value="core">core</option></select></label>
<label>Outcome <select id="filter-outcome"><option value="any">any</option>{{range .Outcomes}}<option value="{{.Name}}">{{.Name}}</option>{{end}}</select></label>
<span id="shown" aria-live="polite"></span>
</div>
<p class="meta">{{range .Outcomes}}<span class="cell" data-outcome="{{.Name}}">{{.Symbol}}</span> {{.Name}}: {{.Words}}. {{end}}The profile filter shows the runs of that profile and the clauses in it; the outcome filter, the clauses on which a shown run has that outcome.</p>
<table id="matrix">
<thead><tr><th>clause</th><th>level</th><th>core</th>{{range .Rows}}<th data-report="{{.ID}}" data-profile="{{.Profile}}" title="{{.Label}}"><a href="#impl-{{.ID}}">{{.ID}}</a><br><small>{{.Profile}}</small></th>{{end}}</tr></thead>
<tbody>
{{range .Clauses}}{{$c := .}}<tr class="clause-row" data-area="{{.Area}}" data-core="{{.Core}}" data-clause="{{.ID}}">
<td><a href="#clause-{{.ID}}">{{.ID}}</a></td><td>{{.Level}}</td><td>{{if .Core}}core{{end}}</td>
{{range .Cells}}<td class="cell" data-report="{{.Row}}" data-profile="{{.Profile}}" data-outcome="{{.Outcome}}" title="{{.Title}}"><a href="#clause-{{$c.ID}}">{{.Symbol}}</a>{{if .FailAnchor}} <a class="fail-link" href="#{{.FailAnchor}}">why</a>{{end}}</td>{{end}}
</tr>
{{end}}</tbody>
</table>

<h2 id="clauses">Clauses</h2>
{{range .Clauses}}<div class="clause" id="clause-{{.ID}}" data-area="{{.Area}}">
<h3>{{.ID}} <span class="meta">({{.Level}}{{if .Core}}; core{{end}}; {{.Provenance}}) spec/{{.File}}</span></h3>
<p>{{.Text}}</p>
<p class="meta">Scenarios: {{range $i, $s := .Scenarios}}{{if $i}}, {{end}}<code>{{$s}}</code>{{else}}none{{end}}</p>
</div>
{{end}}

<h2 id="failures">Failures</h2>
{{range .Rows}}<h3 id="failures-{{.ID}}">{{.ID}}: {{.Label}}</h3>
{{range .Failures}}<div class="failure" id="{{.Anchor}}">
<p><code>{{.Scenario}}</code> {{.Outcome}}{{if .Line}} at line {{.Line}}{{end}}; clauses {{range .Clauses}}<a href="#clause-{{.}}">{{.}}</a> {{end}}</p>
<pre>{{.Message}}</pre>
{{if .Reproduce}}<p>Reproduce: <code>{{.Reproduce}}</code></p>{{end}}
</div>
{{else}}<p>No scenario failed or errored.</p>
{{end}}{{end}}

<script>
"use strict";
(function () {
  const area = document.getElementById("filter-area");
  const profile = document.getElementById("filter-profile");
  const outcome = document.getElementById("filter-outcome");
  const shown = document.getElementById("shown");
  const rows = Array.from(document.querySelectorAll("tr.clause-row"));
  function apply() {
    const p = profile.value;
    const showRun = (el) => p === "all" || el.dataset.profile === p;
    document.querySelectorAll("#matrix [data-report], tr.impl").forEach((el) => { el.hidden = !showRun(el); });
    let n = 0;
    rows.forEach((tr) => {
      let ok = (area.value === "all" || tr.dataset.area === area.value) && (p !== "core" || tr.dataset.core === "true");
      if (ok && outcome.value !== "any") {
        ok = Array.from(tr.querySelectorAll("td.cell")).some((td) => !td.hidden && td.dataset.outcome === outcome.value);
      }
      tr.hidden = !ok;
      if (ok) n++;
    });
    shown.textContent = n + " of " + rows.length + " clauses shown";
  }
  [area, profile, outcome].forEach((s) => s.addEventListener("change", apply));
  apply();
})();
</script>
</body>
</html>
`))
