package client

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStartErrorCarriesStderr: an implementation that dies before the
// handshake is reported with what it wrote to stderr, since that is what
// says why (here, Node's message for a missing module).
func TestStartErrorCarriesStderr(t *testing.T) {
	dir := t.TempDir()
	argv := []string{"sh", "-c", `echo "node:internal/modules/cjs/loader:1228" >&2; echo "Error: Cannot find module '/x/adapter.js'" >&2; exit 1`}
	_, err := Start(argv, os.Environ(), dir, 10*time.Second, Options{})
	if err == nil {
		t.Fatal("Start succeeded against an implementation that exits at once")
	}
	var se *StartError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T) is not a *StartError", err, err)
	}
	if !errors.Is(err, ErrBroken) {
		t.Errorf("error %v does not wrap ErrBroken", err)
	}
	for _, want := range []string{"handshake", "exit status 1", "implementation stderr (tail):", "Cannot find module '/x/adapter.js'"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not contain %q:\n%v", want, err)
		}
	}
}

// TestHeldStdoutIsBounded: an implementation that exits without answering
// while a process it left behind holds its stdout is reported within the
// drain bound, not when the leftover ends.
func TestHeldStdoutIsBounded(t *testing.T) {
	dir := t.TempDir()
	// The leftover sleeps far longer than the bound; it is in the
	// implementation's process group, which Kill reaps.
	argv := []string{"sh", "-c", `sleep 60 & read line; exit 0`}
	start := time.Now()
	_, err := Start(argv, os.Environ(), dir, 20*time.Second, Options{})
	if err == nil {
		t.Fatal("Start succeeded against an implementation that never answers")
	}
	if !strings.Contains(err.Error(), "left behind") {
		t.Errorf("error does not say a leftover holds stdout: %v", err)
	}
	// drainAfterExit (2 s) plus slack for a loaded machine; the handshake
	// bound (20 s) is what a regression would hit.
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v to report an exited implementation", d)
	}
}

// TestKillGroupSparesAReusedNumber: once the implementation has been
// reaped, a live process with its number means the number was reused, and
// its group is not the implementation's to kill.
func TestKillGroupSparesAReusedNumber(t *testing.T) {
	other := exec.Command("sleep", "30")
	other.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // leads a group with its own number
	if err := other.Start(); err != nil {
		t.Skip("no sleep program:", err)
	}
	done := make(chan error, 1)
	go func() { done <- other.Wait() }()
	defer other.Process.Kill()
	killGroup(other.Process.Pid, true) // as if our leader of that number had been reaped
	select {
	case err := <-done:
		t.Fatalf("the group of a reused number was killed: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	killGroup(other.Process.Pid, false) // our leader, not yet reaped
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the group of a leader not yet reaped was not killed")
	}
}
