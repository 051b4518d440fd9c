package fakeshell

import (
	"bufio"
	"os"
	"os/signal"
	"syscall"
	"unsafe"
)

// useTTY opens /dev/tty and, when grab is set, takes the terminal as
// bash's job control does on startup (jobs.c initialize_job_control):
// while the terminal's foreground group is not its own it sends SIGTTIN to
// its own group, which stops it (and everything in that group) until it is
// moved to the foreground; then it makes a group of its own the
// foreground group. With read set it then reads a line from the terminal.
func useTTY(r *Record, grab, read bool) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		r.Error = err.Error()
		return
	}
	defer tty.Close()
	fd := tty.Fd()
	fg, err := tcgetpgrp(fd)
	if err != nil {
		r.Error = err.Error()
		return
	}
	r.Foreground = fg
	if grab {
		for {
			fg, err := tcgetpgrp(fd)
			if err != nil || fg == syscall.Getpgrp() {
				break
			}
			syscall.Kill(0, syscall.SIGTTIN)
		}
		signal.Ignore(syscall.SIGTTOU)
		pid := os.Getpid()
		syscall.Setpgid(0, pid)
		if err := tcsetpgrp(fd, pid); err != nil {
			r.Error = err.Error()
		} else {
			r.Grabbed = true
		}
	}
	if read {
		line, err := bufio.NewReader(tty).ReadString('\n')
		r.Read = &line
		if err != nil {
			r.Error = err.Error()
		}
	}
}

func tcgetpgrp(fd uintptr) (int, error) {
	var pgrp int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCGPGRP, uintptr(unsafe.Pointer(&pgrp))); errno != 0 {
		return 0, errno
	}
	return int(pgrp), nil
}

func tcsetpgrp(fd uintptr, pgrp int) error {
	p := int32(pgrp)
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCSPGRP, uintptr(unsafe.Pointer(&p))); errno != 0 {
		return errno
	}
	return nil
}
