package shellexec

import (
	"os"
	"syscall"
)

// pipeSize is the capacity asked of each output pipe. Linux's default 64 KiB
// makes a fast writer and the reader trade the CPU back and forth at every
// 64 KiB; a larger pipe lets each side run longer. Asking is best-effort:
// the kernel may refuse (an unprivileged user past its pipe-page budget),
// and the default then stands.
const pipeSize = 1 << 20

// growPipe asks for a larger pipe buffer.
func growPipe(f *os.File) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETPIPE_SZ, pipeSize)
	})
}
