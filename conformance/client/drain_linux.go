package client

import (
	"syscall"
	"unsafe"
)

// pending returns how many bytes f, either end of a pipe, holds unread
// (FIONREAD); 0 when it cannot say (f is closed, or nil).
func pending(f syscall.Conn) int {
	if f == nil {
		return 0
	}
	conn, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	var n int32
	conn.Control(func(fd uintptr) {
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); errno != 0 {
			n = 0
		}
	})
	return int(n)
}
