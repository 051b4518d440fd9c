package loginpath

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as an implementation that probes and then waits,
// for TestProbeDiesWithImplementation.
func TestMain(m *testing.M) {
	if os.Getenv(probeAndWait) != "" {
		Probe(Options{})
		select {}
	}
	os.Exit(m.Run())
}

const probeAndWait = "LOGINPATH_TEST_PROBE_AND_WAIT"

// alive reports whether pid is a live process (not a zombie).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(data)
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == ')' {
			return i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
		}
	}
	return false
}

// waitGone fails the test unless pid ends within d.
func waitGone(t *testing.T, pid int, d time.Duration, what string) {
	t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if !alive(pid) {
			return
		}
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("%s (pid %d) survives", what, pid)
}

// TestProbeKillsSession: an rc that turns job control on puts its
// background job in a process group of its own, still in the probe's
// session; the job is killed however the exchange ends (PATH-25).
func TestProbeKillsSession(t *testing.T) {
	if _, err := os.Stat("/bin/bash"); err != nil {
		t.Skip("needs /bin/bash for set -m")
	}
	tests := []struct {
		name, tail string
		wantErr    error
	}{
		{"success", `printf %s /p:/q`, nil},
		{"failure", `printf %s /p:/q; exit 1`, ErrExit},
		{"timeout", `exec sleep 300`, ErrTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := filepath.Join(t.TempDir(), "job")
			p := filepath.Join(t.TempDir(), "shell")
			body := "#!/bin/bash\nset -m\nsleep 300 </dev/null >/dev/null 2>&1 &\necho $! >" + job + "\n" + tt.tail + "\n"
			if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			r := Probe(Options{Env: envWith("SHELL=" + p), Bound: 2 * time.Second})
			if tt.wantErr == nil && !r.OK || tt.wantErr != nil && !errors.Is(r.Err, tt.wantErr) {
				t.Errorf("Probe = %q, %v, %v; want %v", r.PATH, r.OK, r.Err, tt.wantErr)
			}
			pid := readPid(t, job)
			if pgid, _ := syscall.Getpgid(pid); alive(pid) && pgid != pid {
				t.Fatalf("the job is in group %d, not its own: the test proves nothing", pgid)
			}
			waitGone(t, pid, 2*time.Second, "the rc's background job")
		})
	}
}

// TestProbeDiesWithImplementation: SIGKILL to the implementation during a
// probe ends the shell too (PATH-26).
func TestProbeDiesWithImplementation(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	shell := writeShell(t, `echo $$ >`+pidFile+`.tmp; mv `+pidFile+`.tmp `+pidFile+`; exec sleep 300`)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = envWith("SHELL="+shell, probeAndWait+"=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(pidFile); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the probe's shell never started")
		}
	}
	shellPid := readPid(t, pidFile)
	cmd.Process.Kill()
	// The bound is 5 s; the signal comes at once, the rest is slack.
	waitGone(t, shellPid, 5*time.Second, "the probe's shell")
}
