package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptCleansUp: a run stopped by SIGINT in the middle of a
// scenario exits with ExitInterrupted, leaves none of its temporary files,
// and no process it or the implementation started (every one of them has
// the run's TMPDIR in its environment) outlives it.
func TestInterruptCleansUp(t *testing.T) {
	bin := buildKit(t)
	tmp := t.TempDir()
	// A scenario whose probe runs for 6.5 s: long enough to be caught in
	// the middle, whatever the load.
	cmd := exec.Command(bin, "--run", "^path_bound_just_beyond$", "--progress", "off")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for the event, not a time: the scenario's work directory.
	deadline := time.Now().Add(time.Minute)
	for {
		dirs, _ := filepath.Glob(filepath.Join(tmp, "apexcheck-work-*", "script-*"))
		if len(dirs) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the scenario never started; stderr:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("the run did not end within a minute of SIGINT")
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != ExitInterrupted {
		t.Errorf("exit %v, want status %d; stderr:\n%s", err, ExitInterrupted, stderr.String())
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Errorf("left in TMPDIR: %s", strings.Join(names, ", "))
	}
	if pids := withEnv("TMPDIR=" + tmp); len(pids) > 0 {
		var who []string
		for _, pid := range pids {
			cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
			who = append(who, fmt.Sprintf("%d %q", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
			syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Errorf("processes outlived the interrupted run:\n%s", strings.Join(who, "\n"))
	}
}

// withEnv lists the processes whose environment has an entry starting
// with value (the entry itself, or a path below it).
func withEnv(value string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if strings.HasPrefix(string(kv), value) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}
