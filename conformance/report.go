package conformance

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apexcheck/apexcheck/protocol"
)

// Report is everything the report writers (JSON Lines, JUnit, Markdown,
// annotations, badge) need about one run.
type Report struct {
	// Kit is the apexcheck version; Suite the digest of the scenario suite
	// (SuiteDigest).
	Kit   string
	Suite string
	// Profile is the profile the run certifies (empty: Apex).
	Profile Profile
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
	Results   []Result
	// Ledger, when set, classifies failures as expected or not.
	Ledger *Ledger
	// Clauses, when set, give failures the text of the clauses their
	// scenario proves; Scripts, the scenario files, give them the line
	// that failed.
	Clauses []Clause
	Scripts fs.FS
	// SetupError, when set, is why the run could not start: the
	// implementation did not start or did not complete the handshake. The
	// report then has no results, and every writer says so.
	SetupError *SetupError
	// RerunFlags are flags of the run that a rerun of one scenario must
	// repeat to behave the same (a --bound, a --profile), in order.
	RerunFlags []string
}

// Totals counts outcomes. The four are kept apart: a skip is never a pass.
type Totals struct {
	Passed, Failed, Errored, Skipped int
}

// Add counts one outcome.
func (t *Totals) Add(o Outcome) {
	switch o {
	case Passed:
		t.Passed++
	case Failed:
		t.Failed++
	case Errored:
		t.Errored++
	case Skipped:
		t.Skipped++
	}
}

// Total is the number of scenarios counted, skipped ones included.
func (t Totals) Total() int { return t.Passed + t.Failed + t.Errored + t.Skipped }

// Ran is the number of scenarios that ran: skipped ones excluded.
func (t Totals) Ran() int { return t.Passed + t.Failed + t.Errored }

// PassPercent is the share of the scenarios that ran which passed, in
// percent, rounded down; 0 when none ran. Skips are in neither the
// numerator nor the denominator, so they can never raise it.
func (t Totals) PassPercent() int {
	if t.Ran() == 0 {
		return 0
	}
	return t.Passed * 100 / t.Ran()
}

// String is "P passed, F failed, E errored, S skipped".
func (t Totals) String() string {
	return fmt.Sprintf("%d passed, %d failed, %d errored, %d skipped", t.Passed, t.Failed, t.Errored, t.Skipped)
}

// Count totals results.
func Count(results []Result) Totals {
	var t Totals
	for _, r := range results {
		t.Add(r.Outcome)
	}
	return t
}

// AreaTotals are the totals of one area.
type AreaTotals struct {
	Area string
	Totals
}

// CountByArea totals results per area, sorted by area.
func CountByArea(results []Result) []AreaTotals {
	byArea := map[string]*Totals{}
	for _, r := range results {
		if byArea[r.Scenario.Area] == nil {
			byArea[r.Scenario.Area] = &Totals{}
		}
		byArea[r.Scenario.Area].Add(r.Outcome)
	}
	out := make([]AreaTotals, 0, len(byArea))
	for a, t := range byArea {
		out = append(out, AreaTotals{Area: a, Totals: *t})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Area < out[j].Area })
	return out
}

// SuiteDigest identifies a scenario suite: "sha256:" and the hex SHA-256
// over every scenario (*.txtar) and every data file scenarios read (*.json,
// such as the permission corpus) under dir of fsys, subdirectories
// included, sorted by path, each contributing its path relative to dir, a
// NUL, its length in decimal, a NUL and its bytes. Any change to any of
// them, or one added or removed, changes it; nothing else does.
// Certificates are pinned to it; ledger entries to the same digest over
// their scenario alone (ScenarioDigests).
func SuiteDigest(fsys fs.FS, dir string) (string, error) {
	var names []string
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".txtar") || strings.HasSuffix(p, ".json")) {
			names = append(names, p)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("suite digest: %w", err)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		data, err := fs.ReadFile(fsys, n)
		if err != nil {
			return "", fmt.Errorf("suite digest: %w", err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(n, dir), "/")
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(data))
		h.Write(data)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// ShortDigest abbreviates a suite digest for people: "sha256:" and 12 hex
// digits.
func ShortDigest(d string) string {
	if len(d) > len("sha256:")+12 {
		return d[:len("sha256:")+12]
	}
	return d
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
func (rep *Report) Message(r Result) string { return rep.ShippedPaths(r.Scenario, r.Message) }

// ShippedPaths replaces the temporary directory in the failure lines of
// text (a message or a log) of scenario s with the directory s ships in.
func (rep *Report) ShippedPaths(s Scenario, text string) string {
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
func FailingLine(r Result) int {
	m := failLine.FindStringSubmatch(r.Message)
	if m == nil || m[1] != r.Scenario.Name {
		return 0
	}
	n, _ := strconv.Atoi(m[2])
	return n
}

// ScenarioFile is the path of r's scenario file relative to the repository
// root, as annotations and JUnit name it.
func (rep *Report) ScenarioFile(s Scenario) string {
	dir := rep.ScriptDir
	if dir == "" {
		dir = "testdata/scripts"
	}
	return path.Join(dir, s.Name+".txtar")
}

// Reproduce is the command that reruns one scenario verbosely against the
// same implementation.
func (rep *Report) Reproduce(s Scenario) string {
	var b strings.Builder
	b.WriteString("apexcheck")
	if p := rep.Profile.OrDefault(); p != Apex {
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
func NotPassing(results []Result) []Result {
	var out []Result
	for _, r := range results {
		if r.Outcome == Failed || r.Outcome == Errored {
			out = append(out, r)
		}
	}
	return out
}
