//go:build unix

package output

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFileMode checks OUT-22: the file is 0600 whatever the umask.
func TestFileMode(t *testing.T) {
	for _, umask := range []int{0, 0o022, 0o277} {
		old := syscall.Umask(umask)
		s := feed(t, Options{}, []byte(strings.Repeat("x\n", 3000)), 0)
		syscall.Umask(old)
		info, err := os.Stat(s.FullOutputPath)
		if err != nil {
			t.Fatal(err)
		}
		if mode := info.Mode(); mode != 0o600 {
			t.Errorf("umask %#o: file mode %v, want -rw-------", umask, mode)
		}
	}
}

// TestExclusiveCreate checks OUT-22: a name already taken, here by a planted
// symlink, is never opened, so output cannot be redirected through it.
func TestExclusiveCreate(t *testing.T) {
	dir := t.TempDir()
	fixed := func(b []byte) (int, error) {
		for i := range b {
			b[i] = 0xab
		}
		return len(b), nil
	}
	defer func(old func([]byte) (int, error)) { readRandom = old }(readRandom)
	readRandom = fixed

	target := filepath.Join(dir, "target")
	planted := filepath.Join(dir, "apex-code-bash-abababababababab.log")
	if err := os.Symlink(target, planted); err != nil {
		t.Fatal(err)
	}
	a := NewAccumulator(Options{Dir: dir})
	a.Write([]byte(strings.Repeat("secret\n", 3000)))
	s := a.Snapshot()
	err := a.Close()
	if err == nil || s.FullOutputPath != "" {
		t.Errorf("Close = %v, path %q; want a creation error and no path", err, s.FullOutputPath)
	}
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		t.Errorf("the symlink's target was created: %v", err)
	}
}
