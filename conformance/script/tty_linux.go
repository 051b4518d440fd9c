package script

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/apexcheck/apexcheck/conformance/client"
	"github.com/creack/pty"
	"github.com/rogpeppe/go-internal/testscript"
)

// PTYJobRole is the value of APEXCHECK_ROLE that makes the kit's binary the
// session leader `impl start -pty` puts between the runner and the
// implementation (PTYJobMain).
const PTYJobRole = "ptyjob"

const (
	roleVariable    = "APEXCHECK_ROLE"
	ptyModeVariable = "APEXCHECK_PTYJOB_MODE"
	ptyMarkVariable = "APEXCHECK_PTYJOB_MARK"
)

// ptySession is the terminal of one `impl start -pty`: the pty, the
// foreground process group it had when the implementation started, every
// other group seen in the foreground since, and every time the
// implementation was stopped.
type ptySession struct {
	master, slave *os.File
	expected      int

	mu      sync.Mutex
	changed []int    // foreground groups other than expected, in order seen
	stops   []string // signals that stopped the implementation
	ended   chan struct{}
	closed  chan struct{}
}

var ptySessions sync.Map // *state -> *ptySession

// startPTY starts the implementation with a new pty as its controlling
// terminal, in a session led by the kit's binary in PTYJobRole, the way an
// interactive shell runs a job: "fg" makes the implementation's process
// group the terminal's foreground group, "bg" leaves the leader's group in
// the foreground, so the implementation is a background job whose parent
// is in its session (its group is not orphaned: a background read stops
// it). The runner samples the terminal's foreground group throughout.
func (s *state) startPTY(mode string, env []string) (*client.Client, error) {
	master, slave, err := pty.Open()
	if err != nil {
		return nil, fmt.Errorf("open a pty: %w", err)
	}
	// The leader gets a descriptor of its own: handing slave itself to
	// os/exec would switch it to blocking mode, and `tty unread` reads it.
	leaderTTY, err := os.OpenFile(slave.Name(), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		slave.Close()
		return nil, fmt.Errorf("open the pty: %w", err)
	}
	events, eventsW, err := os.Pipe()
	if err != nil {
		master.Close()
		slave.Close()
		leaderTTY.Close()
		return nil, err
	}
	p := &ptySession{master: master, slave: slave, ended: make(chan struct{}), closed: make(chan struct{})}
	// The scenario's marker moves to a variable only the leader reads, so
	// the leader is not one of the implementation's survivors.
	var leaderEnv []string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, client.MarkerVariable+"="); ok {
			kv = ptyMarkVariable + "=" + v
		}
		leaderEnv = append(leaderEnv, kv)
	}
	leaderEnv = append(leaderEnv, roleVariable+"="+PTYJobRole, ptyModeVariable+"="+mode)
	cmd := exec.Command(s.cfg.SelfExe, s.cfg.Impl...)
	cmd.Env = leaderEnv
	cmd.Dir = s.ts.Getenv("WORK")
	cmd.ExtraFiles = []*os.File{leaderTTY, eventsW} // fds 3 and 4
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 3}
	lines := make(chan string, 16)
	started := func(c *client.Client) (int, error) {
		leaderTTY.Close()
		eventsW.Close()
		go func() {
			defer close(lines)
			sc := bufio.NewScanner(events)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
		var first string
		select {
		case first = <-lines:
		case <-time.After(s.cfg.bound()):
		}
		pid, err := strconv.Atoi(strings.TrimPrefix(first, "pid "))
		if err != nil || !strings.HasPrefix(first, "pid ") {
			return 0, fmt.Errorf("%w: the pty session leader did not start the implementation (%q)", client.ErrBroken, first)
		}
		p.expected = cmd.Process.Pid
		if mode == "fg" {
			p.expected = pid
		}
		if fg, err := tcgetpgrp(master); err != nil || fg != p.expected {
			return pid, fmt.Errorf("the terminal's foreground group is %d (%v), want %d", fg, err, p.expected)
		}
		go p.watch(lines)
		go p.sample()
		go io.Copy(io.Discard, master) // echo and whatever is written to the terminal
		return pid, nil
	}
	opts := s.clientOptions()
	opts.Started = started
	c, err := client.StartCmd(cmd, s.cfg.bound(), opts)
	if err != nil {
		leaderTTY.Close()
		eventsW.Close()
		p.close()
		return nil, err
	}
	ptySessions.Store(s, p)
	s.ts.Defer(func() {
		s.stop() // before the terminal goes: no hangup in the middle of a shutdown
		p.close()
		ptySessions.Delete(s)
	})
	return c, nil
}

// watch records the leader's events until it exits.
func (p *ptySession) watch(lines <-chan string) {
	defer close(p.ended)
	for line := range lines {
		if sig, ok := strings.CutPrefix(line, "stopped "); ok {
			p.mu.Lock()
			p.stops = append(p.stops, sig)
			p.mu.Unlock()
		}
	}
}

// sample reads the terminal's foreground group every 2 ms while the
// implementation runs. A job-control shell that takes the terminal keeps
// it while it runs, and a group killed with the terminal leaves it behind,
// so a change lasts far longer than that.
func (p *ptySession) sample() {
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.ended:
			return
		case <-p.closed:
			return
		case <-t.C:
			p.check()
		}
	}
}

// check samples the foreground group once and reports whether it is the
// expected one.
func (p *ptySession) check() bool {
	fg, err := tcgetpgrp(p.master)
	if err != nil {
		return true
	}
	if fg == p.expected {
		return true
	}
	p.mu.Lock()
	if n := len(p.changed); n == 0 || p.changed[n-1] != fg {
		p.changed = append(p.changed, fg)
	}
	p.mu.Unlock()
	return false
}

func (p *ptySession) close() {
	select {
	case <-p.closed:
		return
	default:
	}
	close(p.closed)
	p.master.Close()
	p.slave.Close()
}

func tcgetpgrp(f *os.File) (int, error) {
	var pgrp int32
	var errno syscall.Errno
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCGPGRP, uintptr(unsafe.Pointer(&pgrp)))
	})
	if errno != 0 {
		return 0, errno
	}
	return int(pgrp), nil
}

func pendingInput(f *os.File) (int, error) {
	var n int32
	var errno syscall.Errno
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n)))
	})
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// cmdTTY acts on and asserts about the terminal of `impl start -pty`:
//
//	tty type TEXT     type TEXT (Go escapes) into the terminal
//	tty unread TEXT   the terminal's unread input is exactly TEXT: nothing
//	                  typed has been consumed (the check reads it)
//	tty foreground    the terminal's foreground group has been the one it
//	                  had when the implementation started at every sample
//	                  since, and is now
//	tty stopped       the implementation has been stopped by a signal
//	                  (SIGTTIN, SIGTTOU, …) at least once; negate it to
//	                  assert it never was
func cmdTTY(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	v, ok := ptySessions.Load(s)
	if !ok {
		ts.Fatalf("tty: the implementation was not started with impl start -pty")
	}
	p := v.(*ptySession)
	if len(args) == 0 {
		ts.Fatalf("usage: tty type|unread TEXT | tty foreground | tty stopped")
	}
	switch {
	case args[0] == "type" && len(args) == 2:
		if neg {
			ts.Fatalf("tty type does not support negation")
		}
		_, err := p.master.Write([]byte(unescape(ts, args[1])))
		ts.Check(err)
	case args[0] == "unread" && len(args) == 2:
		want := unescape(ts, args[1])
		got, err := p.unread()
		ts.Check(err)
		if (got == want) == neg {
			ts.Fatalf("the terminal's unread input is %q, want %s%q", got, map[bool]string{true: "anything but ", false: ""}[neg], want)
		}
	case args[0] == "foreground" && len(args) == 1:
		now := p.check()
		p.mu.Lock()
		changed := append([]int(nil), p.changed...)
		p.mu.Unlock()
		stable := now && len(changed) == 0
		if stable == neg {
			if neg {
				ts.Fatalf("the terminal's foreground group never changed from %d", p.expected)
			}
			ts.Fatalf("the terminal's foreground group was %d when the implementation started; since then it has been %v", p.expected, changed)
		}
	case args[0] == "stopped" && len(args) == 1:
		p.mu.Lock()
		stops := append([]string(nil), p.stops...)
		p.mu.Unlock()
		if (len(stops) > 0) == neg {
			if neg {
				ts.Fatalf("the implementation was stopped %d time(s), first by %s", len(stops), stops[0])
			}
			ts.Fatalf("the implementation was never stopped")
		}
	default:
		ts.Fatalf("usage: tty type|unread TEXT | tty foreground | tty stopped")
	}
}

// unread reads the terminal's pending input: what was typed and has not
// been read by anyone.
func (p *ptySession) unread() (string, error) {
	n, err := pendingInput(p.slave)
	if err != nil || n == 0 {
		return "", err
	}
	buf := make([]byte, 0, n)
	p.slave.SetReadDeadline(time.Now().Add(time.Second))
	for len(buf) < n {
		chunk := make([]byte, n-len(buf))
		m, err := p.slave.Read(chunk)
		buf = append(buf, chunk[:m]...)
		if err != nil {
			return string(buf), err
		}
	}
	return string(buf), nil
}

// PTYJobMain is the session leader of `impl start -pty`. The runner starts
// it in a new session with the pty as its controlling terminal (fd 3) and
// an event pipe (fd 4); it starts the implementation (its arguments) in a
// process group of its own, in the foreground for mode "fg", and reports
// on fd 4: "pid N" once it runs, "stopped SIG" each time a signal stops it
// (after which the leader continues it, as a user typing fg would, so the
// scenario can go on and report), and "exited N" at the end. It exits with
// the implementation's status.
func PTYJobMain() int {
	// The implementation is killed if the leader dies (Pdeathsig), which
	// is tied to the thread that started it.
	runtime.LockOSThread()
	mode, mark := os.Getenv(ptyModeVariable), os.Getenv(ptyMarkVariable)
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name != roleVariable && name != ptyModeVariable && name != ptyMarkVariable {
			env = append(env, kv)
		}
	}
	if mark != "" {
		env = append(env, client.MarkerVariable+"="+mark)
	}
	// Descriptors 3 and 4 came from the runner without close-on-exec; the
	// implementation must not inherit them, nor pass them to its shells.
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	events := os.NewFile(4, "events")
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "apexcheck pty session:", err)
		fmt.Fprintln(events, "failed")
		return 125
	}
	if len(os.Args) < 2 {
		return fail(errors.New("no implementation to start"))
	}
	path, err := exec.LookPath(os.Args[1])
	if err != nil {
		return fail(err)
	}
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if mode == "fg" {
		attr.Foreground, attr.Ctty = true, 3
	}
	proc, err := os.StartProcess(path, os.Args[1:], &os.ProcAttr{
		Env: env, Files: []*os.File{os.Stdin, os.Stdout, os.Stderr}, Sys: attr,
	})
	if err != nil {
		return fail(err)
	}
	pid := proc.Pid
	fmt.Fprintf(events, "pid %d\n", pid)
	// Only the implementation holds the protocol pipes from here on, so the
	// runner sees them close when it exits.
	if null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
		for fd := range 3 {
			syscall.Dup3(int(null.Fd()), fd, 0)
		}
	}
	for {
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(pid, &ws, syscall.WUNTRACED|syscall.WCONTINUED, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return fail(err)
		}
		switch {
		case ws.Stopped():
			fmt.Fprintf(events, "stopped %s\n", signalName(ws.StopSignal()))
			syscall.Kill(-pid, syscall.SIGCONT)
		case ws.Exited():
			fmt.Fprintf(events, "exited %d\n", ws.ExitStatus())
			return ws.ExitStatus()
		case ws.Signaled():
			fmt.Fprintf(events, "exited %d\n", 128+int(ws.Signal()))
			return 128 + int(ws.Signal())
		}
	}
}

func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGTTIN:
		return "SIGTTIN"
	case syscall.SIGTTOU:
		return "SIGTTOU"
	case syscall.SIGTSTP:
		return "SIGTSTP"
	case syscall.SIGSTOP:
		return "SIGSTOP"
	}
	return "signal " + strconv.Itoa(int(sig))
}
