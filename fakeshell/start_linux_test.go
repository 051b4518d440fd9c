package fakeshell

import (
	"testing"
	"time"
)

func TestSinceStart(t *testing.T) {
	time.Sleep(50 * time.Millisecond)
	if d := sinceStart(); d < 40*time.Millisecond || d > time.Hour {
		t.Errorf("sinceStart = %v for the test process", d)
	}
}
