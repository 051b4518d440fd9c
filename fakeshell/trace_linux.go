package fakeshell

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

// traceVariable makes the binary the tracer startTracer starts: it traces
// the process traceeVariable names for the given number of milliseconds.
const (
	traceVariable  = "APEXCHECK_FAKESHELL_TRACE"
	traceeVariable = "APEXCHECK_FAKESHELL_TRACEE"
)

const (
	ptraceSeize   = 0x4206     // PTRACE_SEIZE
	prSetPtracer  = 0x59616d61 // PR_SET_PTRACER (Yama)
	prPtracerAny  = ^uintptr(0)
	pPID          = 1          // P_PID
	wStopped      = 0x2        // WSTOPPED
	wExited       = 0x4        // WEXITED
	wNoWait       = 0x01000000 // WNOWAIT
	wAll          = 0x40000000 // __WALL
	cldTrapped    = 4          // CLD_TRAPPED
	siginfoCode   = 8          // offset of si_code
	siginfoStatus = 24         // offset of si_status
)

// startTracer starts a child of this binary in a session of its own, its
// standard streams on the null device, that traces this process for ms
// milliseconds, and returns its pid once the trace is in place.
func startTracer(ms int) (int, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	// Where Yama restricts tracing to descendants, a tracee must allow
	// its tracer; without Yama this fails with EINVAL, and is not needed.
	syscall.RawSyscall6(syscall.SYS_PRCTL, prSetPtracer, prPtracerAny, 0, 0, 0, 0)
	r, w, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), RoleVariable+"="+Role, traceVariable+"="+strconv.Itoa(ms),
		traceeVariable+"="+strconv.Itoa(os.Getpid()))
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return 0, err
	}
	go cmd.Wait() // the tracer outlives this process, as a rule
	answer, _ := io.ReadAll(r)
	if string(answer) != "ok" {
		return 0, fmt.Errorf("tracer: %s", answer)
	}
	return cmd.Process.Pid, nil
}

// trace is the tracer startTracer starts: it seizes the tracee, says so on
// fd 3, and passes every signal the tracee stops on to it, until the
// tracee dies or ms milliseconds have passed. It never reaps the dead
// tracee: until this process exits the kernel reports the death to it
// alone, not to the tracee's parent.
func trace(ms string) int {
	runtime.LockOSThread() // ptrace requests must come from the tracing thread
	n, _ := strconv.Atoi(ms)
	go func() {
		// Exiting lets the tracee go: a dead one is then reported to its
		// parent, a live one runs on untraced.
		time.Sleep(time.Duration(n) * time.Millisecond)
		os.Exit(0)
	}()
	pid, _ := strconv.Atoi(os.Getenv(traceeVariable))
	ready := os.NewFile(3, "ready")
	if _, _, errno := syscall.Syscall6(syscall.SYS_PTRACE, ptraceSeize, uintptr(pid), 0, 0, 0, 0); errno != 0 {
		fmt.Fprintf(ready, "PTRACE_SEIZE %d: %v", pid, errno)
		return 1
	}
	fmt.Fprint(ready, "ok")
	ready.Close()
	var info [128]byte // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info[0])), wStopped|wExited|wNoWait|wAll, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			break
		}
		code := *(*int32)(unsafe.Pointer(&info[siginfoCode]))
		if code != cldTrapped {
			break // dead: hold it, unreaped
		}
		sig := *(*int32)(unsafe.Pointer(&info[siginfoStatus]))
		if sig&0x7f == int32(syscall.SIGTRAP) || sig > 0x7f {
			sig = 0 // a ptrace event stop, not a signal to pass on
		}
		syscall.PtraceCont(pid, int(sig))
	}
	select {} // until the goroutine above exits
}
