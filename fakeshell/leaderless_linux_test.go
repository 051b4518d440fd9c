package fakeshell

import (
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestLeaderlessUnderLoad starts leaderless children while busy
// goroutines keep every CPU loaded, and wants each seen leaderless: a
// child whose main goroutine the runtime moved to another thread before
// it ended its thread would only sleep, and path_group_leaderless would
// then wait out its 5 s for nothing. A child ends its main thread within
// milliseconds of its start, so the wait for it to show leaderless is 60 s:
// only a child that never does, or a machine stalled for a minute, reaches
// it, and a passing run never waits.
func TestLeaderlessUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 40 children beside busy loops")
	}
	stop := make(chan struct{})
	var busy sync.WaitGroup
	for i := 0; i < 4; i++ {
		busy.Add(1)
		go func() {
			defer busy.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
			}
		}()
	}
	defer func() { close(stop); busy.Wait() }()
	var wg sync.WaitGroup
	var mu sync.Mutex
	missed := 0
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pid, err := startLeaderless(120_000, false)
			if err != nil {
				t.Error(err)
				return
			}
			defer func() {
				syscall.Kill(pid, syscall.SIGKILL)
				var ws syscall.WaitStatus
				syscall.Wait4(pid, &ws, 0, nil)
			}()
			if !waitLeaderless(pid, 60*time.Second) {
				mu.Lock()
				missed++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if missed > 0 {
		t.Errorf("%d of 40 children were not seen leaderless within 60 s", missed)
	}
}
