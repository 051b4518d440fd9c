package sched

import (
	"fmt"
	"strings"
	"time"
)

// Held is how long the machine held a process back. A sample ([Sample])
// counts from the threads' start (and, for Stolen, the machine's boot);
// the difference of two ([Between]) covers the interval between them.
type Held struct {
	// Waited is the time the process's threads waited, runnable, for a
	// CPU, summed over its threads. A sum over threads is more than the
	// wait of any one path through the process, so the evidence errs on
	// the side of excusing a run rather than blaming one.
	Waited time.Duration
	// Throttled is the time a CPU quota throttled the process's control
	// group.
	Throttled time.Duration
	// Stolen is the time the hypervisor ran something else while the
	// machine's CPUs wanted to run, summed over the CPUs: a process never
	// sees it as a wait, yet it stood still.
	Stolen time.Duration
	// OK is set when the process's accounting could be read.
	OK bool
}

// Between is the machine's evidence between two samples. A thread that
// exited in between took its count with it, so a sum that went down
// counts as no wait.
func Between(from, to Held) Held {
	return Held{
		Waited:    max(to.Waited-from.Waited, 0),
		Throttled: max(to.Throttled-from.Throttled, 0),
		Stolen:    max(to.Stolen-from.Stolen, 0),
		OK:        from.OK && to.OK,
	}
}

// Total is every part of h: the time the machine kept the process from
// running.
func (h Held) Total() time.Duration { return h.Waited + h.Throttled + h.Stolen }

// String says what h holds, in seconds: "its threads waited 0.31 s for a
// CPU", with the throttling and stolen time when there were any.
func (h Held) String() string {
	if !h.OK {
		return "no scheduler accounting could be read"
	}
	parts := []string{fmt.Sprintf("its threads waited %.2f s for a CPU", h.Waited.Seconds())}
	if h.Throttled > 0 {
		parts = append(parts, fmt.Sprintf("a CPU quota throttled its control group for %.2f s", h.Throttled.Seconds()))
	}
	if h.Stolen > 0 {
		parts = append(parts, fmt.Sprintf("the hypervisor took %.2f s of CPU time from the machine", h.Stolen.Seconds()))
	}
	return strings.Join(parts, ", ")
}
