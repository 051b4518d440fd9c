package verdict

import (
	"fmt"
	"io"
	"strings"

	"github.com/apexcheck/apexcheck/conformance/suite"
)

// WriteMarkdown writes the report as GitHub-flavoured Markdown, for a CI
// step summary ($GITHUB_STEP_SUMMARY): the totals, a table per area, then
// every failure with its message and reproduction command. Skips are
// counted in their own column and never in the pass percentage.
func (rep *Report) WriteMarkdown(w io.Writer) error {
	b := &strings.Builder{}
	t := suite.Count(rep.Results)
	impl := strings.TrimSpace(rep.Implementation.Name + " " + rep.Implementation.Version)
	fmt.Fprintf(b, "## apexcheck %s: %s (profile %s)\n\n", rep.Kit, impl, rep.Profile.OrDefault())
	if e := rep.SetupError; e != nil {
		fmt.Fprintf(b, "**Setup error: no scenario ran.** %s\n\n", e.setupSummary())
		fmt.Fprintf(b, "```\n%s\n```\n", e.Text())
		_, err := io.WriteString(w, b.String())
		if err != nil {
			return fmt.Errorf("write Markdown report: %w", err)
		}
		return nil
	}
	fmt.Fprintf(b, "**%s** of %d scenarios", t, t.Total())
	if t.Ran() > 0 {
		fmt.Fprintf(b, " (%d%% of the %d that ran passed; skips are not passes)", t.PassPercent(), t.Ran())
	}
	b.WriteString("\n\n")
	fmt.Fprintf(b, "Suite `%s`, capabilities: %s.\n\n", rep.Suite, codeList(rep.Capabilities))

	b.WriteString("| area | passed | failed | errored | skipped |\n|------|-------:|-------:|--------:|--------:|\n")
	for _, a := range suite.CountByArea(rep.Results) {
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d |\n", a.Area, a.Passed, a.Failed, a.Errored, a.Skipped)
	}
	fmt.Fprintf(b, "| **total** | **%d** | **%d** | **%d** | **%d** |\n\n", t.Passed, t.Failed, t.Errored, t.Skipped)

	v := rep.Ledger.Evaluate(rep.Results)
	if rep.Ledger != nil {
		verdict := "matches the ledger"
		if !v.OK() {
			verdict = "does **not** match the ledger"
		}
		fmt.Fprintf(b, "Expectation ledger `%s`: the run %s (%d expected failures, %d unexpected failures, %d listed scenarios now passing",
			rep.Ledger.Path, verdict, len(v.Expected), len(v.Unexpected), len(v.Fixed))
		if len(v.FlakyPass) > 0 {
			fmt.Fprintf(b, ", %d listed as flaky passed this time", len(v.FlakyPass))
		}
		if len(v.Stale) > 0 {
			fmt.Fprintf(b, ", %d entries reviewed against an older version of their scenario", len(v.Stale))
		}
		b.WriteString(").\n\n")
	}
	if len(v.Unexpected) > 0 {
		title := "Failures"
		if rep.Ledger != nil {
			title = "Unexpected failures"
		}
		fmt.Fprintf(b, "### %s\n\n", title)
		for _, r := range v.Unexpected {
			rep.markdownFailure(b, r, "")
		}
	}
	if len(v.Fixed) > 0 {
		b.WriteString("### Listed in the ledger, but passing\n\nRemove these entries from the ledger: the ratchet keeps fixed behaviour fixed.\n\n")
		for _, r := range v.Fixed {
			e := rep.Ledger.Lookup(r.Scenario.Name)
			fmt.Fprintf(b, "- `%s` (%s): %s\n", r.Scenario.Name, e.Clause, e.Reason)
		}
		b.WriteString("\n")
	}
	if len(v.Stale) > 0 {
		b.WriteString("### Ledger entries to review\n\nEach was reviewed against another version of its scenario: review it and repin it (`--write-expect`).\n\n")
		for _, e := range v.Stale {
			fmt.Fprintf(b, "- `%s` (%s): %s\n", e.Scenario, e.Clause, e.Stale())
		}
		b.WriteString("\n")
	}
	if len(v.Expected) > 0 {
		b.WriteString("### Expected failures\n\n")
		for _, r := range v.Expected {
			e := rep.Ledger.Lookup(r.Scenario.Name)
			rep.markdownFailure(b, r, fmt.Sprintf("%s: %s", e.Clause, e.Reason))
		}
	}
	var skipped []suite.Result
	for _, r := range rep.Results {
		if r.Outcome == suite.Skipped {
			skipped = append(skipped, r)
		}
		if r.Outcome == suite.Inconclusive {
			fmt.Fprintf(b, "- **inconclusive** `%s` (%s): %s\n", r.Scenario.Name, strings.Join(r.Scenario.Clauses, " "), r.Message)
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(b, "<details><summary>%d skipped</summary>\n\n", len(skipped))
		for _, r := range skipped {
			fmt.Fprintf(b, "- `%s` (%s): %s\n", r.Scenario.Name, strings.Join(r.Scenario.Clauses, " "), r.Message)
		}
		b.WriteString("\n</details>\n")
	}
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("write Markdown report: %w", err)
	}
	return nil
}

func (rep *Report) markdownFailure(b *strings.Builder, r suite.Result, expected string) {
	fmt.Fprintf(b, "<details><summary><code>%s</code> %s (%s)", r.Scenario.Name, r.Outcome, strings.Join(r.Scenario.Clauses, " "))
	if expected != "" {
		fmt.Fprintf(b, ": %s", htmlEscape(expected))
	}
	b.WriteString("</summary>\n\n")
	fmt.Fprintf(b, "%s\n\n", htmlEscape(r.Scenario.Summary))
	msg := strings.TrimSpace(rep.Failure(r).Text())
	fence := "```"
	for strings.Contains(msg, fence) {
		fence += "`"
	}
	fmt.Fprintf(b, "%s\n%s\n%s\n\n", fence, msg, fence)
	fmt.Fprintf(b, "Reproduce: `%s`\n\n</details>\n\n", rep.Reproduce(r.Scenario))
}

func codeList(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	return "`" + strings.Join(items, "`, `") + "`"
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
