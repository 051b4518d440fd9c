package script

import (
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// The commands below check the last result's text without fixing its
// wording, for the scenarios of the core profile: an implementation may
// frame its output in any words, so a core scenario asks only that the
// output is there (contains) and that the text is bounded (textsize).

// cmdContains asserts that the last result's text contains STRING, in
// which Go escapes (\n, \t, \xNN, \u…) stand for their characters as in
// text. Negated, it asserts the text does not contain it.
//
// With -if-result, a call that ended by its abort with no result
// (PROTO-24) passes: the check applies to the result when the tool gave
// one, as exec.md EXEC-27 asks of an aborted call.
func cmdContains(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	ifResult := len(args) > 0 && args[0] == "-if-result"
	if ifResult {
		args = args[1:]
	}
	if len(args) != 1 || args[0] == "" {
		ts.Fatalf("usage: contains [-if-result] STRING")
	}
	if ifResult && s.last != nil && s.last.Cancelled && s.last.Result == nil {
		ts.Logf("contains -if-result: the call ended with no result (cancelled, PROTO-24)")
		return
	}
	want, err := strconv.Unquote(`"` + strings.ReplaceAll(args[0], `"`, `\"`) + `"`)
	if err != nil {
		ts.Fatalf("contains: %q is not a valid escaped string: %v", args[0], err)
	}
	got := s.lastText("contains")
	switch has := strings.Contains(got, want); {
	case has && neg:
		ts.Fatalf("text contains %q, want it absent; text:\n%s", want, excerpt(got))
	case !has && !neg:
		ts.Fatalf("text does not contain %q; text:\n%s", want, excerpt(got))
	}
}

// cmdTextsize asserts the length in bytes of the last result's text:
// at most -max, at least -min.
func cmdTextsize(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	if neg {
		ts.Fatalf("textsize does not support negation: give -max or -min")
	}
	fs := newFlags(ts, "textsize")
	maxBytes := fs.Int("max", -1, "largest size allowed, in bytes")
	minBytes := fs.Int("min", -1, "smallest size allowed, in bytes")
	parseFlags(ts, fs, args)
	if fs.NArg() != 0 || (*maxBytes < 0 && *minBytes < 0) {
		ts.Fatalf("usage: textsize [-max BYTES] [-min BYTES]")
	}
	n := len(s.lastText("textsize"))
	ts.Logf("text is %d bytes", n)
	if *maxBytes >= 0 && n > *maxBytes {
		ts.Fatalf("text is %d bytes, want at most %d", n, *maxBytes)
	}
	if *minBytes >= 0 && n < *minBytes {
		ts.Fatalf("text is %d bytes, want at least %d", n, *minBytes)
	}
}

// lastText returns the last result's text, failing the scenario when no
// call has answered yet.
func (s *state) lastText(cmd string) string {
	if s.last != nil && s.last.Cancelled && s.last.Result == nil {
		s.ts.Fatalf("%s: the call ended by its abort with no result (cancelled, PROTO-24), so it has no text", cmd)
	}
	if s.last == nil || s.last.Result == nil {
		s.ts.Fatalf("%s: no result yet", cmd)
	}
	return s.last.Result.Text
}

// excerpt quotes at most the first and last 200 bytes of a text for a
// failure message: the text of a huge output must not flood the log.
func excerpt(text string) string {
	const n = 200
	if len(text) <= 2*n {
		return strconv.Quote(text)
	}
	return strconv.Quote(text[:n]) + " … (" + strconv.Itoa(len(text)-2*n) + " bytes) … " + strconv.Quote(text[len(text)-n:])
}
