//go:build !linux

package procwait

// Supported reports whether WaitExited leaves the process unreaped. Where
// it does not, callers reap to learn of the exit, and a group kill after
// it may reach a reused ID: the window is the time between the exit and
// the kill.
const Supported = false

// WaitExited returns at once: without waitid's WNOWAIT there is no way to
// wait for an exit without reaping.
func WaitExited(pid int) {}
