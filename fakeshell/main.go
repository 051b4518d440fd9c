package fakeshell

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Main is the fake shell role: it runs the behaviour named by
// ConfigVariable and returns the exit status. The role's variables are
// removed from the environment first, so nothing the shell starts
// inherits them.
func Main() int {
	if ms := os.Getenv(holdVariable); ms != "" {
		return hold(ms)
	}
	if ms := os.Getenv(traceVariable); ms != "" {
		return trace(ms)
	}
	path := os.Getenv(ConfigVariable)
	os.Unsetenv(RoleVariable)
	os.Unsetenv(ConfigVariable)
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeshell:", err)
		return 126
	}
	var b Behaviour
	if err := json.Unmarshal(data, &b); err != nil {
		fmt.Fprintf(os.Stderr, "fakeshell: %s: %v\n", path, err)
		return 126
	}
	return b.run(os.Args[1:])
}

func (b Behaviour) run(args []string) int {
	pid := os.Getpid()
	start := startRecord(b.Tag, args)
	appendRecord(b.Log, start)
	if b.Exec != "" {
		err := syscall.Exec(b.Exec, append([]string{b.Exec}, args...), os.Environ())
		appendRecord(b.Log, Record{Event: "exec", Tag: b.Tag, Pid: pid, Error: err.Error()})
		return 127
	}
	if b.IgnoreTERM {
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	}
	if b.TTYGrab || b.TTYRead {
		r := Record{Event: "tty", Tag: b.Tag, Pid: pid}
		useTTY(&r, b.TTYGrab, b.TTYRead)
		appendRecord(b.Log, r)
	}
	if b.ReadStdin {
		r := Record{Event: "stdin", Tag: b.Tag, Pid: pid}
		line, err := bufio.NewReader(os.Stdin).ReadString('\n')
		r.Read = &line
		if err != nil {
			r.Error = err.Error()
		}
		appendRecord(b.Log, r)
	}
	if b.HoldMS > 0 {
		appendRecord(b.Log, leave(b, pid, "hold", func() (int, error) { return startHold(b.HoldMS, b.IgnoreTERM) }, nil))
	}
	if b.DetachMS > 0 {
		appendRecord(b.Log, leave(b, pid, "detach", func() (int, error) { return startDetached(b.DetachMS) }, withStat))
	}
	if b.TraceMS > 0 {
		appendRecord(b.Log, leave(b, pid, "trace", func() (int, error) { return startTracer(b.TraceMS) }, nil))
	}
	if b.JobMS > 0 {
		appendRecord(b.Log, leave(b, pid, "job", func() (int, error) { return startJob(b.JobMS) }, withStat))
	}
	if b.LeaderlessMS > 0 {
		appendRecord(b.Log, leave(b, pid, "leaderless", func() (int, error) { return startLeaderless(b.LeaderlessMS, false) }, withLeaderless))
	}
	if b.LeaderlessJobMS > 0 {
		appendRecord(b.Log, leave(b, pid, "leaderless", func() (int, error) { return startLeaderless(b.LeaderlessJobMS, true) }, withLeaderless))
	}
	if b.SleepMS > 0 {
		time.Sleep(time.Duration(b.SleepMS) * time.Millisecond)
	}
	if b.Until != "" {
		waitFor(b.Until, 10*time.Minute)
	}
	var late *float64
	if b.AtMS > 0 {
		worst := waitUntil(time.Duration(b.AtMS)*time.Millisecond - sinceStart())
		if _, ok := sinceStartKnown(); ok {
			l := worst.Seconds()
			late = &l
		}
	}
	code := b.Exit
	fmt.Fprint(os.Stderr, b.Stderr)
	switch {
	case b.Reject:
		// tcsh: "Unknown option: `-l'"; nushell: an error about the flag.
		fmt.Fprintln(os.Stderr, "Unknown option: `-l'")
		fmt.Fprintln(os.Stderr, "Usage: tcsh [ -bcdefilmnqstvVxX ] [ argument ... ].")
		code = 1
	case b.Silent:
	default:
		fmt.Fprint(os.Stdout, generatedBanner(b.Banner)+b.Before+b.printedPATH()+b.After)
		fmt.Fprint(os.Stderr, b.StderrAfter)
	}
	end := Record{Event: "end", Tag: b.Tag, Pid: pid, Exit: &code, Late: late}
	if d, ok := sinceStartKnown(); ok {
		wrote := d.Seconds()
		end.Wrote = &wrote
	}
	appendRecord(b.Log, end)
	return code
}

// printedPATH is the PATH the shell prints.
func (b Behaviour) printedPATH() string {
	p := os.Getenv("PATH")
	switch {
	case b.PathLen > 0:
		p = generatedPATH(b.PathLen)
	case b.PATH != nil:
		p = *b.PATH
	}
	if b.Fish2 {
		p = strings.ReplaceAll(p, ":", " ")
	}
	return p
}

func startRecord(tag string, args []string) Record {
	r := Record{Event: "start", Tag: tag, Pid: os.Getpid(), Ppid: os.Getppid(), Args: args}
	r.PATH, r.HasPATH = os.LookupEnv("PATH")
	r.Home = os.Getenv("HOME")
	r.Cwd, _ = os.Getwd()
	r.Stdin, _ = os.Readlink("/proc/self/fd/0")
	r.Pgid, r.Sid, r.TTYNr = procStat()
	r.CTTY = "none"
	if r.TTYNr != 0 {
		r.CTTY = fmt.Sprintf("%d:%d", (r.TTYNr>>8)&0xfff, (r.TTYNr&0xff)|((r.TTYNr>>12)&0xfff00))
	}
	return r
}

// procStat returns the process group, session and controlling terminal
// device of this process from /proc/self/stat (zeros where there is no
// /proc).
func procStat() (pgid, sid, ttyNr int) { return procStatOf("self") }

// state is the state field of a /proc/PID/stat line ("" if it has none).
func state(stat []byte) string {
	s := string(stat)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// procStatOf is procStat for the process /proc/PID names.
func procStatOf(pid string) (pgid, sid, ttyNr int) {
	data, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		if pid == "self" {
			pgid, _ = syscall.Getpgid(0)
		}
		return pgid, 0, 0
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	// state ppid pgrp session tty_nr ...
	if len(f) > 4 {
		pgid, _ = strconv.Atoi(f[2])
		sid, _ = strconv.Atoi(f[3])
		ttyNr, _ = strconv.Atoi(f[4])
	}
	return pgid, sid, ttyNr
}

// leave starts a child the shell leaves behind and returns the record of
// event that says which, or why it could not start; describe, when set,
// adds what is known of the started child.
func leave(b Behaviour, pid int, event string, start func() (int, error), describe func(*Record)) Record {
	r := Record{Event: event, Tag: b.Tag, Pid: pid}
	child, err := start()
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.Child = child
	if describe != nil {
		describe(&r)
	}
	return r
}

// withStat adds the child's process group and session to r.
func withStat(r *Record) { r.Pgid, r.Sid, _ = procStatOf(strconv.Itoa(r.Child)) }

// child is a child of this binary that runs hold for ms milliseconds: the
// processes an rc leaves behind. Its stdin is the null device.
type child struct {
	ms       int
	env      []string             // added to the role and hold variables
	stdout   bool                 // hold the probe's stdout open (else the null device)
	attr     *syscall.SysProcAttr // its group or session; nil: this process group
	describe string               // what it is, for the error
}

// start starts c and returns its pid.
func (c child) start() (int, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, fmt.Errorf("start %s child: %w", c.describe, err)
	}
	cmd := exec.Command(self)
	cmd.Env = append(append(os.Environ(), RoleVariable+"="+Role, holdVariable+"="+strconv.Itoa(c.ms)), c.env...)
	if c.stdout {
		cmd.Stdout = os.Stdout
	}
	cmd.SysProcAttr = c.attr
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("start %s child: %w", c.describe, err)
	}
	return cmd.Process.Pid, nil
}

// startHold starts a child in this process group that holds stdout open
// for ms milliseconds, ignoring SIGTERM, SIGHUP and SIGINT if asked.
func startHold(ms int, ignoreTERM bool) (int, error) {
	c := child{ms: ms, stdout: true, describe: "hold"}
	if ignoreTERM {
		c.env = []string{holdVariable + "_IGNORE_TERM=1"}
	}
	return c.start()
}

// startJob starts a child that sleeps for ms milliseconds in a process
// group of its own, as a shell with job control starts a background job.
// It holds nothing of the probe's open.
func startJob(ms int) (int, error) {
	return child{ms: ms, attr: &syscall.SysProcAttr{Setpgid: true}, describe: "job"}.start()
}

// startDetached starts a child that holds stdout open for ms milliseconds
// in a session of its own, as an rc's `setsid daemon &` does.
func startDetached(ms int) (int, error) {
	return child{ms: ms, stdout: true, attr: &syscall.SysProcAttr{Setsid: true}, describe: "detached"}.start()
}

// startLeaderless starts a child that runs on for ms milliseconds after its
// main thread has exited (see Behaviour.LeaderlessMS): in this process
// group, or with ownGroup in a group of its own (LeaderlessJobMS). It holds
// nothing of the probe's open.
func startLeaderless(ms int, ownGroup bool) (int, error) {
	c := child{ms: ms, env: []string{leaderlessVariable + "=1"}, describe: "leaderless"}
	if ownGroup {
		c.attr = &syscall.SysProcAttr{Setpgid: true}
	}
	return c.start()
}

// withLeaderless adds the child's group and session to r, and whether it
// was seen leaderless, waiting up to 5 s for its main thread to go.
func withLeaderless(r *Record) {
	withStat(r)
	r.Leaderless = waitLeaderless(r.Child, 5*time.Second)
}

// leaderlessVariable makes the child hold starts leaderless.
const leaderlessVariable = holdVariable + "_LEADERLESS"

// hold is the child startHold, startDetached, startJob and startLeaderless start.
func hold(ms string) int {
	if os.Getenv(holdVariable+"_IGNORE_TERM") != "" {
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	}
	n, _ := strconv.Atoi(ms)
	if os.Getenv(leaderlessVariable) != "" {
		return holdLeaderless(time.Duration(n) * time.Millisecond)
	}
	time.Sleep(time.Duration(n) * time.Millisecond)
	return 0
}

// waitFor waits for path to exist, at most max.
func waitFor(path string, max time.Duration) {
	deadline := time.Now().Add(max)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// lateStep is the longest sleep waitUntil takes at once: short enough that
// the last second of a wait holds a hundred samples of how late the
// machine wakes a timer.
const lateStep = 10 * time.Millisecond

// waitUntil sleeps for d, in steps of at most lateStep, and returns the
// worst oversleep of a step in the last second of the wait (Record.Late).
func waitUntil(d time.Duration) time.Duration {
	deadline := time.Now().Add(d)
	var worst time.Duration
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return worst
		}
		step := min(left, lateStep)
		t0 := time.Now()
		time.Sleep(step)
		if over := time.Since(t0) - step; left <= time.Second+step && over > worst {
			worst = over
		}
	}
}
