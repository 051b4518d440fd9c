// Package procwait sees a child process exit without reaping it.
//
// A process that has exited but not been reaped is a zombie: its process
// ID stays taken, and with it the group and session IDs it leads. Killing
// a shell's process group (kill(-pgid)) after the shell was reaped can
// therefore hit an unrelated group that reused the ID; killing it while
// the shell is a zombie cannot. Callers learn of the exit here, do their
// group kills, and only then reap (os/exec's Cmd.Wait).
package procwait
