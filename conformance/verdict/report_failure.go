package verdict

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"

	"github.com/apexcheck/apexcheck/conformance/suite"
)

// Failure is what a porter needs to act on one scenario that failed or
// errored: where it failed, in the scenario as shipped; which clauses it
// proves; what was expected and what came; what the implementation said
// on stderr; and the command that reruns it alone. Every report shows it.
type Failure struct {
	Name    string        `json:"name"`
	Outcome suite.Outcome `json:"outcome"`
	// Location is the scenario's path as shipped and the failing line,
	// "testdata/scripts/exec_x.txtar:12" (no line when none is known),
	// never the temporary copy the runner ran.
	Location string `json:"location"`
	// Command is the scenario line that failed, when known.
	Command string `json:"command,omitempty"`
	// Clauses are the clauses the scenario proves, with their text.
	Clauses []ClauseRef `json:"clauses"`
	// Message says what went wrong, in one line.
	Message string `json:"message"`
	// Diff compares what was expected with what came, when the failed
	// check compared two texts: a unified or cmp.Diff line diff.
	Diff string `json:"diff,omitempty"`
	// Got is what came, when the failed check did not compare two texts:
	// the output a failed pattern was matched against (its tail), or the
	// text of an unexpected result.
	Got string `json:"got,omitempty"`
	// StderrTail is the end of the implementation's stderr, when the
	// scenario errored with something there.
	StderrTail string `json:"stderrTail,omitempty"`
	// Rerun is the command that reruns the scenario alone, verbosely.
	Rerun string `json:"rerun"`
	// WorkDir is the scenario's work directory, when kept (--keep-work).
	WorkDir string `json:"workDir,omitempty"`
}

// ClauseRef is a clause a scenario proves, as a failure shows it.
type ClauseRef struct {
	ID    string `json:"id"`
	Level string `json:"level,omitempty"`
	// Text is the clause's first sentence, shortened to one line.
	Text string `json:"text,omitempty"`
}

// Bounds on the parts of a failure, so that one scenario's 2000-line
// output cannot bury the rest of a report; -v and the JSON log carry all.
const (
	maxDiffLines = 40
	maxGotLines  = 15
	maxClauseLen = 110
)

// stderrMarker separates an errored scenario's message from the
// implementation's stderr (state.errored).
const stderrMarker = "\nimplementation stderr (tail):\n"

// failPrefix matches testscript's "FAIL: <dir>/<name>.txtar:<line>: ".
var failPrefix = regexp.MustCompile(`^FAIL: \S*?\.txtar:\d+: ?`)

// Failure describes r, which failed or errored.
func (rep *Report) Failure(r suite.Result) Failure {
	f := Failure{Name: r.Scenario.Name, Outcome: r.Outcome, Location: rep.ScenarioFile(r.Scenario),
		Rerun: rep.Reproduce(r.Scenario), WorkDir: r.WorkDir}
	line := FailingLine(r)
	if line > 0 {
		f.Location += fmt.Sprintf(":%d", line)
		f.Command = rep.sourceLine(r.Scenario, line)
	}
	for _, id := range r.Scenario.Clauses {
		f.Clauses = append(f.Clauses, rep.clauseRef(id))
	}
	msg, stderr, _ := strings.Cut(strings.TrimSpace(r.Message), stderrMarker)
	f.StderrTail = strings.TrimSpace(stderr)
	msg = failPrefix.ReplaceAllString(msg, "")
	msg = strings.TrimSpace(strings.TrimPrefix(msg, suite.ErroredTag))
	// A multi-line message is a summary and what is behind it: the text
	// command's diff, or what came ("call returned an error result:" and
	// its text).
	summary, rest, _ := strings.Cut(msg, "\n")
	f.Message = summary
	rest = strings.TrimRight(rest, "\n")
	if strings.HasPrefix(rest, "@@ ") || strings.HasPrefix(rest, "--- ") {
		f.Diff = capLines(rest, maxDiffLines, false)
	} else {
		f.Got = capLines(rest, maxGotLines, true)
	}
	if f.Message == "" {
		f.Message = string(r.Outcome)
	}
	diff, got := logDetail(r.Log, f.Command, f.Message)
	if f.Diff == "" {
		f.Diff = diff
	}
	if f.Got == "" {
		f.Got = got
	}
	return f
}

// sourceLine returns line n of s's file, when the report knows the suite.
func (rep *Report) sourceLine(s suite.Scenario, n int) string {
	if rep.Scripts == nil {
		return ""
	}
	data, err := fs.ReadFile(rep.Scripts, s.Path)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(data), "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[n-1])
}

// clauseRef looks up a clause's level and first sentence.
func (rep *Report) clauseRef(id string) ClauseRef {
	for _, c := range rep.Clauses {
		if c.ID == id {
			return ClauseRef{ID: id, Level: c.Level, Text: oneLine(c.Text, maxClauseLen)}
		}
	}
	return ClauseRef{ID: id}
}

// oneLine shortens text to its first sentence, and to max bytes at a
// word boundary.
func oneLine(text string, max int) string {
	text = strings.Join(strings.Fields(text), " ")
	code := false
	for i := 0; i+1 < len(text); i++ {
		if text[i] == '`' {
			code = !code
		}
		if !code && text[i] == '.' && text[i+1] == ' ' {
			text = text[:i+1]
			break
		}
	}
	if len(text) <= max {
		return text
	}
	cut := strings.LastIndexByte(text[:max], ' ')
	if cut <= 0 {
		cut = max
	}
	return text[:cut] + " …"
}

// logDetail finds in a scenario's log what the failing command compared:
// testscript's unified diff after a failed cmp, or, after a failed
// stdout or stderr pattern, the tail of the output the pattern was
// matched against.
func logDetail(log, command, message string) (diff, got string) {
	lines := strings.Split(log, "\n")
	end := len(lines)
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "FAIL:") {
			end = i
			break
		}
	}
	// The failing command's log line. Output without a final newline
	// runs into it ("…code 3> cmp stdout got"), hence the suffix match.
	start := -1
	for i := end - 1; i >= 0; i-- {
		if command != "" && strings.HasSuffix(lines[i], "> "+command) || command == "" && strings.HasPrefix(lines[i], "> ") {
			start = i
			break
		}
	}
	if start < 0 {
		return "", ""
	}
	for i := start + 1; i < end; i++ {
		if strings.HasPrefix(lines[i], "diff ") {
			return capLines(strings.TrimRight(strings.Join(lines[i+1:end], "\n"), "\n"), maxDiffLines, false), ""
		}
	}
	stream := ""
	switch {
	case strings.HasSuffix(message, "in stdout") || strings.Contains(message, "found in stdout"):
		stream = "[stdout]"
	case strings.HasSuffix(message, "in stderr") || strings.Contains(message, "found in stderr"):
		stream = "[stderr]"
	default:
		return "", ""
	}
	// The last block of that stream before the failing command, past the
	// assertions on it (they print nothing; any other command may have
	// replaced it).
	for i := start - 1; i >= 0; i-- {
		if cmd, ok := strings.CutPrefix(lines[i], "> "); ok {
			if !isAssertion(cmd) {
				return "", ""
			}
			continue
		}
		if lines[i] == stream {
			block := lines[i+1 : start+1]
			last := &block[len(block)-1]
			*last = strings.TrimSuffix(*last, "> "+command)
			for j, l := range block {
				if strings.HasPrefix(l, "[stderr]") || strings.HasPrefix(l, "> ") {
					block = block[:j]
					break
				}
			}
			return "", capLines(strings.TrimRight(strings.Join(block, "\n"), "\n"), maxGotLines, true)
		}
	}
	return "", ""
}

// isAssertion reports whether a scenario command only checks the last
// command's output, leaving it in place.
func isAssertion(cmd string) bool {
	name, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(cmd, "!")), " ")
	switch strings.TrimSpace(name) {
	case "stdout", "stderr", "field", "text", "cmp", "cmpenv", "exists", "grep":
		return true
	}
	return false
}

// capLines bounds s to max lines, keeping the head (or, with tail, the
// end) and saying how many were left out.
func capLines(s string, max int, tail bool) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= max {
		return s
	}
	left := fmt.Sprintf("[… %d more lines …]", len(lines)-max)
	if tail {
		return left + "\n" + strings.Join(lines[len(lines)-max:], "\n")
	}
	return strings.Join(lines[:max], "\n") + "\n" + left
}

// Text is the failure as plain text, the block every report shows:
//
//	at      testdata/scripts/exec_x.txtar:12: text 'hi\n'
//	see:    apexcheck show exec_x (the scenario as shipped)
//	error   text differs (-want +got):
//	proves  EXEC-1 (MUST) Output is exact.
//	diff    …
//	rerun   apexcheck --run '^exec_x$' -v
func (f Failure) Text() string {
	var b strings.Builder
	at := f.Location
	if f.Command != "" {
		at += ": " + f.Command
	}
	fmt.Fprintf(&b, "at:     %s\n", at)
	if f.Name != "" {
		// The path above exists only in a clone of the kit; the binary
		// that ran carries the scenario.
		fmt.Fprintf(&b, "see:    apexcheck show %s (the scenario as shipped)\n", f.Name)
	}
	fmt.Fprintf(&b, "%-7s %s\n", string(f.Outcome)+":", f.Message)
	for i, c := range f.Clauses {
		label := "proves:"
		if i > 0 {
			label = ""
		}
		fmt.Fprintf(&b, "%-7s %s", label, c.ID)
		if c.Level != "" {
			fmt.Fprintf(&b, " (%s)", c.Level)
		}
		if c.Text != "" {
			fmt.Fprintf(&b, " %s", c.Text)
		}
		b.WriteString("\n")
	}
	block := func(title, text string) {
		if text != "" {
			fmt.Fprintf(&b, "%s\n    %s\n", title, strings.ReplaceAll(text, "\n", "\n    "))
		}
	}
	block("diff:", f.Diff)
	block("got:", f.Got)
	block("implementation stderr (tail):", f.StderrTail)
	if f.WorkDir != "" {
		fmt.Fprintf(&b, "work directory kept: %s\n", f.WorkDir)
	}
	fmt.Fprintf(&b, "rerun:  %s\n", f.Rerun)
	return b.String()
}
