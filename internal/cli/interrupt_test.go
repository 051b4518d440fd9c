package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
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
	waitExit(t, cmd, ExitInterrupted, &stderr)
	checkNothingLeft(t, tmp)
}

// TestInterruptMidRun: Ctrl-C in the middle of a run of many scenarios,
// some finished, some running, some not started, prints one line on
// stderr and the summary of those that finished, and nothing about the
// scenarios the interruption broke (it used to print a FAILED block for
// each scenario whose file it had removed).
func TestInterruptMidRun(t *testing.T) {
	bin := buildKit(t)
	tmp := t.TempDir()
	cmd := exec.Command(bin, "--area", "output", "--parallel", "2", "-v", "--progress", "off")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The event: the first scenario reported.
	var stdout syncBuffer
	first := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		once := sync.Once{}
		for sc.Scan() {
			stdout.WriteString(sc.Text() + "\n")
			if strings.HasPrefix(sc.Text(), "PASSED ") {
				once.Do(func() { close(first) })
			}
		}
	}()
	select {
	case <-first:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("no scenario finished; stderr:\n%s", stderr.String())
	}
	cmd.Process.Signal(syscall.SIGINT)
	waitExit(t, cmd, ExitInterrupted, &stderr)
	checkNothingLeft(t, tmp)

	if want := "apexcheck: interrupt: stopping the implementations and removing the run's files\n"; stderr.String() != want {
		t.Errorf("stderr:\n%s\nwant the one line:\n%s", stderr.String(), want)
	}
	got := stdout.String()
	for _, bad := range []string{"FAILED", "ERRORED", "no such file", "rerun:"} {
		if strings.Contains(got, bad) {
			t.Errorf("stdout reports the scenarios the interruption broke (%q):\n%s", bad, got)
		}
	}
	m := regexp.MustCompile(`(?m)^interrupted: (\d+) of (\d+) scenarios finished; the summary counts only them`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("no partial summary:\n%s", got)
	}
	passed := strings.Count(got, "\nPASSED ")
	if m[1] != strconv.Itoa(passed) || !strings.Contains(got, fmt.Sprintf("%d passed, 0 failed, 0 errored, 0 skipped", passed)) {
		t.Errorf("the summary does not count the %d scenarios reported:\n%s", passed, got)
	}
}

// TestBrokenPipe: when the reader of the output goes away (apexcheck |
// head), the run stops as if interrupted, quietly: the implementations
// are killed, the temporary trees removed, and the status is a shell's
// for SIGPIPE.
func TestBrokenPipe(t *testing.T) {
	bin := buildKit(t)
	tmp := t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--area", "output", "--parallel", "2", "-v", "--progress", "off")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	cmd.Stdout = w
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	// Read as head -3 does, then go away.
	sc := bufio.NewScanner(r)
	for i := 0; i < 3 && sc.Scan(); i++ {
	}
	r.Close()
	waitExit(t, cmd, ExitBrokenPipe, &stderr)
	checkNothingLeft(t, tmp)
	if want := "apexcheck: output closed (broken pipe): stopping the implementations and removing the run's files\n"; stderr.String() != want {
		t.Errorf("stderr:\n%s\nwant the one line:\n%s", stderr.String(), want)
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) WriteString(x string) {
	s.mu.Lock()
	s.b.WriteString(x)
	s.mu.Unlock()
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitExit waits (bounded) for cmd to exit with status code.
func waitExit(t *testing.T, cmd *exec.Cmd, code int, stderr fmt.Stringer) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatalf("the run did not end within a minute; stderr:\n%s", stderr)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != code {
		t.Errorf("exit %v, want status %d; stderr:\n%s", err, code, stderr)
	}
}

// checkNothingLeft checks that a run given TMPDIR tmp left no file there
// and no process with tmp in its environment.
func checkNothingLeft(t *testing.T, tmp string) {
	t.Helper()
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
		t.Errorf("processes outlived the run:\n%s", strings.Join(who, "\n"))
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
