package script

import (
	"os"
	"testing"
)

// TestSampleHeld reads this process's own accounting: kept, and never
// going back while its threads live.
func TestSampleHeld(t *testing.T) {
	first := sampleHeld(os.Getpid())
	if !first.ok {
		t.Skip("the kernel keeps no schedstat")
	}
	x := 0
	for i := 0; i < 1e6; i++ {
		x += i * i
	}
	h := heldBetween(first, sampleHeld(os.Getpid()))
	if !h.ok || h.waited < 0 || h.throttled < 0 || x < 0 {
		t.Errorf("held %+v", h)
	}
	if h := heldBetween(first, held{}); h.ok {
		t.Error("an unread end counts")
	}
	if h := sampleHeld(1 << 30); h.ok {
		t.Error("a process that does not exist has a count")
	}
}
