package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestInstalledBinary builds apexcheck as `go install` or `go run` would
// and runs it from a directory outside the repository: the suite and spec
// are embedded, so it must list, explain and version exactly what Main
// does here, and serve --help must print help, not start the reference.
func TestInstalledBinary(t *testing.T) {
	bin := buildKit(t)
	elsewhere := t.TempDir()
	for _, args := range [][]string{{"list", "-v"}, {"explain", "EXEC-1"}, {"version"}, {"serve", "--help"}, {"--help"}} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = elsewhere
		// An open stdin that never ends: a binary that served instead of
		// printing help would wait on it until the context ends.
		stdin, keepOpen, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdin = stdin
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err = cmd.Run()
		cancel()
		stdin.Close()
		keepOpen.Close()
		code, want, wantErr := run(t, args...)
		if err != nil || code != ExitConformant || stdout.String() != want || stderr.String() != wantErr {
			t.Errorf("apexcheck %v from %s: %v\nstdout:\n%s\nstderr:\n%s\nwant (Main, exit %d):\n%s", args, elsewhere, err, stdout.String(), stderr.String(), code, want)
		}
	}
}

// buildKit builds apexcheck as `go install` would, once for the test
// binary, into a temporary directory that TestMain removes, and returns
// its path. It skips in -short mode and without a go tool.
func buildKit(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to build the binary with")
	}
	kit.once.Do(func() {
		dir, err := os.MkdirTemp("", "apexcheck-kit-test-")
		if err != nil {
			kit.err = err
			return
		}
		kit.dir = dir
		bin := filepath.Join(dir, "apexcheck")
		build := exec.Command(goTool, "build", "-o", bin, "./cmd/apexcheck")
		build.Dir = filepath.Join("..", "..")
		if out, err := build.CombinedOutput(); err != nil {
			kit.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		kit.bin = bin
	})
	if kit.err != nil {
		t.Fatal(kit.err)
	}
	return kit.bin
}

// kit is the binary buildKit built.
var kit struct {
	once     sync.Once
	dir, bin string
	err      error
}

// removeKit removes the binary buildKit built, if any.
func removeKit() {
	if kit.dir != "" {
		os.RemoveAll(kit.dir)
	}
}
