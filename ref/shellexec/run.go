package shellexec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/apexcheck/apexcheck/ref/internal/procwait"
)

// StreamGrace is how long Run keeps reading after the shell exits, for
// output still in flight from processes that share its pipes. After it, Run
// stops reading, so a detached grandchild holding the pipes open cannot hang
// the call (EXEC-19, upstream pi waitForChildProcess: 100 ms).
const StreamGrace = 100 * time.Millisecond

// ErrAborted is returned by Run when the call was aborted, before or during
// execution (EXEC-11).
var ErrAborted = errors.New("aborted")

// TimeoutError is returned by Run when the timeout expired (EXEC-10).
type TimeoutError struct{ Seconds float64 }

func (e *TimeoutError) Error() string {
	return "Command timed out after " + FormatJSNumber(e.Seconds) + " seconds"
}

// CwdError is returned by Run when the working directory does not exist
// (EXEC-12). Its message is the model-visible text.
type CwdError struct{ Dir string }

func (e *CwdError) Error() string {
	return "Working directory does not exist: " + e.Dir + "\nCannot execute bash commands."
}

// Request is one foreground command.
type Request struct {
	Command string
	Dir     string
	Env     []string
	// Timeout in seconds as the model sent it; nil for none.
	Timeout *float64
	// ShellPath is the explicit shellPath option, or "".
	ShellPath string
	// HostPATH is the PATH used to find bash when /bin/bash is missing.
	HostPATH string
	// Output receives stdout and stderr in arrival order. Writes come from
	// two goroutines; Output must be safe for that.
	Output io.Writer
}

// Outcome is what a command that ran to an exit status left behind.
type Outcome struct {
	Shell Shell
	Argv  []string
	// ExitCode is the shell's exit status, or 128+n when signal n ended it
	// (EXEC-17).
	ExitCode int
	// Signal is the signal that ended the shell, or 0.
	Signal syscall.Signal
}

// Run runs r and waits for it. The checks before spawning come in the
// seed's order (EXEC-13): an invalid timeout, then an abort, then the shell,
// then the working directory; whichever fails first is the error and nothing
// runs. ctx is the abort signal.
func Run(ctx context.Context, r Request) (Outcome, error) {
	timeout, err := ResolveTimeout(r.Timeout)
	if err != nil {
		return Outcome{}, err
	}
	if ctx.Err() != nil {
		return Outcome{}, ErrAborted
	}
	shell, err := ResolveShell(r.ShellPath, r.HostPATH)
	if err != nil {
		return Outcome{}, err
	}
	if _, err := os.Stat(r.Dir); err != nil {
		return Outcome{}, &CwdError{Dir: r.Dir}
	}

	p, err := Start(shell, r.Command, r.Dir, r.Env, r.Output)
	if err != nil {
		return Outcome{}, err
	}
	var timer <-chan time.Time
	if r.Timeout != nil {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	var stopErr error
	select {
	case <-p.Exited():
	case <-ctx.Done():
		p.KillGroup()
		stopErr = ErrAborted
	case <-timer:
		p.KillGroup()
		stopErr = &TimeoutError{Seconds: *r.Timeout}
	}
	code, sig := p.Wait()
	if stopErr != nil {
		return Outcome{}, stopErr
	}
	return Outcome{Shell: shell, Argv: shell.Argv(r.Command), ExitCode: code, Signal: sig}, nil
}

// Process is a started shell.
type Process struct {
	cmd    *exec.Cmd
	pgid   int
	exited chan struct{}
	pumps  sync.WaitGroup
	reads  []*os.File
	out    io.Writer

	waitOnce sync.Once
	// mu orders group kills before the reap: while the shell is unreaped
	// (a zombie, once it has exited) its pid, and so its group ID, cannot
	// be reused, so a kill of the group reaches only the shell's own.
	mu     sync.Mutex
	reaped bool
	code   int
	sig    syscall.Signal
}

// Start starts `shell.Path shell.Args... command` in a new session (so it
// leads its own process group and has no controlling terminal), with stdin
// from /dev/null and stdout and stderr copied to out (EXEC-4, EXEC-5,
// EXEC-6). It returns once the process exists.
func Start(shell Shell, command, dir string, env []string, out io.Writer) (*Process, error) {
	cmd := exec.Command(shell.Path, shell.Argv(command)...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var reads, writes []*os.File
	closeAll := func() {
		for _, f := range append(reads, writes...) {
			f.Close()
		}
	}
	for range 2 {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("start %s: %w", shell.Path, err)
		}
		growPipe(r)
		reads, writes = append(reads, r), append(writes, w)
	}
	cmd.Stdout, cmd.Stderr = writes[0], writes[1]
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, fmt.Errorf("start %s: %w", shell.Path, err)
	}
	for _, w := range writes {
		w.Close()
	}
	p := &Process{cmd: cmd, pgid: cmd.Process.Pid, exited: make(chan struct{}), reads: reads, out: out}
	for _, r := range reads {
		p.pumps.Add(1)
		go func() {
			defer p.pumps.Done()
			io.Copy(out, r)
		}()
	}
	go func() {
		procwait.WaitExited(cmd.Process.Pid)
		if !procwait.Supported {
			p.reap()
		}
		close(p.exited)
	}()
	return p, nil
}

// reap collects the shell's exit status; after it the shell's pid, and so
// its group ID, may be reused, and KillGroup does nothing.
func (p *Process) reap() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reaped {
		return
	}
	err := p.cmd.Wait()
	p.code, p.sig = exitStatus(p.cmd.ProcessState, err)
	p.reaped = true
}

// Pid is the shell's process ID, which is also its process group ID.
func (p *Process) Pid() int { return p.pgid }

// Exited is closed when the shell has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// KillGroup sends SIGKILL to the shell's whole process group (EXEC-10,
// EXEC-11). Processes that left the group by starting sessions of their own
// are beyond its reach. Once Wait has returned the shell is reaped and
// KillGroup does nothing: its group ID may belong to another group by then.
func (p *Process) KillGroup() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reaped {
		return
	}
	if err := syscall.Kill(-p.pgid, syscall.SIGKILL); err != nil {
		p.cmd.Process.Kill()
	}
}

// Wait waits for the shell to exit, then for its output streams to end or
// StreamGrace to pass, whichever is first, and returns the exit code and
// signal. After Wait returns no more output is written.
func (p *Process) Wait() (int, syscall.Signal) {
	<-p.exited
	p.waitOnce.Do(func() {
		done := make(chan struct{})
		go func() { p.pumps.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(StreamGrace):
			for _, r := range p.reads {
				r.SetReadDeadline(time.Now())
			}
			<-done
			// The deadline stops the pumps without reading what already sits
			// in the pipes: on a loaded machine that can be output the shell
			// wrote before it exited. Take it without waiting for more.
			for _, r := range p.reads {
				drain(r, p.out)
			}
		}
		for _, r := range p.reads {
			r.Close()
		}
		// Nothing is written after Wait: let the writer go, so that a
		// Process kept after its exit (a background entry) holds no output.
		p.out = nil
		// Reaped last: a kill during the grace above still reaches what
		// is left of the group.
		p.reap()
	})
	return p.code, p.sig
}

// exitStatus maps a finished process to an exit code: its status, or 128+n
// for signal n, as bash reports a child killed by a signal (EXEC-17).
func exitStatus(state *os.ProcessState, err error) (int, syscall.Signal) {
	if state == nil {
		return 127, 0
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), ws.Signal()
	}
	return state.ExitCode(), 0
}

// drainLimit bounds a drain: the most a Linux pipe can hold
// (/proc/sys/fs/pipe-max-size defaults to 1 MiB). Without it, a grandchild
// writing without pause could keep the pipe from ever running dry.
const drainLimit = 1 << 20

// drain copies to out what f holds now, without blocking: it stops at the
// first read that would wait, or after drainLimit bytes. f must be a
// non-blocking pipe from os.Pipe.
func drain(f *os.File, out io.Writer) {
	f.SetReadDeadline(time.Time{})
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	buf := make([]byte, 32<<10)
	for taken := 0; taken < drainLimit; {
		var n int
		var rerr error
		// Returning true makes RawConn.Read return after one attempt, so
		// EAGAIN ends the drain instead of waiting for the pipe.
		if err := rc.Read(func(fd uintptr) bool {
			n, rerr = syscall.Read(int(fd), buf)
			return true
		}); err != nil || rerr != nil || n <= 0 {
			return
		}
		taken += n
		out.Write(buf[:n])
	}
}
