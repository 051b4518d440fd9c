package client

import (
	"errors"
	"io"
	"os"
	"runtime"
	"testing"
	"time"
)

// TestDrainReaderReadsPastDeadline checks that a read deadline that has
// passed cuts only a wait for more: bytes already in the pipe are read
// (Go's own read fails at once), and a pipe that stays empty while its
// writer holds it still fails at the deadline.
func TestDrainReaderReadsPastDeadline(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pending bytes are known on Linux only")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, err := w.WriteString("last line\n"); err != nil {
		t.Fatal(err)
	}
	r.SetReadDeadline(time.Now().Add(-time.Second))
	if _, err := r.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a plain read past its deadline: err %v; the test assumes Go fails it", err)
	}
	buf := make([]byte, 64)
	n, err := drainReader{r}.Read(buf)
	if err != nil || string(buf[:n]) != "last line\n" {
		t.Fatalf("read past the deadline with bytes waiting = %q, %v; want the line", buf[:n], err)
	}
	r.SetReadDeadline(time.Now().Add(-time.Second))
	start := time.Now()
	if _, err := (drainReader{r}).Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("an empty pipe still held by its writer: err %v, want the deadline", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the empty pipe's read took %v", d)
	}
	w.Close()
	r.SetReadDeadline(time.Time{})
	if _, err := (drainReader{r}).Read(buf); err != io.EOF {
		t.Errorf("after the writer closed: err %v, want EOF", err)
	}
}
