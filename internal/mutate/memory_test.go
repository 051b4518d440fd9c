package mutate

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// allocateEnv makes this test binary, run as a scenario run, a mutant's
// run that loops allocating: it touches memory a page at a time, 80 MB a
// second, up to 512 MiB (so that a driver that misses the bound costs the
// test machine no more), and then waits to be killed.
const allocateEnv = "MUTATE_TEST_ALLOCATE"

func TestMain(m *testing.M) {
	if os.Getenv(allocateEnv) != "" {
		var held [][]byte
		for len(held) < 64 {
			b := make([]byte, 8<<20)
			for i := 0; i < len(b); i += 4096 {
				b[i] = 1
			}
			held = append(held, b)
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(time.Hour)
	}
	os.Exit(m.Run())
}

// TestResidentUnder counts a process with TMPDIR under a directory, and
// nothing for a directory no process has.
func TestResidentUnder(t *testing.T) {
	if _, err := os.Stat("/proc/self/statm"); err != nil {
		t.Skip("no /proc here")
	}
	dir := t.TempDir()
	cmd := exec.Command("sleep", "60")
	cmd.Env = append(os.Environ(), "TMPDIR="+filepath.Join(dir, "scenario"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if got := residentUnder(dir); got <= 0 {
		t.Errorf("residentUnder(dir) = %d with a process under it, want more than 0", got)
	}
	if got := residentUnder(t.TempDir()); got != 0 {
		t.Errorf("residentUnder(an unused dir) = %d, want 0", got)
	}
}

// TestScenariosMemoryBound runs, as a mutant's scenario run, a process
// that allocates without end, and checks that the run is killed at the
// memory bound, long before its time bound, and counted as such.
func TestScenariosMemoryBound(t *testing.T) {
	if _, err := os.Stat("/proc/self/statm"); err != nil {
		t.Skip("no /proc here")
	}
	t.Setenv(allocateEnv, "1")
	r := &Runner{cfg: Config{MemoryBound: 64 << 20}}
	start := time.Now()
	// The time bound ends the run if the memory bound does not: 64 MiB
	// is passed within a second, polled every second, so 30 s leaves
	// slack for a loaded machine.
	status, _, out := r.scenarios(os.Args[0], "none", t.TempDir(), 30*time.Second)
	if status != OverMemory {
		t.Fatalf("status %q after %v, want %q; output:\n%s", status, time.Since(start), OverMemory, out)
	}
	t.Log(tail(out, 1))
}

// TestDefaultMemoryBound shares half the machine's memory among the jobs.
func TestDefaultMemoryBound(t *testing.T) {
	one := DefaultMemoryBound(1)
	if one == 0 {
		if _, err := os.Stat("/proc/meminfo"); err == nil {
			t.Fatal("DefaultMemoryBound(1) = 0 with /proc/meminfo")
		}
		t.Skip("no /proc/meminfo here")
	}
	if two := DefaultMemoryBound(2); two != one/2 && two != (one-1)/2 {
		t.Errorf("DefaultMemoryBound(2) = %d, want half of DefaultMemoryBound(1) = %d", two, one)
	}
}
