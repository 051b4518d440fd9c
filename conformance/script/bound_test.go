package script

import (
	"github.com/apexcheck/apexcheck/conformance/internal/sched"
	"strings"
	"testing"
	"time"
)

// TestBoundWeighsEvidence checks the rule of the bound command: a failure
// stands when the answer came sooner than a conformant implementation can
// give it, or when the fake shell wrote in time; otherwise it is the
// machine's, and the run inconclusive.
func TestBoundWeighsEvidence(t *testing.T) {
	s := time.Second
	tests := []struct {
		name   string
		ev     boundEvidence
		stands bool
		why    string
	}{
		{"answered at once: a short bound or no probe", boundEvidence{limit: 5 * s, slack: s / 2, answered: s / 10}, true, "answered 0.10 s after"},
		{"answered at a 3 s bound", boundEvidence{limit: 5 * s, slack: s / 2, answered: 3 * s, shellLog: "f.log"}, true, "sooner than the 4.5s"},
		{"shell wrote in time, answer at the bound", boundEvidence{limit: 5 * s, slack: s / 2, answered: 5 * s, shellLog: "f.log", wrote: 2 * s, wroteKnown: true}, true, "finished writing 2.00 s after its start"},
		{"shell wrote at the edge of the slack", boundEvidence{limit: 5 * s, slack: s / 2, answered: 5 * s, shellLog: "f.log", wrote: 4500 * time.Millisecond, wroteKnown: true}, true, "had its answer in time"},
		{"shell wrote late", boundEvidence{limit: 5 * s, slack: s / 2, answered: 5 * s, shellLog: "f.log", wrote: 4600 * time.Millisecond, wroteKnown: true}, false, "finished writing only 4.60 s"},
		{"shell never finished", boundEvidence{limit: 5 * s, slack: s / 2, answered: 5200 * time.Millisecond, shellLog: "f.log"}, false, "never finished writing"},
		{"no shell evidence, answered after the bound", boundEvidence{limit: 4 * s, slack: s / 2, answered: 4 * s}, false, "missed the 4s bound"},
		{"timeout from the call, probe first", boundEvidence{limit: 4 * s, slack: s / 2, after: 4500 * time.Millisecond, answered: 4600 * time.Millisecond}, true, "after 4.5s"},
		{"beyond: shell ended before it wrote", boundEvidence{beyond: true, limit: 5 * s, shellLog: "f.log", answered: 5 * s}, true, "never wrote its answer"},
		{"beyond: answer taken, timers on time", boundEvidence{beyond: true, limit: 5 * s, shellLog: "f.log", answered: 6 * s, wrote: 5500 * time.Millisecond, wroteKnown: true, late: 20 * time.Millisecond, lateKnown: true}, true, "at most 0.020 s late"},
		{"beyond: timers late by half the margin", boundEvidence{beyond: true, limit: 5 * s, shellLog: "f.log", answered: 6 * s, wrote: 5500 * time.Millisecond, wroteKnown: true, late: 250 * time.Millisecond, lateKnown: true}, false, "up to 0.250 s late"},
		{"beyond: shell itself late, timers on time", boundEvidence{beyond: true, limit: 5 * s, shellLog: "f.log", answered: 7 * s, wrote: 6 * s, wroteKnown: true, late: 400 * time.Millisecond, lateKnown: true}, true, "1.00 s past the 5s bound"},
		{"beyond: no witness", boundEvidence{beyond: true, limit: 5 * s, shellLog: "f.log", answered: 6 * s, wrote: 5500 * time.Millisecond, wroteKnown: true}, false, "did not record"},
		{"beyond: wrote within the bound", boundEvidence{beyond: true, limit: 5 * s, shellLog: "f.log", answered: 6 * s, wrote: 4900 * time.Millisecond, wroteKnown: true, lateKnown: true}, false, "-0.10 s past"},
		{"timeout from the spawn, bash slow", boundEvidence{limit: 4 * s, slack: s / 2, after: 4500 * time.Millisecond, answered: 9 * s}, false, "no sooner than a conformant implementation may (8s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stands, why := tt.ev.weigh()
			if stands != tt.stands || !strings.Contains(why, tt.why) {
				t.Errorf("weigh() = %v, %q; want %v, containing %q", stands, why, tt.stands, tt.why)
			}
			if !stands && !strings.HasPrefix(why, "inconclusive: ") {
				t.Errorf("an inconclusive reason must say so first: %q", why)
			}
		})
	}
}

// TestWeighHeld checks the rule of a late result after the fake shell's
// exit: it is the implementation's only when it would still be late had
// the machine never kept its threads from a CPU, and no quota throttled
// it.
func TestWeighHeld(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name         string
		late, within time.Duration
		h            sched.Held
		stands       bool
		why          string
	}{
		{"a sleep of its own", 1000 * ms, 800 * ms, sched.Held{Waited: 5 * ms, OK: true}, true, "past the 800ms bound even less the 0.01 s"},
		{"just late, machine idle", 810 * ms, 800 * ms, sched.Held{OK: true}, true, "no result 0.81 s after"},
		{"held back by the machine", 870 * ms, 800 * ms, sched.Held{Waited: 300 * ms, OK: true}, false, "waited 0.30 s for a CPU"},
		{"exactly accounted for", 900 * ms, 800 * ms, sched.Held{Waited: 100 * ms, OK: true}, false, "inconclusive: "},
		{"throttled by a quota", 1000 * ms, 800 * ms, sched.Held{Throttled: 50 * ms, OK: true}, false, "throttled the implementation's control group for 0.05 s"},
		{"stolen by the hypervisor", 1000 * ms, 800 * ms, sched.Held{Waited: 50 * ms, Stolen: 200 * ms, OK: true}, false, "the hypervisor took 0.20 s"},
		{"stolen, yet late", 1100 * ms, 800 * ms, sched.Held{Waited: 50 * ms, Stolen: 200 * ms, OK: true}, true, "(and the hypervisor took 0.20 s"},
		{"no accounting", 1000 * ms, 800 * ms, sched.Held{}, false, "no scheduler accounting"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stands, why := weighHeld(tt.late, tt.within, tt.h)
			if stands != tt.stands || !strings.Contains(why, tt.why) {
				t.Errorf("weighHeld() = %v, %q; want %v, containing %q", stands, why, tt.stands, tt.why)
			}
			if !stands && !strings.HasPrefix(why, "inconclusive: ") {
				t.Errorf("an inconclusive reason must say so first: %q", why)
			}
		})
	}
}
