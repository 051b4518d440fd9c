package conformance

import (
	"os"
	"sync"
	"syscall"
	"time"
)

// live is what a run has started and not yet cleaned up: the markers of
// scenarios in progress (every process an implementation started carries
// one, MarkerVariable) and the run's temporary directories. Interrupt ends
// them when the run itself is stopped by a signal, which skips the
// deferred clean-ups that normally do it.
var live = struct {
	sync.Mutex
	markers     map[string]bool
	dirs        map[string]bool
	clients     map[*Client]bool
	interrupted bool
}{markers: map[string]bool{}, dirs: map[string]bool{}, clients: map[*Client]bool{}}

// starting is held for reading while an implementation is being started
// and registered, and for writing by Interrupt: a process forked during
// the interrupt's scan would show the runner's environment, not its
// marker, until it execs, and so escape a marker scan; Interrupt instead
// waits for starts in flight and forbids new ones.
var starting sync.RWMutex

// beginStart reports whether an implementation may be started; when it
// returns true the caller must call endStart.
func beginStart() bool {
	starting.RLock()
	live.Lock()
	ok := !live.interrupted
	live.Unlock()
	if !ok {
		starting.RUnlock()
	}
	return ok
}

// endStart ends a start, tracking c when it started.
func endStart(c *Client) {
	if c != nil {
		live.Lock()
		live.clients[c] = true
		live.Unlock()
	}
	starting.RUnlock()
}

// untrackClient forgets a client whose process has exited.
func untrackClient(c *Client) {
	live.Lock()
	delete(live.clients, c)
	live.Unlock()
}

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
	starting.Lock()
	live.Lock()
	live.interrupted = true
	markers, dirs, clients := live.markers, live.dirs, live.clients
	live.markers, live.dirs, live.clients = map[string]bool{}, map[string]bool{}, map[*Client]bool{}
	live.Unlock()
	starting.Unlock()
	for c := range clients {
		// Each implementation leads its own process group (and session).
		syscall.Kill(-c.Pid(), syscall.SIGKILL)
	}
	for m := range markers {
		reap(m, 0)
	}
	// The run's goroutines go on until the process exits and may still
	// create files in a directory being removed (a scenario's work
	// directory as its script fails): remove until the directories stay
	// gone, within a bound.
	for range 25 {
		left := false
		for d := range dirs {
			os.RemoveAll(d)
			if _, err := os.Lstat(d); err == nil {
				left = true
			}
		}
		time.Sleep(20 * time.Millisecond)
		if !left && allGone(dirs) {
			return
		}
	}
}

// allGone reports whether none of dirs exists.
func allGone(dirs map[string]bool) bool {
	for d := range dirs {
		if _, err := os.Lstat(d); err == nil {
			return false
		}
	}
	return true
}
