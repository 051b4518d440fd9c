//go:build unix && !linux

package loginpath

import (
	"os/exec"
	"syscall"
)

// shellAttr is how the shell starts (PATH-4): leading a new session. This
// platform has no parent-death signal in package syscall; PATH-26 asks an
// implementation here for another way, which this reference, run by the
// kit on Linux only, does not provide.
func shellAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

// KillSession ends the process group sid with SIGKILL (PATH-8). Without
// /proc this reference does not find the session's other process groups,
// as PATH-25 asks (sysctl KERN_PROC_SESSION would on macOS and the BSDs):
// the kit runs the reference on Linux only.
func KillSession(sid int) {
	syscall.Kill(-sid, syscall.SIGKILL)
}

// watchExit returns a channel closed when the started cmd has exited and
// been reaped, and a function that does nothing more. Reaping at once lets
// the shell's pid be reused before KillSession aims at its group; a
// waitid with WNOWAIT, as on Linux, would close that window.
func watchExit(cmd *exec.Cmd) (exited <-chan struct{}, reap func()) {
	ch := make(chan struct{})
	go func() {
		cmd.Wait()
		close(ch)
	}()
	return ch, func() {}
}
