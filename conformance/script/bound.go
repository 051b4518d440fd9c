package script

import (
	"fmt"
	"github.com/apexcheck/apexcheck/conformance/internal/sched"
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
//	bound -beyond -shell LOG BOUND CMD ARGS...
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
//
// With -beyond the failure is the other side of the bound: the
// implementation took an answer that the fake shell of LOG wrote after
// BOUND had passed (path_bound_just_beyond), which a timer the machine held
// back would take too. It stands when the shell never wrote (it was ended
// first, so the failure is not about the bound), or when the machine woke
// timers on time just then: the shell's own timers, in the last second
// before it wrote, were never late by as much as half of the time between
// the bound and its writing (fakeshell Record.Late). A timer of the
// implementation's late by twice the worst the machine showed is the
// implementation's. Otherwise the run is inconclusive, with that evidence.

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
	beyond := fs.Bool("beyond", false, "the failure is an answer taken after the bound (needs -shell)")
	parseFlags(ts, fs, args)
	if fs.NArg() < 2 || *beyond && *shell == "" {
		ts.Fatalf("usage: bound [-slack D] [-after D] [-shell LOG] BOUND CMD ARGS... | bound -beyond -shell LOG BOUND CMD ARGS...")
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
	ev := boundEvidence{limit: limit, slack: *slack, after: *after, answered: s.lastCall.Elapsed(), beyond: *beyond}
	if *shell != "" {
		ev.shellLog = *shell
		ev.wrote, ev.wroteKnown, ev.late, ev.lateKnown = shellWrote(ts.MkAbs(*shell))
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
	// beyond weighs a failure of taking an answer after the bound; late
	// is then the worst lateness of the fake shell's own timers before it
	// wrote, when lateKnown.
	beyond    bool
	late      time.Duration
	lateKnown bool
}

// weigh decides whether a failure stands, and says why in a line that
// carries the evidence.
func (e boundEvidence) weigh() (stands bool, why string) {
	if e.beyond {
		return e.weighBeyond()
	}
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

// weighBeyond is weigh for bound -beyond.
func (e boundEvidence) weighBeyond() (stands bool, why string) {
	if !e.wroteKnown {
		return true, fmt.Sprintf("the failure stands: the fake shell (%s) never wrote its answer, so the implementation did not take one written after the %v bound",
			e.shellLog, e.limit)
	}
	past := e.wrote - e.limit
	if e.lateKnown && past > 0 && 2*e.late < past {
		return true, fmt.Sprintf("the failure stands: the fake shell (%s) wrote %.2f s after its start, %.2f s past the %v bound, and its own timers woke at most %.3f s late in the second before, so a timer of the implementation's on time by the same measure had ended it",
			e.shellLog, e.wrote.Seconds(), past.Seconds(), e.limit, e.late.Seconds())
	}
	witness := "did not record how late its timers woke"
	if e.lateKnown {
		witness = fmt.Sprintf("saw its own timers wake up to %.3f s late in the second before", e.late.Seconds())
	}
	return false, fmt.Sprintf("inconclusive: the machine may have held back the implementation's timer: the fake shell (%s) wrote %.2f s after its start, %.2f s past the %v bound, and %s; rerun on a quieter machine",
		e.shellLog, e.wrote.Seconds(), past.Seconds(), e.limit, witness)
}

func afterText(after time.Duration) string {
	if after == 0 {
		return ""
	}
	return fmt.Sprintf(" after %v", after)
}

// shellWrote returns when the last invocation in a fake shell's log
// finished writing its output, after its start, and how late its own
// timers woke before it wrote (fakeshell Record.Late), each with whether
// the log holds it.
func shellWrote(log string) (wrote time.Duration, wroteKnown bool, late time.Duration, lateKnown bool) {
	invs, err := fakeshell.ReadLog(log)
	if err != nil || len(invs) == 0 {
		return 0, false, 0, false
	}
	end := invs[len(invs)-1].End
	if end == nil || end.Wrote == nil {
		return 0, false, 0, false
	}
	wrote = time.Duration(*end.Wrote * float64(time.Second))
	if end.Late != nil {
		return wrote, true, time.Duration(*end.Late * float64(time.Second)), true
	}
	return wrote, true, 0, false
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
//
// Past D the wait goes on while the machine's evidence may yet excuse
// the lateness (weighHeld): the result fails the implementation once it is
// later than D even less the time the implementation's threads waited,
// runnable, for a CPU since the exit, with no CPU quota throttling it. A
// result that comes in that extra time was late only by the machine's
// doing: the run is inconclusive, never passed. The interval starts at the
// tick before the one that saw the exit, so no part of the wait after the
// exit is left out. The waits of the processes the implementation starts
// are not counted, only its own threads'.
func (s *state) awaitSinceExit(neg bool, p *client.Pending, log string, within time.Duration) {
	safety := time.NewTimer(s.cfg.bound())
	defer safety.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var exited time.Time
	pid := s.client.Pid()
	last := sched.Sample(pid) // and before: the sample a tick earlier
	before := last
	overdue := "" // why the result, past D, is not yet late on the evidence
	for {
		select {
		case <-p.Done():
			if !exited.IsZero() {
				s.ts.Logf("result %.2f s after the fake shell (%s) exited", p.Answered().Sub(exited).Seconds(), log)
			}
			if overdue != "" {
				s.inconclusive(overdue)
			}
			s.finishCall(neg, p, within)
			return
		case <-safety.C:
			_, err := s.client.AwaitWithin(p, time.Millisecond)
			if overdue != "" {
				// Still held back when the runner's bound ran out: the
				// machine, not the implementation, kept the result away.
				s.inconclusive(overdue)
			}
			s.check(err)
			return
		case <-tick.C:
		}
		if exited.IsZero() {
			before, last = last, sched.Sample(pid)
			exited, _ = shellExited(log)
			continue
		}
		late := time.Since(exited)
		if late <= within {
			continue
		}
		h := sched.Between(before, sched.Sample(pid))
		stands, why := weighHeld(late, within, h)
		if !stands && h.OK && h.Throttled == 0 {
			overdue = why // the held-back time may yet run out
			continue
		}
		s.client.AwaitWithin(p, time.Millisecond) // stops the implementation
		if !stands {
			s.ts.Logf("no result for call %q within %v of the fake shell's exit (%s logged it %.2f s ago)", p.ID, within, log, late.Seconds())
			s.inconclusive(why)
		}
		s.ts.Logf("bound: %s", why)
		s.ts.Fatalf("no result for call %q within %v of the fake shell's exit (%s logged it %.2f s ago), the scenario's bound: the implementation held the call back (it was stopped)%s",
			p.ID, within, log, late.Seconds(), p.CaseNote())
	}
}

// weighHeld decides whether a result late by late, against a bound of
// within, stands as the implementation's, given how long the machine held
// it back meanwhile (sched.Held).
func weighHeld(late, within time.Duration, h sched.Held) (stands bool, why string) {
	switch {
	case !h.OK:
		return false, fmt.Sprintf("inconclusive: no scheduler accounting could be read to tell whether the machine held the result back (%.2f s after the fake shell exited, against the %v bound); rerun on a quieter machine",
			late.Seconds(), within)
	case h.Throttled > 0:
		return false, fmt.Sprintf("inconclusive: a CPU quota throttled the implementation's control group for %.2f s while the result was due; rerun with more CPU",
			h.Throttled.Seconds())
	case late-h.Waited-h.Stolen > within:
		return true, fmt.Sprintf("the failure stands: no result %.2f s after the fake shell exited, past the %v bound even less the %.2f s the implementation's threads waited for a CPU meanwhile%s",
			late.Seconds(), within, h.Waited.Seconds(), stolenNote(h))
	}
	return false, fmt.Sprintf("inconclusive: the machine held the implementation back: its threads waited %.2f s for a CPU since the fake shell exited, %.2f s ago%s, and without that wait it was within the %v bound; rerun on a quieter machine",
		h.Waited.Seconds(), late.Seconds(), stolenNote(h), within)
}

// stolenNote names the time the hypervisor took from the machine's CPUs,
// which weighHeld excuses as it does a wait for a CPU: "" when there was
// none, as on a machine that is not a virtual one.
func stolenNote(h sched.Held) string {
	if h.Stolen == 0 {
		return ""
	}
	return fmt.Sprintf(" (and the hypervisor took %.2f s of CPU time from the machine)", h.Stolen.Seconds())
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
