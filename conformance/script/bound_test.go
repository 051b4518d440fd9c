package script

import (
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
