package sched

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSample reads this process's own accounting: kept, and never going
// back while its threads live.
func TestSample(t *testing.T) {
	first := Sample(os.Getpid())
	if !first.OK {
		t.Skip("the kernel keeps no schedstat")
	}
	x := 0
	for i := 0; i < 1e6; i++ {
		x += i * i
	}
	h := Between(first, Sample(os.Getpid()))
	if !h.OK || h.Waited < 0 || h.Throttled < 0 || h.Stolen < 0 || x < 0 {
		t.Errorf("held %+v", h)
	}
	if h := Between(first, Held{}); h.OK {
		t.Error("an unread end counts")
	}
	if h := Sample(1 << 30); h.OK {
		t.Error("a process that does not exist has a count")
	}
}

func TestBetween(t *testing.T) {
	from := Held{Waited: 5 * time.Second, Throttled: time.Second, Stolen: 2 * time.Second, OK: true}
	to := Held{Waited: 4 * time.Second, Throttled: 3 * time.Second, Stolen: 2500 * time.Millisecond, OK: true}
	got := Between(from, to)
	want := Held{Waited: 0, Throttled: 2 * time.Second, Stolen: 500 * time.Millisecond, OK: true}
	if got != want {
		t.Errorf("Between = %+v, want %+v", got, want)
	}
	if got.Total() != 2500*time.Millisecond {
		t.Errorf("Total = %v", got.Total())
	}
}

func TestHeldString(t *testing.T) {
	for _, tc := range []struct {
		h    Held
		want string
	}{
		{Held{}, "no scheduler accounting could be read"},
		{Held{Waited: 310 * time.Millisecond, OK: true}, "its threads waited 0.31 s for a CPU"},
		{Held{Waited: 0, Throttled: time.Second, Stolen: 20 * time.Millisecond, OK: true},
			"its threads waited 0.00 s for a CPU, a CPU quota throttled its control group for 1.00 s, the hypervisor took 0.02 s of CPU time from the machine"},
	} {
		if got := tc.h.String(); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.h, got, tc.want)
		}
	}
}

func TestTopFrame(t *testing.T) {
	for stack, want := range map[string]string{
		"[<0>] pipe_read+0x3d/0x4a0\n[<0>] vfs_read+0x1/0x2\n": "pipe_read",
		"":                                   "user space",
		"[<0>] futex_wait_queue+0x60/0x90\n": "futex_wait_queue",
	} {
		if got := topFrame(stack); got != want {
			t.Errorf("topFrame(%q) = %q, want %q", stack, got, want)
		}
	}
}

// TestWhere describes a sleeping child: its state always, and the frame
// it sleeps in when the kernel lets this process read its stack.
func TestWhere(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux shows a process's state in /proc")
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep program:", err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	var got string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		// Wait until it sleeps, past its start-up.
		if got = Where(cmd.Process.Pid); strings.HasPrefix(got, "state sleeping") {
			break
		}
	}
	if !strings.HasPrefix(got, "state sleeping, ") || !strings.Contains(got, " s of CPU used") {
		t.Errorf("Where = %q, want a sleeping process and its CPU time", got)
	}
	if _, err := os.ReadFile("/proc/self/stack"); err == nil && !strings.Contains(got, "threads: 1 in ") {
		t.Errorf("Where = %q, want the frame its one thread sleeps in", got)
	}
	if got := Where(1 << 30); got != "" {
		t.Errorf("Where of no process = %q", got)
	}
}

// TestWhereGroup describes every process of a group: a shell waiting on
// its child, and the child.
func TestWhereGroup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux shows a process's state in /proc")
	}
	cmd := exec.Command("sh", "-c", "sleep 30; true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Skip("no sh:", err)
	}
	defer cmd.Wait()
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	var got string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if got = WhereGroup(cmd.Process.Pid, 8); strings.Count(got, "state sleeping") == 2 {
			break
		}
	}
	for _, want := range []string{fmt.Sprintf("sh (pid %d): state sleeping", cmd.Process.Pid), "; sleep (pid "} {
		if !strings.Contains(got, want) {
			t.Errorf("WhereGroup = %q, want it to contain %q", got, want)
		}
	}
	if got := WhereGroup(cmd.Process.Pid, 1); !strings.HasSuffix(got, "; and 1 more") {
		t.Errorf("WhereGroup with max 1 = %q, want the rest counted", got)
	}
}
