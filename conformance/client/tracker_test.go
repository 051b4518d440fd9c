package client

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNilTracker: a run without a tracker (a test, a library caller)
// tracks nothing and may always start an implementation.
func TestNilTracker(t *testing.T) {
	var tr *Tracker
	tr.TrackDir("dir", true)
	tr.TrackMarker("marker", true)
	if !tr.beginStart() {
		t.Fatal("a nil tracker refused a start")
	}
	tr.endStart(nil)
	tr.untrackClient(nil)
	tr.Interrupt()
}

// TestTrackerInterrupt: Interrupt removes the tracked directories and
// refuses every later start.
func TestTrackerInterrupt(t *testing.T) {
	var tr Tracker
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tr.TrackDir(dir, true)
	tr.Interrupt()
	if _, err := os.Lstat(dir); err == nil {
		t.Errorf("%s survived the interrupt", dir)
	}
	if tr.beginStart() {
		t.Error("a start was allowed after the interrupt")
		tr.endStart(nil)
	}
}
