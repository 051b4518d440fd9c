//go:build unix

package conformance

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/apexcheck/apexcheck/fakeshell"
)

// FSizeRole is the value of APEXCHECK_ROLE that makes the kit's binary
// start the implementation under a file-size limit (`impl start -fsize`).
const FSizeRole = "fsizelimit"

// fsizeVariable carries the limit, in bytes, to the role.
const fsizeVariable = "APEXCHECK_FSIZE"

// startFSize starts the implementation through the kit's binary in
// FSizeRole, which limits the size of the files it writes to limit bytes
// and then execs it: the process the runner talks to is the implementation
// itself, in a session of its own as StartClient starts it.
func (s *state) startFSize(limit int64, env []string) (*Client, error) {
	cmd := exec.Command(s.cfg.SelfExe, s.cfg.Impl...)
	cmd.Env = append(append([]string(nil), env...),
		fakeshell.RoleVariable+"="+FSizeRole, fsizeVariable+"="+strconv.FormatInt(limit, 10))
	cmd.Dir = s.ts.Getenv("WORK")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return startCmd(cmd, s.cfg.bound(), nil, nil)
}

// FSizeMain is the role: it sets RLIMIT_FSIZE (soft and hard) to the limit,
// ignores SIGXFSZ, and execs its arguments. An ignored signal stays ignored
// across exec, so a write that would pass the limit fails with EFBIG in the
// implementation, whatever its language, instead of killing it: the way a
// full disk or an exhausted quota makes a write fail. The limit and the
// ignored signal are inherited by whatever the implementation starts.
// Exit status 125 means the limit could not be set.
func FSizeMain() int {
	limit, err := strconv.ParseUint(os.Getenv(fsizeVariable), 10, 64)
	os.Unsetenv(fakeshell.RoleVariable)
	os.Unsetenv(fsizeVariable)
	if err == nil {
		err = setFSize(limit)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "apexcheck file-size limit:", err)
		return 125
	}
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "apexcheck file-size limit: no program to run")
		return 125
	}
	prog, err := exec.LookPath(os.Args[1])
	if err == nil {
		err = syscall.Exec(prog, os.Args[1:], os.Environ())
	}
	fmt.Fprintln(os.Stderr, "apexcheck file-size limit: exec:", err)
	return 127
}

func setFSize(limit uint64) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		return fmt.Errorf("getrlimit: %w", err)
	}
	if uint64(lim.Max) < limit {
		return fmt.Errorf("the hard limit is already %d bytes, below %d", lim.Max, limit)
	}
	// SIG_IGN, not a handler: a handler would not survive the exec.
	signal.Ignore(syscall.SIGXFSZ)
	setRlim(&lim.Cur, limit)
	setRlim(&lim.Max, limit)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		return fmt.Errorf("setrlimit: %w", err)
	}
	return nil
}

// setRlim sets a field of syscall.Rlimit, which is uint64 on Linux and
// macOS but int64 on the BSDs.
func setRlim[T ~uint64 | ~int64](field *T, v uint64) { *field = T(v) }

// fsizeSupported says whether this build can start the implementation under
// a file-size limit ([fsize]).
const fsizeSupported = true
