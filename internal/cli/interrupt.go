package cli

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/apexcheck/apexcheck/conformance/client"
)

// stopOnSignal makes SIGINT and SIGTERM end a run cleanly until the
// returned function is called: the implementations tracker tracks and
// everything they started are killed and the run's temporary files removed (the deferred
// clean-ups a signal would skip), then the process exits with
// ExitInterrupted. before runs first (it clears the live progress line).
func stopOnSignal(stderr io.Writer, tracker *client.Tracker, before func()) (stop func()) {
	sig := make(chan os.Signal, 1)
	done := make(chan struct{})
	// mu decides between a signal and stop: once a signal is being handled
	// the run is over, and stop must not let the caller go on to report it
	// (the implementations being killed makes the run end at once).
	var mu sync.Mutex
	interrupted, stopped := false, false
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-sig:
			mu.Lock()
			if stopped {
				mu.Unlock()
				return
			}
			interrupted = true
			mu.Unlock()
			before()
			fmt.Fprintf(stderr, "apexcheck: %v: stopping the implementations and removing the run's files\n", s)
			tracker.Interrupt()
			os.Exit(ExitInterrupted)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sig)
		mu.Lock()
		if interrupted {
			mu.Unlock()
			select {} // the signal's goroutine exits the process
		}
		stopped = true
		mu.Unlock()
		close(done)
	}
}
