package loginpath

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/apexcheck/apexcheck/ref/internal/procwait"
)

// shellAttr is how the shell starts (PATH-4, PATH-26): leading a new
// session, and killed by the kernel if the implementation dies before the
// exchange ends (see run on why the thread matters).
func shellAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

// reapLimit bounds KillSession's rescans. A process SIGKILL cannot end at
// once is in uninterruptible sleep; waiting longer for it would hold the
// call back without ending it sooner.
const reapLimit = time.Second

// KillSession ends every process of session sid with SIGKILL, whatever
// its process group (PATH-8, PATH-25): an rc that turns on job control
// puts its background jobs in groups of their own, still in the shell's
// session. It kills the group sid at once, then every process /proc lists
// in the session, and scans again until a scan finds none alive, so a
// process forked between a scan and a kill is caught by the next scan; it
// gives up after reapLimit. Only a process that started a session of its
// own is beyond its reach. The caller keeps the session's leader unreaped
// until it returns (watchExit): a pid, and so a session or group ID, is
// not reused while a process, a zombie included, holds it, so neither the
// group kill nor a scan can hit another process's session.
func KillSession(sid int) {
	syscall.Kill(-sid, syscall.SIGKILL)
	deadline := time.Now().Add(reapLimit)
	for {
		pids := sessionMembers(sid)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// sessionMembers lists the live processes of session sid, never this
// process. A zombie is dead already, only unreaped, unless it is a process
// whose main thread alone has exited (pthread_exit in its main thread):
// /proc shows that one as a zombie while its other threads run, and it is
// live while one of them is.
func sessionMembers(sid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	self := os.Getpid()
	want := strconv.Itoa(sid)
	var pids []int
	for _, s := range stats {
		data, err := os.ReadFile(s)
		if err != nil {
			continue // it ended between the glob and the read
		}
		// The fields after the command name, which may itself hold ')':
		// state ppid pgrp session ...
		i := strings.LastIndexByte(string(data), ')')
		if i < 0 || i+2 > len(data) {
			continue
		}
		f := strings.Fields(string(data[i+2:]))
		if len(f) < 4 || f[3] != want {
			continue
		}
		if (f[0] == "Z" || f[0] == "X") && !liveThread(filepath.Dir(s)) {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(s)))
		if err == nil && pid != self {
			pids = append(pids, pid)
		}
	}
	return pids
}

// liveThread reports whether the process of /proc directory dir, shown as
// a zombie, still has a thread that is not: its main thread has exited
// while others run on (PATH-25).
func liveThread(dir string) bool {
	tasks, _ := filepath.Glob(dir + "/task/[0-9]*/stat")
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue // the thread ended between the glob and the read
		}
		i := strings.LastIndexByte(string(data), ')')
		if i < 0 || i+2 >= len(data) {
			continue
		}
		if state := data[i+2]; state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// watchExit returns a channel closed when the started cmd has exited, and
// a function that reaps it. The exit is seen with waitid's WNOWAIT, which
// leaves the shell a zombie: its pid stays its own, and so do the session
// and group IDs KillSession aims at, until the caller reaps it.
func watchExit(cmd *exec.Cmd) (exited <-chan struct{}, reap func()) {
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		procwait.WaitExited(cmd.Process.Pid)
	}()
	return ch, func() { cmd.Wait() }
}
