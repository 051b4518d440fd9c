package script

import (
	"fmt"
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// The commands below let a scenario time the calls with the runner's own
// clock, in process: a stamp taken by exec'ing a program (date, or
// reading /proc/uptime) costs a process start and has the program's
// resolution, both of which widen every bound built from it.

// clockOrigin is the zero of the stamps clock writes. Its monotonic
// reading makes every stamp a monotonic time, which a step of the wall
// clock cannot move.
var clockOrigin = time.Now()

// clockResolution is the resolution of a stamp: clock writes whole
// microseconds, so the difference of two stamps is within one of the time
// that passed between them.
const clockResolution = 1e-6

// cmdClock sets $NAME to the runner's monotonic time, in seconds since an
// arbitrary origin with six decimals, read in process when the command
// runs: a scenario puts `clock t0` right before a call and `clock t1`
// right after it, and the call then happened within the two stamps.
func cmdClock(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("clock does not support negation")
	}
	if len(args) != 1 || args[0] == "" {
		ts.Fatalf("usage: clock NAME")
	}
	ts.Setenv(args[0], formatStamp(time.Since(clockOrigin)))
}

// formatStamp writes d as seconds with six decimals (whole microseconds).
func formatStamp(d time.Duration) string {
	us := d.Microseconds()
	return fmt.Sprintf("%d.%06d", us/1e6, us%1e6)
}

// cmdElapsed asserts that S seconds is at least the time from stamp A to
// stamp B and at most the time from stamp C to stamp D, give or take SLACK
// seconds, where the stamps are clock's. Each bound is widened further by
// the stamps' resolution (one microsecond) and, with -ppm N, by N
// millionths of its interval: what an implementation's clock ticking at
// another rate than the runner's may add over that interval.
func cmdElapsed(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("elapsed does not support negation")
	}
	fs := newFlags(ts, "elapsed")
	ppm := fs.Float64("ppm", 0, "rate difference of the clocks allowed, in millionths")
	parseFlags(ts, fs, args)
	if fs.NArg() != 6 || *ppm < 0 {
		ts.Fatalf("usage: elapsed [-ppm N] S A B C D SLACK")
	}
	var v [6]float64
	for i, a := range fs.Args() {
		f, err := strconv.ParseFloat(a, 64)
		if err != nil {
			ts.Fatalf("elapsed: argument %d (%q) is not a number: %v", i+1, a, err)
		}
		v[i] = f
	}
	lo, hi, err := checkElapsed(v[0], v[1], v[2], v[3], v[4], v[5], *ppm)
	ts.Logf("elapsed: %s s, bounds [%.6f, %.6f]", fs.Arg(0), lo, hi)
	if err != nil {
		ts.Fatalf("elapsed: %v", err)
	}
}

// checkElapsed returns the bounds cmdElapsed allows s within, and an
// error when s is outside them.
func checkElapsed(s, a, b, c, d, slack, ppm float64) (lo, hi float64, err error) {
	least, most := b-a, d-c
	lo = least - slack - clockResolution - least*ppm/1e6
	hi = most + slack + clockResolution + most*ppm/1e6
	switch {
	case s < lo:
		return lo, hi, fmt.Errorf("%v s is below the %.6f s that passed at least (less %.6f s of slack)", s, least, least-lo)
	case s > hi:
		return lo, hi, fmt.Errorf("%v s is above the %.6f s that passed at most (plus %.6f s of slack)", s, most, hi-most)
	}
	return lo, hi, nil
}
