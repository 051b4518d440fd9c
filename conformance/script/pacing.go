package script

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/apexcheck/apexcheck/conformance/client"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmdPacing asserts that the last call's updates after the first came at
// most one per INTERVAL (output.md OUT-30), without timing any one of them:
// arrival times are skewed by scheduling, a count over the whole call is
// not.
//
// An implementation that paces its updates sends any two consecutive output
// updates but the last at least INTERVAL apart, so n of them span at least
// (n-2)·INTERVAL; all were sent between the moment the runner wrote the call
// and the moment it read the result. Hence n ≤ elapsed/INTERVAL + 2, however
// loaded the machine: load lengthens elapsed and only loosens the bound,
// while an implementation sending an update per chunk of output exceeds it
// as soon as chunks come faster than INTERVAL.
func cmdPacing(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	if neg {
		ts.Fatalf("pacing does not support negation")
	}
	if len(args) != 1 {
		ts.Fatalf("usage: pacing INTERVAL")
	}
	interval, err := time.ParseDuration(args[0])
	if err != nil || interval <= 0 {
		ts.Fatalf("pacing: INTERVAL %q is not a positive duration", args[0])
	}
	p := s.lastCall
	if p == nil || !p.Request.Updates {
		ts.Fatalf("pacing: the last call did not ask for updates")
	}
	// The response is read before p's done channel closes, which precedes
	// lastCall being set: no lock is needed to read it.
	elapsed := p.Elapsed()
	n := len(p.Updates()) - 1 // the first, empty one (OUT-28) is not paced
	allowed := int(elapsed/interval) + 2
	ts.Logf("pacing: %d output updates in %v, at most %d allowed at one per %v", n, elapsed.Round(time.Millisecond), allowed, interval)
	if n > allowed {
		ts.Fatalf("pacing: %d output updates in a call of %v: more than one per %v allows (%d)",
			n, elapsed.Round(time.Millisecond), interval, allowed)
	}
}

// cmdWaitupdate waits until the -async call NAME has received an update
// whose text matches REGEXP: how a scenario learns that output reached the
// model while the command still runs, by an event rather than a sleep.
// With -count N it waits for N such updates: output that decodes to no text
// yet (a partial character, the start of a byte order mark) is seen only as
// one more update with an empty text after the first (OUT-28, OUT-29).
func cmdWaitupdate(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	if neg {
		ts.Fatalf("waitupdate does not support negation")
	}
	fs := newFlags(ts, "waitupdate")
	within := fs.Duration("within", 0, "bound on the wait")
	count := fs.Int("count", 1, "number of matching updates to wait for")
	parseFlags(ts, fs, args)
	if fs.NArg() != 2 || *count < 1 {
		ts.Fatalf("usage: waitupdate [-within D] [-count N] NAME REGEXP")
	}
	p := s.calls[fs.Arg(0)]
	if p == nil {
		ts.Fatalf("waitupdate: no call named %q", fs.Arg(0))
	}
	if !p.Request.Updates {
		ts.Fatalf("waitupdate: call %q did not ask for updates", fs.Arg(0))
	}
	re, err := regexp.Compile(fs.Arg(1))
	if err != nil {
		ts.Fatalf("waitupdate: %v", err)
	}
	bound := *within
	if bound == 0 {
		bound = s.cfg.bound()
	}
	matches := func() bool {
		n := 0
		for _, u := range p.Updates() {
			if re.MatchString(u.Text) {
				n++
			}
		}
		return n >= *count
	}
	deadline := time.NewTimer(bound)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !matches() {
		select {
		case <-p.Done():
			// Updates precede the result on the wire, so none can follow.
			if matches() {
				return
			}
			ts.Fatalf("waitupdate: call %q ended with fewer than %d update(s) matching %q; its updates:\n%s", fs.Arg(0), *count, fs.Arg(1), updateTexts(p))
		case <-deadline.C:
			ts.Fatalf("waitupdate: fewer than %d update(s) of call %q matched %q within %v; its updates:\n%s", *count, fs.Arg(0), fs.Arg(1), bound, updateTexts(p))
		case <-tick.C:
		}
	}
}

func updateTexts(p *client.Pending) string {
	var b strings.Builder
	for i, u := range p.Updates() {
		fmt.Fprintf(&b, "  %d: %q\n", i, u.Text)
	}
	if b.Len() == 0 {
		return "  (none)\n"
	}
	return b.String()
}
