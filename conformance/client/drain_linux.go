package client

import (
	"os"
	"syscall"
	"unsafe"
)

// pending returns how many bytes f, a pipe, holds unread (FIONREAD); 0
// when it cannot say.
func pending(f *os.File) int {
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
