package script

import (
	"encoding/json"
	"io"
	"time"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmdCapture sets a scenario variable from the last result's text:
//
//	capture NAME REGEXP
//
// NAME is set to REGEXP's first group (or the whole match when it has
// none), so that a value the implementation chose — a background handle, a
// full-output path — can be used in later commands as $NAME. REGEXP is
// matched in multi-line mode, as stdout does. No match fails the scenario.
func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	if neg {
		ts.Fatalf("capture does not support negation")
	}
	if len(args) != 2 {
		ts.Fatalf("usage: capture NAME REGEXP")
	}
	if s.last == nil || s.last.Result == nil {
		ts.Fatalf("capture: no result yet")
	}
	m := newRegexpMatcher(ts, args[1]).re.FindStringSubmatch(s.last.Result.Text)
	switch {
	case m == nil:
		ts.Fatalf("capture: %q does not match the last text %q", args[1], s.last.Result.Text)
	case len(m) > 1:
		ts.Setenv(args[0], m[1])
	default:
		ts.Setenv(args[0], m[0])
	}
}

// cmdPoll repeats one call until its result's text matches a regexp:
//
//	poll [-within D] JSON REGEXP
//
// It is the event a scenario waits on when the event is visible only
// through the implementation, such as output of a background command having
// been read: only calls that change nothing (retrievals) may be polled.
// Each attempt is a complete call; the matching one becomes the last
// response (for text and field) and its text is printed to stdout. The
// attempts are at most 10 ms apart; the bound defaults to the scenario's.
func cmdPoll(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	if neg {
		ts.Fatalf("poll does not support negation")
	}
	fs := newFlags(ts, "poll")
	within := fs.Duration("within", 0, "bound on the whole wait")
	parseFlags(ts, fs, args)
	if fs.NArg() != 2 {
		ts.Fatalf("usage: poll [-within D] JSON REGEXP")
	}
	raw := []byte(fs.Arg(0))
	if !json.Valid(raw) {
		ts.Fatalf("poll: %q is not JSON", fs.Arg(0))
	}
	re := newRegexpMatcher(ts, fs.Arg(1))
	bound := *within
	if bound == 0 {
		bound = s.cfg.bound()
	}
	deadline := time.Now().Add(bound)
	attempts := 0
	for {
		attempts++
		req := protocol.Request{Type: protocol.TypeCall, Arguments: raw, Cwd: ts.Getenv("WORK")}
		resp, err := s.ensureClient().Roundtrip(req, time.Until(deadline)+time.Second)
		s.check(err)
		if resp.Type != protocol.TypeResult || resp.Result == nil {
			s.errored("poll: call answered with type %q and no result", resp.Type)
		}
		s.last, s.lastCall = &resp, nil
		if re.match([]byte(resp.Result.Text)) {
			ts.Logf("poll matched after %d call(s)", attempts)
			io.WriteString(ts.Stdout(), resp.Result.Text)
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("poll: no text matching %q within %v (%d calls); last text:\n%s", fs.Arg(1), bound, attempts, resp.Result.Text)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
