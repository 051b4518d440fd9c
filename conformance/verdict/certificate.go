package verdict

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/protocol"
)

// Certificate is the outcome of a certification run. An implementation is
// certified when every MUST scenario — every scenario citing at least one
// MUST clause — ran and passed: a MUST scenario skipped because the
// implementation does not declare a capability it needs, or not run at
// all, denies certification just as a failure does (Kubernetes
// conformance forbids skipping required tests). A scenario that skips
// itself because it does not apply (one written for implementations
// without a capability, run against one that has it) is not applicable and
// denies nothing. Scenarios citing only SHOULD and MAY clauses are reported
// but never deny it. An expectation ledger never turns a failure into a
// pass here.
//
// A MUST scenario left inconclusive (the machine, not the implementation,
// missed a time bound in every attempt: suite.Inconclusive) neither
// passes nor denies: when nothing denies, certification is withheld
// (Certified false, Inconclusive listing them) until a run on a quieter
// machine decides. An inconclusive SHOULD or MAY scenario is a note.
type Certificate struct {
	Certified bool `json:"certified"`
	// Profile is the profile certified: the certificate speaks for its
	// clauses and scenarios only.
	Profile        suite.Profile           `json:"profile"`
	Implementation protocol.Implementation `json:"implementation"`
	Capabilities   []string                `json:"capabilities"`
	Kit            string                  `json:"kit"`
	Suite          string                  `json:"suite"`
	Date           time.Time               `json:"date"`
	Totals         CertificateTotals       `json:"totals"`
	// Denied lists why certification was denied: MUST scenarios that
	// failed, errored, were skipped or did not run.
	Denied []string `json:"denied,omitempty"`
	// Inconclusive lists the MUST scenarios left inconclusive, with the
	// evidence: while any is, certification is withheld, neither granted
	// nor denied (Withheld).
	Inconclusive []string `json:"inconclusive,omitempty"`
	// Notes lists SHOULD and MAY scenarios that did not pass, and
	// scenarios that skipped themselves as not applicable.
	Notes []string `json:"notes,omitempty"`
	// Shard, when set, is the shard of the suite ("2/4") whose scenarios
	// alone the certificate judges: it certifies nothing by itself (the
	// certificate comes from merging every shard's report), and only its
	// denials count (see [Judge]).
	Shard string `json:"shard,omitempty"`
}

// CertificateTotals are the counts a certificate states.
type CertificateTotals struct {
	Passed        int `json:"passed"`
	Failed        int `json:"failed"`
	Errored       int `json:"errored"`
	Skipped       int `json:"skipped"`
	Inconclusive  int `json:"inconclusive,omitempty"`
	Total         int `json:"total"`
	MustTotal     int `json:"mustScenarios"` // applicable ones
	MustPassed    int `json:"mustPassed"`
	NotApplicable int `json:"notApplicable"`
	MustClauses   int `json:"mustClauses"`
	MustVerified  int `json:"mustClausesVerified"`
}

// MustClauses returns the IDs of the MUST clauses among clauses.
func MustClauses(clauses []suite.Clause) map[string]bool {
	must := map[string]bool{}
	for _, c := range clauses {
		if c.Level == "MUST" {
			must[c.ID] = true
		}
	}
	return must
}

// Certify decides certification for a run of the whole suite under the
// report's profile. scenarios is every scenario of the suite, so that one of
// the profile missing from results (not run) is noticed; clauses is the
// spec. Only the profile's scenarios and clauses count: under Core, the
// core scenarios and the core MUST clauses. A MUST clause is verified
// when every scenario citing it passed.
func Certify(rep *Report, scenarios []suite.Scenario, clauses []suite.Clause, date time.Time) Certificate {
	profile := rep.Profile.OrDefault()
	scenarios = profile.Scenarios(scenarios)
	must := MustClauses(profile.Clauses(clauses))
	caps := rep.Capabilities
	if caps == nil {
		caps = []string{}
	}
	c := Certificate{Profile: profile, Implementation: rep.Implementation, Capabilities: caps, Kit: rep.Kit,
		Suite: rep.Suite, Date: date.UTC().Truncate(time.Second)}
	declared := map[string]bool{}
	for _, c := range rep.Capabilities {
		declared[c] = true
	}
	byName := map[string]suite.Result{}
	for _, r := range rep.Results {
		byName[r.Scenario.Name] = r
	}
	t := suite.Count(rep.Results)
	c.Totals = CertificateTotals{Passed: t.Passed, Failed: t.Failed, Errored: t.Errored, Skipped: t.Skipped,
		Inconclusive: t.Inconclusive, Total: t.Total()}
	clauseOK := map[string]bool{}
	for _, s := range scenarios {
		var cited []string
		for _, id := range s.Clauses {
			if must[id] {
				cited = append(cited, id)
			}
		}
		r, ran := byName[s.Name]
		passed := ran && r.Outcome == suite.Passed
		// A scenario that skipped itself, needing nothing undeclared and
		// not stopped by --max-fail, decided it does not apply.
		if ran && r.Outcome == suite.Skipped && len(s.Missing(declared)) == 0 && !strings.HasPrefix(r.Message, "not run:") {
			c.Totals.NotApplicable++
			c.Notes = append(c.Notes, fmt.Sprintf("%s (%s) not applicable: %s", s.Name, strings.Join(s.Clauses, " "), r.Message))
			continue
		}
		for _, id := range cited {
			if _, seen := clauseOK[id]; !seen {
				clauseOK[id] = true
			}
			clauseOK[id] = clauseOK[id] && passed
		}
		why := ""
		switch {
		case !ran:
			why = "did not run"
		case r.Outcome == suite.Skipped:
			why = "skipped: " + r.Message
		case r.Outcome != suite.Passed:
			why = string(r.Outcome) + ": " + clip(firstLine(CleanMessage(r.Message)), maxReasonRunes)
		}
		if len(cited) == 0 {
			if why != "" && ran && r.Outcome != suite.Skipped {
				c.Notes = append(c.Notes, fmt.Sprintf("%s (%s) %s", s.Name, strings.Join(s.Clauses, " "), why))
			}
			continue
		}
		c.Totals.MustTotal++
		if passed {
			c.Totals.MustPassed++
			continue
		}
		if ran && r.Outcome == suite.Inconclusive {
			c.Inconclusive = append(c.Inconclusive, fmt.Sprintf("%s (MUST %s) %s", s.Name, strings.Join(cited, " "),
				clip(firstLine(CleanMessage(r.Message)), maxReasonRunes)))
			continue
		}
		c.Denied = append(c.Denied, fmt.Sprintf("%s (MUST %s) %s", s.Name, strings.Join(cited, " "), why))
	}
	c.Totals.MustClauses = len(must)
	for _, ok := range clauseOK {
		if ok {
			c.Totals.MustVerified++
		}
	}
	sort.Strings(c.Denied)
	sort.Strings(c.Inconclusive)
	sort.Strings(c.Notes)
	c.Certified = len(c.Denied) == 0 && len(c.Inconclusive) == 0 && c.Totals.MustTotal > 0
	return c
}

// WriteText writes the certificate for people.
func (c Certificate) WriteText(w io.Writer) error {
	var b strings.Builder
	verdict := "CERTIFIED"
	switch {
	case c.Withheld():
		verdict = "WITHHELD (inconclusive: rerun on a quieter machine)"
	case !c.Certified:
		verdict = "NOT CERTIFIED"
	}
	fmt.Fprintf(&b, "apexcheck certificate: %s\n\n", verdict)
	fmt.Fprintf(&b, "implementation  %s %s (%s)\n", c.Implementation.Name, c.Implementation.Version, c.Implementation.Language)
	if c.Implementation.Homepage != "" {
		fmt.Fprintf(&b, "homepage        %s\n", c.Implementation.Homepage)
	}
	fmt.Fprintf(&b, "capabilities    %s\n", strings.Join(c.Capabilities, " "))
	fmt.Fprintf(&b, "kit             apexcheck %s\n", c.Kit)
	fmt.Fprintf(&b, "suite           %s\n", c.Suite)
	fmt.Fprintf(&b, "profile         %s\n", c.Profile.OrDefault())
	fmt.Fprintf(&b, "date            %s\n", c.Date.Format(time.RFC3339))
	fmt.Fprintf(&b, "scenarios       %d passed, %d failed, %d errored, %d skipped", c.Totals.Passed, c.Totals.Failed, c.Totals.Errored, c.Totals.Skipped)
	if c.Totals.Inconclusive > 0 {
		fmt.Fprintf(&b, ", %d inconclusive", c.Totals.Inconclusive)
	}
	fmt.Fprintf(&b, " of %d\n", c.Totals.Total)
	fmt.Fprintf(&b, "MUST scenarios  %d of %d ran and passed", c.Totals.MustPassed, c.Totals.MustTotal)
	if c.Totals.NotApplicable > 0 {
		fmt.Fprintf(&b, " (%d scenarios not applicable)", c.Totals.NotApplicable)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "MUST clauses    %d of %d verified by passing scenarios\n", c.Totals.MustVerified, c.Totals.MustClauses)
	if len(c.Denied) > 0 {
		b.WriteString("\ndenied by:\n")
		for _, d := range c.Denied {
			fmt.Fprintf(&b, "  %s\n", d)
		}
	}
	if len(c.Inconclusive) > 0 {
		b.WriteString("\nwithheld by (inconclusive: the machine, not the implementation, missed a time bound in every attempt):\n")
		for _, d := range c.Inconclusive {
			fmt.Fprintf(&b, "  %s\n", d)
		}
	}
	if len(c.Notes) > 0 {
		b.WriteString("\nnot denying certification (SHOULD/MAY scenarios not passed, scenarios not applicable):\n")
		for _, n := range c.Notes {
			fmt.Fprintf(&b, "  %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("write certificate: %w", err)
	}
	return nil
}

// Withheld reports whether certification is withheld: nothing denies it,
// but a MUST scenario stayed inconclusive, so the run decides neither way.
func (c Certificate) Withheld() bool { return len(c.Denied) == 0 && len(c.Inconclusive) > 0 }

// WriteJSON writes the certificate as indented JSON.
func (c Certificate) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return fmt.Errorf("write certificate: %w", err)
	}
	return nil
}

// maxReasonRunes bounds a denial's reason in a certificate: a failure may
// quote megabytes of output, which belong in the reports, not in a
// certificate a person reads.
const maxReasonRunes = 240

// clip shortens s to at most n runes, marking a cut with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
