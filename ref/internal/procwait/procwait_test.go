//go:build linux

package procwait

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestZombieUntilReaped: after WaitExited the child is a zombie (its pid
// still taken), and only Cmd.Wait reaps it.
func TestZombieUntilReaped(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	WaitExited(pid)
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatalf("the exited child is gone before it was reaped: %v", err)
	}
	// The state is the field after the parenthesised command name.
	if _, rest, _ := strings.Cut(string(stat), ") "); !strings.HasPrefix(rest, "Z") {
		t.Errorf("state %q, want Z (zombie)", rest[:1])
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("reap: %v", err)
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
		t.Errorf("pid %d still exists after Wait", pid)
	}
}
