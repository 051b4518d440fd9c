package shellexec

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestFormatJSNumber(t *testing.T) {
	tests := map[float64]string{
		1: "1", 0.5: "0.5", 1.5: "1.5", 1e-7: "1e-7", 1e-6: "0.000001", 123456789: "123456789",
		2147483.647: "2147483.647", 1e21: "1e+21", 1e20: "100000000000000000000", -2.5: "-2.5",
		sum(0.1, 0.2): "0.30000000000000004", 1.5e-10: "1.5e-10", math.Inf(1): "Infinity",
	}
	for in, want := range tests {
		if got := FormatJSNumber(in); got != want {
			t.Errorf("FormatJSNumber(%v) = %q, want %q", in, got, want)
		}
	}
}

// sum adds at run time: Go folds constant expressions exactly.
func sum(a, b float64) float64 { return a + b }

// testEnv is a minimal environment with a HOME of its own, so the login
// shell does not run the developer's profile.
func testEnv(t *testing.T) []string {
	return []string{"HOME=" + t.TempDir(), "PATH=/usr/local/bin:/usr/bin:/bin"}
}

func TestResolveTimeout(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		in   *float64
		want time.Duration
		err  error
	}{
		{nil, 0, nil},
		{f(1), time.Second, nil},
		{f(1e-7), time.Millisecond, nil},
		{f(2147483.647), 2147483647 * time.Millisecond, nil},
		{f(2147483.648), 0, ErrTimeoutTooLarge},
		{f(0), 0, ErrTimeoutNotPositive},
		{f(math.Copysign(0, -1)), 0, ErrTimeoutNotPositive},
		{f(-1), 0, ErrTimeoutNotPositive},
		{f(math.Inf(1)), 0, ErrTimeoutNotPositive},
		{f(math.NaN()), 0, ErrTimeoutNotPositive},
	}
	for _, tt := range tests {
		got, err := ResolveTimeout(tt.in)
		if !errors.Is(err, tt.err) || got != tt.want {
			t.Errorf("ResolveTimeout(%v) = %v, %v; want %v, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the two pumps.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestRunExitCodesAndSignals(t *testing.T) {
	tests := []struct {
		command string
		code    int
		out     string
	}{
		{"echo hi", 0, "hi\n"},
		{"echo err >&2; exit 7", 7, "err\n"},
		{"kill -KILL $$", 137, ""},
	}
	for _, tt := range tests {
		var out syncBuffer
		got, err := Run(context.Background(), Request{Command: tt.command, Dir: t.TempDir(), Env: testEnv(t), Output: &out})
		if err != nil {
			t.Fatalf("Run(%q): %v", tt.command, err)
		}
		if got.ExitCode != tt.code || out.String() != tt.out {
			t.Errorf("Run(%q) = code %d, output %q; want %d, %q", tt.command, got.ExitCode, out.String(), tt.code, tt.out)
		}
	}
}

func TestRunChecksBeforeSpawning(t *testing.T) {
	aborted, cancel := context.WithCancel(context.Background())
	cancel()
	bad := -1.0
	dir := t.TempDir()
	var out syncBuffer
	_, err := Run(aborted, Request{Command: "echo x > ran", Dir: dir, Timeout: &bad, ShellPath: dir + "/none", Output: &out})
	if !errors.Is(err, ErrTimeoutNotPositive) {
		t.Fatalf("invalid timeout first: got %v", err)
	}
	_, err = Run(aborted, Request{Command: "echo x > ran", Dir: dir + "/missing", ShellPath: dir + "/none", Output: &out})
	if !errors.Is(err, ErrAborted) {
		t.Fatalf("abort second: got %v", err)
	}
	_, err = Run(context.Background(), Request{Command: "echo x > ran", Dir: dir + "/missing", ShellPath: dir + "/none", Output: &out})
	if !errors.Is(err, ErrShellNotFound) {
		t.Fatalf("shell third: got %v", err)
	}
	var cwdErr *CwdError
	_, err = Run(context.Background(), Request{Command: "echo x > ran", Dir: dir + "/missing", Output: &out})
	if !errors.As(err, &cwdErr) {
		t.Fatalf("cwd last: got %v", err)
	}
}

func TestRunDoesNotWaitForDetachedGrandchild(t *testing.T) {
	dir := t.TempDir()
	t.Cleanup(func() { killPidFile(dir + "/pid") })
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), Request{Command: "setsid sleep 30 & echo $! > pid; echo parent", Dir: dir, Env: testEnv(t), Output: &out})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second): // far beyond the grace; far below the sleep
		t.Fatal("Run waited for the grandchild's pipes")
	}
	if out.String() != "parent\n" {
		t.Errorf("output %q", out.String())
	}
}

// killPidFile kills the process whose ID the file holds.
func killPidFile(path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && pid > 0 {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}
