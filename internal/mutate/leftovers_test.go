package mutate

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestKillLeftovers starts a process in a session of its own with TMPDIR
// under a directory, as an implementation started by a killed run would
// be, and checks that killLeftovers finds and kills it, and only it.
func TestKillLeftovers(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc here")
	}
	dir := t.TempDir()
	start := func(tmpdir string) *exec.Cmd {
		cmd := exec.Command("sleep", "60")
		cmd.Env = append(os.Environ(), "TMPDIR="+tmpdir)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	ours := start(filepath.Join(dir, "scenario", ".tmp"))
	other := start(t.TempDir())
	killLeftovers(dir)
	done := make(chan error, 1)
	go func() { done <- ours.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the process under dir is still alive")
	}
	if err := other.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("a process outside dir was killed: %v", err)
	}
}
