package procwait

import (
	"syscall"
	"unsafe"
)

// waitid(2)'s arguments, which package syscall does not name.
const (
	pPID    = 1          // P_PID
	wEXITED = 0x4        // WEXITED
	wNOWAIT = 0x01000000 // WNOWAIT
)

// Supported reports whether WaitExited leaves the process unreaped.
const Supported = true

// WaitExited blocks until the child pid has exited, leaving it a zombie
// for the caller to reap. It returns at once when pid is not a child of
// this process.
func WaitExited(pid int) {
	var info [128]byte // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info)), wEXITED|wNOWAIT, 0, 0)
		if errno != syscall.EINTR {
			return
		}
	}
}
