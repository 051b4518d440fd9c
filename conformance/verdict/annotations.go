package verdict

import (
	"fmt"
	"io"
	"strings"

	"github.com/apexcheck/apexcheck/conformance/suite"
)

// WriteAnnotations writes GitHub Actions workflow commands that annotate
// the scenario files: an error at the failing line of every unexpected
// failure, a notice for every expected one, and an error on the ledger for
// every listed scenario that now passes and every entry reviewed against
// an older version of its scenario, and a warning for every scenario left
// inconclusive. A scenario whose message names no
// line is annotated on the file as a whole.
//
// https://docs.github.com/actions/reference/workflow-commands-for-github-actions
func (rep *Report) WriteAnnotations(w io.Writer) error {
	var b strings.Builder
	if e := rep.SetupError; e != nil {
		annotate(&b, "error", "", 0, "apexcheck: "+e.setupSummary(), e.Text())
	}
	for _, r := range rep.Results {
		st, e := rep.Ledger.Classify(r)
		if r.Outcome == suite.Inconclusive {
			// Neither a pass nor a failure: a warning, with the evidence.
			annotate(&b, "warning", rep.ScenarioFile(r.Scenario), 0, fmt.Sprintf("apexcheck: %s inconclusive", r.Scenario.Name), r.Message)
			continue
		}
		switch st {
		case UnexpectedFailure:
			title := fmt.Sprintf("apexcheck: %s %s", r.Scenario.Name, r.Outcome)
			annotate(&b, "error", rep.ScenarioFile(r.Scenario), FailingLine(r), title, rep.Failure(r).Text())
		case ExpectedFailure:
			title := fmt.Sprintf("apexcheck: %s %s (expected, %s)", r.Scenario.Name, r.Outcome, e.Clause)
			annotate(&b, "notice", rep.ScenarioFile(r.Scenario), FailingLine(r), title, e.Reason)
		case UnexpectedPass:
			title := fmt.Sprintf("apexcheck: %s passes now", r.Scenario.Name)
			annotate(&b, "error", rep.Ledger.Path, 0, title,
				fmt.Sprintf("%s is listed as failing (%s: %s) but passed: remove its entry from the ledger", r.Scenario.Name, e.Clause, e.Reason))
		}
	}
	for _, e := range rep.Ledger.Evaluate(rep.Results).Stale {
		annotate(&b, "error", rep.Ledger.Path, 0, fmt.Sprintf("apexcheck: %s: stale ledger entry", e.Scenario), e.Stale())
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write annotations: %w", err)
	}
	return nil
}

// annotate writes one workflow command. Property values escape %, CR, LF,
// ':' and ','; the message escapes %, CR and LF.
func annotate(b *strings.Builder, level, file string, line int, title, msg string) {
	var props []string
	if file != "" {
		props = append(props, "file="+escapeProperty(file))
	}
	if line > 0 {
		props = append(props, fmt.Sprintf("line=%d", line))
	}
	props = append(props, "title="+escapeProperty(title))
	fmt.Fprintf(b, "::%s %s::%s\n", level, strings.Join(props, ","), escapeData(strings.TrimSpace(msg)))
}

func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
