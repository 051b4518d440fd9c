package verdict

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/apexcheck/apexcheck/conformance/suite"
)

// JUnit XML, in the shape CI systems (GitHub test reporters, GitLab,
// Jenkins) read: one <testsuite> per area, one <testcase> per scenario, a
// <failure> for a failed scenario, an <error> for an errored one and a
// <skipped message="…"> for a skipped one. With a ledger, an expected
// failure is reported as skipped ("expected failure (CLAUSE): reason"),
// as pytest reports xfail, and a listed scenario that passed as a failure;
// each testcase's <properties> keep the apexcheck outcome itself.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string          `xml:"name,attr"`
		Tests      int             `xml:"tests,attr"`
		Failures   int             `xml:"failures,attr"`
		Errors     int             `xml:"errors,attr"`
		Skipped    int             `xml:"skipped,attr"`
		Time       string          `xml:"time,attr"`
		Timestamp  string          `xml:"timestamp,attr,omitempty"`
		Properties []junitProperty `xml:"properties>property"`
		Cases      []junitCase     `xml:"testcase"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Name       string          `xml:"name,attr"`
		Classname  string          `xml:"classname,attr"`
		File       string          `xml:"file,attr,omitempty"`
		Line       int             `xml:"line,attr,omitempty"`
		Time       string          `xml:"time,attr"`
		Properties []junitProperty `xml:"properties>property,omitempty"`
		Failure    *junitMessage   `xml:"failure"`
		Error      *junitMessage   `xml:"error"`
		Skipped    *junitMessage   `xml:"skipped"`
		SystemOut  string          `xml:"system-out,omitempty"`
	}
	junitMessage struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr,omitempty"`
		Text    string `xml:",chardata"`
	}
)

func seconds(d interface{ Seconds() float64 }) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// WriteJUnit writes the report as JUnit XML. Characters XML cannot carry
// (most control characters, which command output may hold) become U+FFFD.
func (rep *Report) WriteJUnit(w io.Writer) error {
	impl := strings.TrimSpace(rep.Implementation.Name + " " + rep.Implementation.Version)
	props := []junitProperty{
		{"kit", rep.Kit}, {"suite", rep.Suite}, {"profile", string(rep.Profile.OrDefault())}, {"implementation", impl},
		{"capabilities", strings.Join(rep.Capabilities, " ")},
	}
	if rep.Command != "" {
		props = append(props, junitProperty{"command", rep.Command})
	}
	if rep.Ledger != nil {
		props = append(props, junitProperty{"ledger", rep.Ledger.Path})
	}
	root := junitSuites{Name: "apexcheck " + impl + " (profile " + string(rep.Profile.OrDefault()) + ")", Time: seconds(rep.Duration)}
	byArea := map[string]int{}
	for _, r := range rep.Results {
		i, ok := byArea[r.Scenario.Area]
		if !ok {
			i = len(root.Suites)
			byArea[r.Scenario.Area] = i
			root.Suites = append(root.Suites, junitSuite{Name: r.Scenario.Area, Properties: props,
				Timestamp: rep.Started.UTC().Format("2006-01-02T15:04:05")})
		}
		suite := &root.Suites[i]
		c := rep.junitCase(r)
		suite.Cases = append(suite.Cases, c)
		suite.Tests++
		switch {
		case c.Failure != nil:
			suite.Failures++
		case c.Error != nil:
			suite.Errors++
		case c.Skipped != nil:
			suite.Skipped++
		}
	}
	if e := rep.SetupError; e != nil {
		root.Suites = append(root.Suites, junitSuite{Name: "setup", Properties: props, Tests: 1, Errors: 1,
			Timestamp: rep.Started.UTC().Format("2006-01-02T15:04:05"),
			Cases: []junitCase{{Name: "handshake", Classname: "setup", Time: "0.000",
				Error: &junitMessage{Message: e.setupSummary(), Type: "setup", Text: e.Text()}}}})
	}
	for i := range root.Suites {
		s := &root.Suites[i]
		var total float64
		for _, c := range s.Cases {
			var f float64
			fmt.Sscan(c.Time, &f)
			total += f
		}
		s.Time = fmt.Sprintf("%.3f", total)
		root.Tests += s.Tests
		root.Failures += s.Failures
		root.Errors += s.Errors
		root.Skipped += s.Skipped
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("write JUnit report: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(root); err != nil {
		return fmt.Errorf("write JUnit report: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("write JUnit report: %w", err)
	}
	return nil
}

func (rep *Report) junitCase(r suite.Result) junitCase {
	c := junitCase{Name: r.Scenario.Name, Classname: "apexcheck." + r.Scenario.Area,
		File: rep.ScenarioFile(r.Scenario), Time: seconds(r.Duration),
		Properties: []junitProperty{{"outcome", string(r.Outcome)}, {"clauses", strings.Join(r.Scenario.Clauses, " ")}}}
	summary := firstLine(r.Message)
	detail := r.Message
	if r.Outcome == suite.Failed || r.Outcome == suite.Errored {
		c.Line = FailingLine(r)
		f := rep.Failure(r)
		summary = f.Location + ": " + f.Message
		detail = f.Text()
		c.SystemOut = LogTail(r.Log, MaxLog)
	}
	st, e := rep.Ledger.Classify(r)
	if rep.Ledger != nil && st != None {
		c.Properties = append(c.Properties, junitProperty{"expectation", string(st)})
	}
	switch {
	case st == StaleExpectation:
		c.Failure = &junitMessage{Type: string(StaleExpectation), Message: e.Stale(), Text: detail}
	case st == ExpectedFailure:
		c.Skipped = &junitMessage{Message: fmt.Sprintf("expected failure (%s): %s", e.Clause, e.Reason), Text: detail}
	case st == UnexpectedPass:
		c.Failure = &junitMessage{Type: "unexpected-pass",
			Message: fmt.Sprintf("passed, but the ledger expects it to fail (%s: %s): remove it from the ledger", e.Clause, e.Reason)}
	case r.Outcome == suite.Failed:
		c.Failure = &junitMessage{Type: "failed", Message: summary, Text: detail}
	case r.Outcome == suite.Errored:
		c.Error = &junitMessage{Type: "errored", Message: summary, Text: detail}
	case r.Outcome == suite.Skipped:
		c.Skipped = &junitMessage{Message: r.Message}
	case r.Outcome == suite.Inconclusive:
		// JUnit knows no third outcome; a skip is neither pass nor
		// failure, and the message says which this is.
		c.Skipped = &junitMessage{Message: "inconclusive: " + strings.TrimPrefix(r.Message, "inconclusive: ")}
	}
	return c
}
