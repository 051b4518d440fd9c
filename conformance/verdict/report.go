package verdict

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/protocol"
)

// Report is everything the report writers (JSON Lines, JUnit, Markdown,
// annotations, badge) need about one run.
type Report struct {
	// Kit is the apexcheck version; Suite the digest of the scenario suite
	// ([suite.Digest]).
	Kit   string
	Suite string
	// Profile is the profile the run certifies (empty: Apex).
	Profile suite.Profile
	// Implementation and Capabilities are what the handshake declared.
	Implementation protocol.Implementation
	Capabilities   []string
	// Command is the --impl command line as the user gave it; empty for the
	// embedded reference. It makes reproduction commands copy-pasteable.
	Command string
	// ScriptDir is the directory of the scenario files relative to the
	// repository root, for annotations and file attributes
	// ("testdata/scripts").
	ScriptDir string
	Started   time.Time
	Duration  time.Duration
	Results   []suite.Result
	// Ledger, when set, classifies failures as expected or not.
	Ledger *Ledger
	// Clauses, when set, give failures the text of the clauses their
	// scenario proves; Scripts, the scenario files, give them the line
	// that failed.
	Clauses []suite.Clause
	Scripts fs.FS
	// SetupError, when set, is why the run could not start: the
	// implementation did not start or did not complete the handshake. The
	// report then has no results, and every writer says so.
	SetupError *SetupError
	// RerunFlags are flags of the run that a rerun of one scenario must
	// repeat to behave the same (a --bound, a --profile), in order.
	RerunFlags []string
}

// failLine matches testscript's failure line, "FAIL: <file>.txtar:<line>:".
var failLine = regexp.MustCompile(`FAIL: \S*?([^/\s]+)\.txtar:(\d+):`)

// failDir matches the temporary directory in testscript's failure line.
var failDir = regexp.MustCompile(`FAIL: \S*/([^/\s]+\.txtar:\d+:)`)

// CleanMessage drops the temporary directory the runner extracted the
// scenarios to from failure lines ("FAIL: /tmp/apexcheck-scenarios-…/x.txtar:5:"
// becomes "FAIL: x.txtar:5:"): it differs on every run and helps no reader.
func CleanMessage(msg string) string {
	return failDir.ReplaceAllString(msg, "FAIL: $1")
}

// Message is r's message with the temporary directory in its failure line
// replaced by the scenario's path as shipped: "FAIL:
// testdata/scripts/x.txtar:5: …", which a reader can open.
func (rep *Report) Message(r suite.Result) string { return rep.ShippedPaths(r.Scenario, r.Message) }

// ShippedPaths replaces the temporary directory in the failure lines of
// text (a message or a log) of scenario s with the directory s ships in.
func (rep *Report) ShippedPaths(s suite.Scenario, text string) string {
	dir := path.Dir(rep.ScenarioFile(s))
	return failDir.ReplaceAllStringFunc(text, func(m string) string {
		return "FAIL: " + path.Join(dir, failDir.FindStringSubmatch(m)[1])
	})
}

// MaxLog bounds the log a report or terminal shows for one scenario: the
// end of a log (the failed command and its diff) is what a reader needs,
// and a scenario that prints 100 000 lines must not bury the rest.
const MaxLog = 32 << 10

// LogTail returns log cut to its last max bytes, starting at a line, with
// a first line saying how much was left out.
func LogTail(log string, max int) string {
	if len(log) <= max {
		return log
	}
	tail := log[len(log)-max:]
	if i := strings.IndexByte(tail, '\n'); i >= 0 {
		tail = tail[i+1:]
	}
	return fmt.Sprintf("[… %d bytes of the log left out …]\n%s", len(log)-len(tail), tail)
}

// FailingLine returns the line of the scenario file at which r failed, or
// 0 when its message names none (a runner panic, a skipped scenario).
func FailingLine(r suite.Result) int {
	m := failLine.FindStringSubmatch(r.Message)
	if m == nil || m[1] != r.Scenario.Name {
		return 0
	}
	n, _ := strconv.Atoi(m[2])
	return n
}

// ScenarioFile is the path of r's scenario file relative to the repository
// root, as annotations and JUnit name it.
func (rep *Report) ScenarioFile(s suite.Scenario) string {
	dir := rep.ScriptDir
	if dir == "" {
		dir = "testdata/scripts"
	}
	return path.Join(dir, s.Name+".txtar")
}

// Reproduce is the command that reruns one scenario verbosely against the
// same implementation.
func (rep *Report) Reproduce(s suite.Scenario) string {
	var b strings.Builder
	b.WriteString("apexcheck")
	if p := rep.Profile.OrDefault(); p != suite.Apex {
		b.WriteString(" --profile " + string(p))
	}
	switch {
	case strings.HasPrefix(rep.Command, "--"):
		// The implementation named by flags (--mcp CMD --mcp-mapping M),
		// already quoted for a shell.
		b.WriteString(" " + rep.Command)
	case rep.Command != "":
		b.WriteString(" --impl " + ShellQuote(rep.Command))
	}
	for _, f := range rep.RerunFlags {
		b.WriteString(" " + ShellQuote(f))
	}
	b.WriteString(" --run " + ShellQuote("^"+regexp.QuoteMeta(s.Name)+"$") + " -v")
	return b.String()
}

// ShellQuote quotes s for a POSIX shell: as it is when it holds only
// characters no shell treats specially, else in single quotes.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// NotPassing returns the results that failed or errored, in order.
func NotPassing(results []suite.Result) []suite.Result {
	var out []suite.Result
	for _, r := range results {
		if r.Outcome == suite.Failed || r.Outcome == suite.Errored {
			out = append(out, r)
		}
	}
	return out
}
