package tool

import (
	"context"
	"errors"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/output"
	"github.com/apexcheck/apexcheck/ref/shellexec"
)

// UpdateInterval is the least time between two streamed updates (seed
// BASH_UPDATE_THROTTLE_MS).
const UpdateInterval = 100 * time.Millisecond

// runForeground runs a command in the foreground and formats its result as
// the seed's execute does.
func (t *Tool) runForeground(ctx context.Context, s Spawn, timeout *float64, onUpdate func(protocol.Result)) protocol.Result {
	var acc Output
	if t.cfg.NewOutput != nil {
		acc = t.cfg.NewOutput(output.Options{Dir: s.TempDir})
	} else {
		acc = output.NewAccumulator(output.Options{Dir: s.TempDir})
	}
	interval := t.cfg.UpdateInterval
	if interval == 0 {
		interval = UpdateInterval
	}
	upd := newUpdater(acc, onUpdate, interval)
	outcome, err := shellexec.Run(ctx, shellexec.Request{
		Command:   s.Command,
		Dir:       s.Dir,
		Env:       s.Env,
		Timeout:   timeout,
		ShellPath: s.ShellPath,
		HostPATH:  s.HostPATH,
		Output:    upd,
	})
	snap := upd.finish()

	var timeoutErr *shellexec.TimeoutError
	switch {
	case errors.Is(err, shellexec.ErrAborted):
		// EXEC-11: the output so far (no placeholder), then the status.
		return errorResult(appendStatus(snap.Text(""), StatusAborted),
			&protocol.Details{Execution: &protocol.Execution{Cwd: s.Dir}})
	case errors.As(err, &timeoutErr):
		// EXEC-10: likewise, with the timeout status.
		return errorResult(appendStatus(snap.Text(""), err.Error()),
			&protocol.Details{Execution: &protocol.Execution{Cwd: s.Dir}})
	case err != nil:
		// EXEC-8, EXEC-9, EXEC-3, EXEC-12, a shell that cannot start:
		// nothing ran, the message is the text.
		return errorResult(err.Error(), nil)
	}

	code := outcome.ExitCode
	exec := &protocol.Execution{
		Cwd:        s.Dir,
		Executable: outcome.Shell.Path,
		Argv:       outcome.Argv,
		ExitCode:   &code,
	}
	if outcome.Signal != 0 {
		exec.Signal = signalName(outcome.Signal)
	}
	text := snap.Text(NoOutput)
	if code != 0 {
		// EXEC-15: the seed's error carries only the execution facts.
		return errorResult(appendStatus(text, "Command exited with code "+strconv.Itoa(code)),
			&protocol.Details{Execution: exec})
	}
	details := truncationDetails(snap)
	details.Execution = exec
	return protocol.Result{Text: text, Details: details}
}

// StatusAborted is the status line of an aborted call (EXEC-11).
const StatusAborted = "Command aborted"

// NoOutput is the text of a successful command that printed nothing
// (EXEC-16).
const NoOutput = "(no output)"

// appendStatus joins output and a status line with a blank line, or returns
// the status alone when there is no output (EXEC-15).
func appendStatus(text, status string) string {
	if text == "" {
		return status
	}
	return text + "\n\n" + status
}

// truncationDetails returns the truncation fields of a snapshot, empty when
// nothing was cut.
func truncationDetails(s output.Snapshot) *protocol.Details {
	if !s.Truncated {
		return &protocol.Details{}
	}
	return &protocol.Details{Truncation: WireTruncation(s.Result), FullOutputPath: s.FullOutputPath}
}

// WireTruncation converts a tail result to its wire form.
func WireTruncation(r output.Result) *protocol.Truncation {
	return &protocol.Truncation{
		Truncated:       r.Truncated,
		TruncatedBy:     r.TruncatedBy,
		TotalLines:      r.TotalLines,
		TotalBytes:      r.TotalBytes,
		OutputLines:     r.OutputLines,
		OutputBytes:     r.OutputBytes,
		LastLinePartial: r.LastLinePartial,
		MaxLines:        r.MaxLines,
		MaxBytes:        r.MaxBytes,
	}
}

// updater forwards output to the accumulator and streams throttled updates
// (OUT clauses on updates): an empty first update, then at most one per
// interval, each the current tail, and none after finish.
type updater struct {
	acc      Output
	onUpdate func(protocol.Result)
	interval time.Duration

	mu    sync.Mutex
	done  bool
	dirty bool
	last  time.Time
	timer *time.Timer
}

func newUpdater(acc Output, onUpdate func(protocol.Result), interval time.Duration) *updater {
	u := &updater{acc: acc, onUpdate: onUpdate, interval: interval}
	if onUpdate != nil {
		onUpdate(protocol.Result{Text: ""})
	}
	return u
}

// readBuffer is the size of one read from a command's pipe: twice a Linux
// pipe's default capacity, so that a full pipe empties in one read where
// io.Copy's 32 KiB buffer takes two.
const readBuffer = 128 << 10

// ReadFrom reads one of the command's pipes to its end. io.Copy from the
// pipe calls it, so that reads use readBuffer.
func (u *updater) ReadFrom(r io.Reader) (int64, error) {
	buf := make([]byte, readBuffer)
	var total int64
	for {
		n, err := r.Read(buf)
		if n > 0 {
			u.Write(buf[:n])
			total += int64(n)
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

func (u *updater) Write(p []byte) (int, error) {
	u.acc.Write(p)
	if u.onUpdate == nil {
		return len(p), nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.done {
		return len(p), nil
	}
	u.dirty = true
	if wait := u.interval - time.Since(u.last); wait <= 0 {
		u.emitLocked()
	} else if u.timer == nil {
		u.timer = time.AfterFunc(wait, func() {
			u.mu.Lock()
			defer u.mu.Unlock()
			u.timer = nil
			if !u.done {
				u.emitLocked()
			}
		})
	}
	return len(p), nil
}

func (u *updater) emitLocked() {
	if !u.dirty {
		return
	}
	u.dirty = false
	u.last = time.Now()
	snap := u.acc.Snapshot()
	details := truncationDetails(snap)
	if details.Truncation == nil {
		details = nil
	}
	u.onUpdate(protocol.Result{Text: snap.Content, Details: details})
}

// finish ends the stream: a pending update is flushed, the file closed, and
// the final snapshot returned.
func (u *updater) finish() output.Snapshot {
	u.acc.Finish()
	if u.onUpdate != nil {
		u.mu.Lock()
		if u.timer != nil {
			u.timer.Stop()
			u.timer = nil
		}
		u.emitLocked()
		u.done = true
		u.mu.Unlock()
	}
	snap := u.acc.Snapshot()
	u.acc.Close()
	return snap
}
