package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/apexcheck/apexcheck/conformance/client"
	"github.com/apexcheck/apexcheck/conformance/suite"
)

// interruption ends a run that is stopped from outside, cleanly: by SIGINT
// (Ctrl-C) or SIGTERM, or by the reader of its output going away
// (apexcheck | head). The implementations the tracker tracks, and
// everything they started, are killed and the run's temporary files
// removed (the deferred clean-ups that exiting skips), then the process
// exits with ExitInterrupted or ExitBrokenPipe.
//
// A signal prints one line on stderr and the summary of the scenarios
// that finished before it; the scenarios broken by the kill are not
// reported, since their failures say nothing about the implementation.
// A broken pipe prints the line only: there is no one to read a summary.
//
// Its methods are safe for concurrent use.
type interruption struct {
	stdout, stderr io.Writer // as given, not wrapped by writer
	tracker        *client.Tracker
	sig            chan os.Signal
	done           chan struct{}

	mu      sync.Mutex
	over    bool           // the run was ended, by end or stop
	ended   bool           // by end: stop must not return
	clear   func()         // clears the live progress line; nil before the run starts
	total   int            // scenarios selected
	results []suite.Result // finished before the end
}

// ExitBrokenPipe is the status of a run whose output's reader went away,
// as a shell reports a process ended by SIGPIPE.
const ExitBrokenPipe = 128 + int(syscall.SIGPIPE)

// watchInterrupts starts watching for SIGINT, SIGTERM and a broken pipe;
// call stop once the run is over. It is called before the handshake, so
// that an interrupt there removes its directory too.
func watchInterrupts(stdout, stderr io.Writer, tracker *client.Tracker) *interruption {
	in := &interruption{stdout: stdout, stderr: stderr, tracker: tracker, sig: make(chan os.Signal, 1), done: make(chan struct{})}
	// With SIGPIPE caught, a write to a closed stdout or stderr fails with
	// EPIPE (which writer notices) instead of killing the process before
	// it can clean up. A write to an implementation's closed stdin already
	// fails so. The channel is never read: the signal package drops what
	// does not fit, and a caught signal is reset to the default in the
	// programs the run executes.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	signal.Notify(in.sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-in.sig:
			in.end(s.String(), ExitInterrupted, true)
		case <-in.done:
		}
	}()
	return in
}

// started says that the scenarios are about to run: total of them, with
// clear clearing the live progress line.
func (in *interruption) started(total int, clear func()) {
	in.mu.Lock()
	in.total, in.clear = total, clear
	in.mu.Unlock()
}

// result records a finished scenario and calls print, unless the run is
// being ended: a scenario that ends then was broken by the kill.
func (in *interruption) result(r suite.Result, print func()) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.over {
		return
	}
	in.results = append(in.results, r)
	print()
}

// end ends the run as the type comment says and exits with code. Only
// the first call (or stop) counts; a later one returns.
func (in *interruption) end(why string, code int, summary bool) {
	in.mu.Lock()
	if in.over {
		in.mu.Unlock()
		return
	}
	in.over, in.ended = true, true
	clear, results, total := in.clear, in.results, in.total
	in.mu.Unlock()
	if clear != nil {
		clear()
	}
	fmt.Fprintf(in.stderr, "apexcheck: %s: stopping the implementations and removing the run's files\n", why)
	in.tracker.Interrupt()
	if summary && total > 0 {
		fmt.Fprintf(in.stdout, "\ninterrupted: %d of %d scenarios finished; the summary counts only them (the rest were stopped or never started)\n", len(results), total)
		writeSummary(in.stdout, results)
	}
	os.Exit(code)
}

// stop ends the watch once the run is over. When the run is being ended
// it never returns: end exits the process (the implementations being
// killed makes the run return at once, and it must not be reported).
func (in *interruption) stop() {
	signal.Stop(in.sig)
	in.mu.Lock()
	if in.ended {
		in.mu.Unlock()
		select {}
	}
	in.over = true
	in.mu.Unlock()
	close(in.done)
}

// writer returns w, made to end the run when a write to it fails because
// its reader went away.
func (in *interruption) writer(w io.Writer) io.Writer {
	return &pipeWriter{w: w, in: in}
}

// pipeWriter is an output that notices a broken pipe.
type pipeWriter struct {
	w  io.Writer
	in *interruption
}

func (p *pipeWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if errors.Is(err, syscall.EPIPE) {
		// In a goroutine: the writer may hold the lock end takes (a
		// result being printed).
		go p.in.end("output closed (broken pipe)", ExitBrokenPipe, false)
	}
	return n, err
}

// Unwrap returns the output itself (isTerminal looks through the wrapper).
func (p *pipeWriter) Unwrap() io.Writer { return p.w }
