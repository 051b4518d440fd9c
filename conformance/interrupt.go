package conformance

import (
	"os"
	"sync"
)

// live is what a run has started and not yet cleaned up: the markers of
// scenarios in progress (every process an implementation started carries
// one, MarkerVariable) and the run's temporary directories. Interrupt ends
// them when the run itself is stopped by a signal, which skips the
// deferred clean-ups that normally do it.
var live = struct {
	sync.Mutex
	markers map[string]bool
	dirs    map[string]bool
}{markers: map[string]bool{}, dirs: map[string]bool{}}

func trackMarker(m string, on bool) { track(live.markers, m, on) }
func trackDir(d string, on bool)    { track(live.dirs, d, on) }

func track(set map[string]bool, key string, on bool) {
	live.Lock()
	defer live.Unlock()
	if on {
		set[key] = true
	} else {
		delete(set, key)
	}
}

// Interrupt kills every process of the scenarios in progress (the
// implementations and whatever they started, found by their markers) and
// removes the run's temporary directories. It is for a process about to
// exit on a signal: runs in progress are left broken.
func Interrupt() {
	live.Lock()
	markers, dirs := live.markers, live.dirs
	live.markers, live.dirs = map[string]bool{}, map[string]bool{}
	live.Unlock()
	for m := range markers {
		reap(m, 0)
	}
	for d := range dirs {
		os.RemoveAll(d)
	}
}
