package mutate

import (
	"os/exec"
	"syscall"
	"testing"
)

// TestSandboxContainsKill runs kill(-1, SIGKILL), the worst a mutant can
// do, in the sandbox and checks that a process outside it lives on.
func TestSandboxContainsKill(t *testing.T) {
	prefix, err := FindSandbox()
	if err != nil {
		t.Skip(err)
	}
	outside := exec.Command("sleep", "60")
	if err := outside.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		outside.Process.Kill()
		outside.Wait()
	}()
	args := append(append([]string{}, prefix[1:]...), "sh", "-c", "sleep 60 & kill -9 -1; echo done")
	out, err := exec.Command(prefix[0], args...).CombinedOutput()
	if err != nil || string(out) != "done\n" {
		t.Fatalf("%v in the sandbox: %v %q", prefix, err, out)
	}
	if err := outside.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("kill -1 in the sandbox reached a process outside it: %v", err)
	}
}
