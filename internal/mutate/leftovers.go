package mutate

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// killLeftovers kills every process whose environment has TMPDIR under
// dir. A mutant's scenario run gets its own TMPDIR, which the runner and
// everything it starts inherit (or extend, as $WORK/.tmp), so this finds
// what a run killed mid-way could not clean up itself (implementations in
// process groups of their own, commands detached from them), and nothing
// else. Without /proc it does nothing.
func killLeftovers(dir string) {
	processesUnder(dir, func(pid int) { syscall.Kill(pid, syscall.SIGKILL) })
}

// processesUnder calls f with the PID of every process but this one whose
// environment has TMPDIR under dir.
func processesUnder(dir string, f func(pid int)) {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	want := []byte("TMPDIR=" + dir)
	self := os.Getpid()
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", p.Name(), "environ"))
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if bytes.HasPrefix(kv, want) {
				f(pid)
				break
			}
		}
	}
}
