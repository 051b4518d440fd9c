//go:build unix

package loginpath

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"time"
)

// accessExecute is access(2)'s X_OK, which package syscall does not name.
const accessExecute = 1

// ChooseShell picks the login shell from env (PATH-2, PATH-3): $SHELL when
// it is set and not empty, and then only if it is usable; the first usable
// fallback when $SHELL is unset or empty. A $SHELL that names something
// unusable is a failure, not a reason to try the fallbacks: the user named
// a shell, and another shell's rc files are not theirs.
func ChooseShell(env []string, fallback []string) (string, error) {
	if shell, _ := lookupEnv(env, "SHELL"); shell != "" {
		if err := usable(shell); err != nil {
			return "", fmt.Errorf("%w: SHELL=%q: %v", ErrUnusableShell, shell, err)
		}
		return shell, nil
	}
	for _, shell := range fallback {
		if usable(shell) == nil {
			return shell, nil
		}
	}
	return "", ErrNoShell
}

// usable reports why path cannot be started as a shell: it must be an
// absolute path (a bare name would be looked up in the very PATH being
// probed, a relative one would depend on the working directory) naming an
// executable regular file.
func usable(path string) error {
	if !filepath.IsAbs(path) {
		return errors.New("not an absolute path")
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	if err := syscall.Access(path, accessExecute); err != nil {
		return fmt.Errorf("not executable: %w", err)
	}
	return nil
}

// Probe runs the login shell once and decides (PATH-1 to PATH-15). It
// returns within the bound plus the time SIGKILL takes, whatever the shell
// does, and leaves nothing of the shell's process group running.
func Probe(o Options) Result {
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	fallback := o.Fallback
	if fallback == nil {
		fallback = FallbackShells
	}
	shell, err := ChooseShell(env, fallback)
	if err != nil {
		return Result{Err: err}
	}
	res := Result{Shell: shell}
	col := &collector{}
	if res.Err = run(shell, env, o, col); res.Err != nil {
		return res
	}
	cand, n := col.candidate(o.Select)
	if n > MaxLen {
		res.Err = fmt.Errorf("%w: %d bytes, more than %d", ErrTooLong, n, MaxLen)
		return res
	}
	check := Check
	if o.Check != nil {
		check = o.Check
	}
	if res.Err = check(cand); res.Err != nil {
		return res
	}
	res.PATH, res.OK = string(cand), true
	return res
}

// run runs `shell -lic 'printf %s "$PATH"'` and feeds its stdout to out
// until the exchange ends: at end-of-file or Grace after the shell exits,
// or at the bound. Whichever way it ends, every process of the shell's
// session is then killed (PATH-6, PATH-7, PATH-8, PATH-25). It returns nil
// only for a shell that exited with status 0 within the bound.
func run(shell string, env []string, o Options, out io.Writer) error {
	bound, grace := Bound, Grace
	if o.Bound > 0 {
		bound = o.Bound
	}
	if o.Grace > 0 {
		grace = o.Grace
	}
	reap := KillSession
	if o.Reap != nil {
		reap = o.Reap
	}
	// PATH-26: Linux sends the parent-death signal when the *thread* that
	// started the shell exits, not the process. The Go runtime ends a
	// thread only when a goroutine locked to it returns without unlocking;
	// while this goroutine holds its thread locked no other goroutine runs
	// on it, so the thread lives until the exchange is over and the signal
	// fires only when the whole implementation dies.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrStart, err)
	}
	defer r.Close()
	cmd := exec.Command(shell, Flags, Command)
	cmd.Env = env
	// PATH-4: stdin and stderr are left nil, which os/exec opens as the
	// null device: the shell can neither read the protocol stream nor
	// mix its missing-tty noise into anything.
	cmd.Stdout = w
	if o.MergeStderr {
		cmd.Stderr = w
	}
	// PATH-4, PATH-5: a new session, so an interactive shell finds no
	// controlling terminal to take over, read from, or be stopped by;
	// PATH-26: a parent-death signal where the platform has one.
	cmd.SysProcAttr = shellAttr()
	if o.Attr != nil {
		cmd.SysProcAttr = o.Attr
	}
	start := time.Now()
	err = cmd.Start()
	w.Close()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrStart, err)
	}
	deadline := start.Add(bound)
	pid := cmd.Process.Pid

	read := make(chan struct{})
	go func() {
		defer close(read)
		io.Copy(out, r) // ends at end-of-file or at the read deadline
	}()
	// The shell is reaped only once its session has been killed: until
	// then its pid, and with it the session and group IDs the kill aims
	// at, cannot be given to another process (pids wrap around quickly
	// where pid_max is 32768), whose session the kill would hit instead.
	exited, reapShell := watchExit(cmd)

	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	timedOut := false
	select {
	case <-exited:
		// PATH-7: what the shell printed is in the pipe already; output
		// still in flight from descendants gets Grace, and a descendant
		// holding stdout open gets no more than that, never the bound.
		r.SetReadDeadline(earliest(time.Now().Add(grace), deadline))
		<-read
		end(cmd.Process, pid, reap)
	case <-timer.C:
		timedOut = true
		end(cmd.Process, pid, reap)
		r.SetReadDeadline(time.Now())
		<-read
	}
	if timedOut {
		// SIGKILL ends the shell at once unless it is in uninterruptible
		// sleep; the wait for that is bounded so the call never hangs, and
		// the shell is reaped whenever it goes.
		select {
		case <-exited:
			reapShell()
		case <-time.After(time.Second):
			go func() {
				<-exited
				reapShell()
			}()
		}
		return fmt.Errorf("%w (%v)", ErrTimeout, bound)
	}
	reapShell()
	if st := cmd.ProcessState; !st.Success() { // PATH-10
		return fmt.Errorf("%w: %v", ErrExit, st)
	}
	return nil
}

// end ends the probe (PATH-6, PATH-8, PATH-25): SIGKILL to the shell
// itself, in case an Options.Attr kept it from leading a group, and reap
// (KillSession) for everything of its session, since interactive shells
// ignore SIGTERM.
func end(p *os.Process, pid int, reap func(int)) {
	p.Kill()
	reap(pid)
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
