package script

import (
	"fmt"
	"time"

	"github.com/apexcheck/apexcheck/conformance/client"
	"github.com/apexcheck/apexcheck/fakeshell"
	"github.com/rogpeppe/go-internal/testscript"
)

// This file holds the bound command: how a scenario whose verdict a spec'd
// time bound decides (the login PATH probe's 5 s, a command's timeout)
// tells a failure of the implementation from a run the machine spoiled.
//
//	bound [-slack D] [-after D] [-shell LOG] BOUND CMD ARGS...
//
// runs CMD (one of the kit's commands: call, await, text, field, ...). When
// it fails, the failure stands only on evidence that the implementation
// decided it:
//
//   - early: the last call was answered less than AFTER + BOUND − SLACK
//     after it was sent. A conformant implementation starts its clock no
//     sooner than the call reached it (and, with -after, no sooner than
//     AFTER later: the fake shell prints that long after its start), so
//     it cannot have given up, or timed out, that soon.
//   - in time: with -shell, the fake shell of LOG finished writing its
//     output within BOUND − SLACK of its start (the kernel's record of the
//     implementation's fork): the implementation had the answer in time.
//
// Otherwise the machine made the fake shell, or the call, slower than the
// bound: the fallback the failure saw was allowed, and the run proves
// nothing. The scenario then ends inconclusive, with that evidence; the
// runner retries it. SLACK (default 0.5 s) is for what lies between the
// evidence and the implementation's clock: the shell's last bytes still in
// the pipe, a timer started just before the fork.

// defaultBoundSlack is the bound command's default slack.
const defaultBoundSlack = 500 * time.Millisecond

// failNowMessage is the text of the value testscript's Fatalf panics
// with (its unexported failNow), which the bound command recovers to
// weigh a failure before it stands.
const failNowMessage = "fail now!"

// inconcluder is the testscript.T of the kit's runner: it ends a scenario
// as inconclusive. Under go test, which knows no such outcome, the
// scenario is skipped with the evidence instead.
type inconcluder interface {
	Inconclusive(msg string)
}

func cmdBound(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	if neg {
		ts.Fatalf("bound does not support negation: negate the command it runs")
	}
	fs := newFlags(ts, "bound")
	slack := fs.Duration("slack", defaultBoundSlack, "what lies between the evidence and the implementation's clock")
	after := fs.Duration("after", 0, "the least time after the call's sending at which the bounded clock can start")
	shell := fs.String("shell", "", "fake shell log whose finishing time is evidence")
	parseFlags(ts, fs, args)
	if fs.NArg() < 2 {
		ts.Fatalf("usage: bound [-slack D] [-after D] [-shell LOG] BOUND CMD ARGS...")
	}
	limit, err := time.ParseDuration(fs.Arg(0))
	if err != nil || limit <= 0 || *slack < 0 || *after < 0 {
		ts.Fatalf("bound: BOUND %q must be a positive duration, -slack and -after not negative", fs.Arg(0))
	}
	name, rest := fs.Arg(1), fs.Args()[2:]
	neg = false
	if name == "!" && len(rest) > 0 {
		neg, name, rest = true, rest[0], rest[1:]
	}
	cmd := Commands()[name]
	if cmd == nil || name == "bound" {
		ts.Fatalf("bound: %q is not a command bound can run", name)
	}
	before := s.lastCall
	s.erroredNow = false
	failure := failed(func() { cmd(ts, neg, rest) })
	if failure == nil {
		return
	}
	if s.erroredNow || s.lastCall == nil || name == "call" && s.lastCall == before {
		// The conversation broke, or the call was never answered: the
		// machine is not blamed for either.
		panic(failure)
	}
	ev := boundEvidence{limit: limit, slack: *slack, after: *after, answered: s.lastCall.Elapsed()}
	if *shell != "" {
		ev.shellLog = *shell
		ev.wrote, ev.wroteKnown = shellWrote(ts.MkAbs(*shell))
	}
	stands, why := ev.weigh()
	ts.Logf("bound: %s", why)
	if stands {
		panic(failure)
	}
	s.inconclusive(why)
}

// failed runs f and returns the value it panicked with when it failed by
// testscript's Fatalf, for the caller to re-raise; nil when it held.
func failed(f func()) (failure any) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		if err, ok := p.(error); ok && err.Error() == failNowMessage {
			failure = p
			return
		}
		panic(p)
	}()
	f()
	return nil
}

// boundEvidence is what the bound command weighs a failure by.
type boundEvidence struct {
	limit, slack, after time.Duration
	// answered is the time from sending the last call to reading its
	// answer.
	answered time.Duration
	// shellLog, when set, is the fake shell's log; wrote is when it
	// finished writing after its start, when wroteKnown.
	shellLog   string
	wrote      time.Duration
	wroteKnown bool
}

// weigh decides whether a failure stands, and says why in a line that
// carries the evidence.
func (e boundEvidence) weigh() (stands bool, why string) {
	early := e.after + e.limit - e.slack
	if e.answered < early {
		return true, fmt.Sprintf("the failure stands: the call was answered %.2f s after it was sent, sooner than the %v a conformant implementation takes at least (the %v bound%s, less %v of slack)",
			e.answered.Seconds(), early, e.limit, afterText(e.after), e.slack)
	}
	if e.shellLog != "" && e.wroteKnown && e.wrote <= e.limit-e.slack {
		return true, fmt.Sprintf("the failure stands: the fake shell (%s) finished writing %.2f s after its start, within the %v bound less %v of slack, so the implementation had its answer in time",
			e.shellLog, e.wrote.Seconds(), e.limit, e.slack)
	}
	shell := ""
	switch {
	case e.shellLog != "" && e.wroteKnown:
		shell = fmt.Sprintf("; the fake shell (%s) finished writing only %.2f s after its start", e.shellLog, e.wrote.Seconds())
	case e.shellLog != "":
		shell = fmt.Sprintf("; the fake shell (%s) never finished writing", e.shellLog)
	}
	return false, fmt.Sprintf("inconclusive: the machine, not the implementation, missed the %v bound: the call was answered %.2f s after it was sent, no sooner than a conformant implementation may (%v)%s; rerun on a quieter machine",
		e.limit, e.answered.Seconds(), early, shell)
}

func afterText(after time.Duration) string {
	if after == 0 {
		return ""
	}
	return fmt.Sprintf(" after %v", after)
}

// shellWrote returns when the last invocation in a fake shell's log
// finished writing its output, after its start.
func shellWrote(log string) (time.Duration, bool) {
	invs, err := fakeshell.ReadLog(log)
	if err != nil || len(invs) == 0 {
		return 0, false
	}
	end := invs[len(invs)-1].End
	if end == nil || end.Wrote == nil {
		return 0, false
	}
	return time.Duration(*end.Wrote * float64(time.Second)), true
}

// awaitSinceExit is await -within D -since-exit LOG: it waits for p's
// result until D has passed since the last fake shell of LOG exited (the
// time of its end record, written as it exits), and fails the call as
// late then. A bound on what an implementation does once the login shell
// has exited (PATH-7's grace, PATH-25's sweep) counts from that exit, so
// the time a loaded machine took the shell to get there is never charged
// to the implementation. Until the shell has exited there is no such
// bound, only the runner's --bound, after which the conversation is an
// errored hang.
func (s *state) awaitSinceExit(neg bool, p *client.Pending, log string, within time.Duration) {
	safety := time.NewTimer(s.cfg.bound())
	defer safety.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var exited time.Time
	for {
		select {
		case <-p.Done():
			if !exited.IsZero() {
				s.ts.Logf("result %.2f s after the fake shell (%s) exited", p.Answered().Sub(exited).Seconds(), log)
			}
			s.finishCall(neg, p, within)
			return
		case <-safety.C:
			_, err := s.client.Await(p, time.Millisecond)
			s.check(err)
			return
		case <-tick.C:
		}
		if exited.IsZero() {
			exited, _ = shellExited(log)
			continue
		}
		if time.Since(exited) > within {
			s.client.Await(p, time.Millisecond) // stops the implementation
			s.ts.Fatalf("no result for call %q within %v of the fake shell's exit (%s logged it %.2f s ago), the scenario's bound: the implementation held the call back (it was stopped)%s",
				p.ID, within, log, time.Since(exited).Seconds(), p.CaseNote())
		}
	}
}

// shellExited returns when the last invocation in a fake shell's log
// exited on its own: the time of its end record.
func shellExited(log string) (time.Time, bool) {
	invs, err := fakeshell.ReadLog(log)
	if err != nil || len(invs) == 0 || invs[len(invs)-1].End == nil {
		return time.Time{}, false
	}
	return invs[len(invs)-1].End.Time, true
}

// inconclusive ends the scenario as inconclusive with msg: through the
// kit's runner when it runs the scenario, else (go test, which has no such
// outcome) as a skip carrying the evidence. Neither returns.
func (s *state) inconclusive(msg string) {
	if t, ok := s.t.(inconcluder); ok {
		t.Inconclusive(msg)
	}
	s.t.Skip(msg)
}
