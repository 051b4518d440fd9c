package client

import (
	"os"
	"sync"
	"syscall"
	"time"
)

// Tracker is what a run has started and not yet cleaned up: its
// implementations, the markers of scenarios in progress (every process an
// implementation started carries one, [MarkerVariable]) and the run's
// temporary directories. Interrupt ends them when the run itself is
// stopped by a signal, which skips the deferred clean-ups that normally do
// it.
//
// The zero Tracker is ready to use; a nil *Tracker tracks nothing, and
// every start it is given may proceed.
type Tracker struct {
	// starting is held for reading while an implementation is being
	// started and registered, and for writing by Interrupt: a process
	// forked during the interrupt's scan would show the runner's
	// environment, not its marker, until it execs, and so escape a marker
	// scan; Interrupt instead waits for starts in flight and forbids new
	// ones.
	starting sync.RWMutex

	mu          sync.Mutex
	markers     map[string]bool
	dirs        map[string]bool
	clients     map[*Client]bool
	interrupted bool
}

// beginStart reports whether an implementation may be started; when it
// returns true the caller must call endStart.
func (t *Tracker) beginStart() bool {
	if t == nil {
		return true
	}
	t.starting.RLock()
	t.mu.Lock()
	ok := !t.interrupted
	t.mu.Unlock()
	if !ok {
		t.starting.RUnlock()
	}
	return ok
}

// endStart ends a start, tracking c when it started.
func (t *Tracker) endStart(c *Client) {
	if t == nil {
		return
	}
	if c != nil {
		t.mu.Lock()
		if t.clients == nil {
			t.clients = map[*Client]bool{}
		}
		t.clients[c] = true
		t.mu.Unlock()
	}
	t.starting.RUnlock()
}

// untrackClient forgets a client whose process has exited.
func (t *Tracker) untrackClient(c *Client) {
	if t == nil {
		return
	}
	t.mu.Lock()
	delete(t.clients, c)
	t.mu.Unlock()
}

// TrackMarker starts (on) or stops tracking a scenario's marker.
func (t *Tracker) TrackMarker(m string, on bool) {
	if t != nil {
		t.track(&t.markers, m, on)
	}
}

// TrackDir starts (on) or stops tracking a temporary directory.
func (t *Tracker) TrackDir(d string, on bool) {
	if t != nil {
		t.track(&t.dirs, d, on)
	}
}

func (t *Tracker) track(set *map[string]bool, key string, on bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if on {
		if *set == nil {
			*set = map[string]bool{}
		}
		(*set)[key] = true
	} else {
		delete(*set, key)
	}
}

// Interrupt kills every process of the scenarios in progress (the
// implementations and whatever they started, found by their markers) and
// removes the run's temporary directories. It is for a process about to
// exit on a signal: runs in progress are left broken, and no
// implementation starts through t afterwards.
func (t *Tracker) Interrupt() {
	if t == nil {
		return
	}
	t.starting.Lock()
	t.mu.Lock()
	t.interrupted = true
	markers, dirs, clients := t.markers, t.dirs, t.clients
	t.markers, t.dirs, t.clients = nil, nil, nil
	t.mu.Unlock()
	t.starting.Unlock()
	for c := range clients {
		// Each implementation leads its own process group (and session).
		syscall.Kill(-c.Pid(), syscall.SIGKILL)
	}
	for m := range markers {
		Reap(m, 0)
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
