package shellexec

import (
	"bytes"
	"os"
	"testing"
	"time"
)

// TestDrainTakesBufferedOutput checks the end of Wait's grace: output
// already in a pipe is kept even though its writer is still open, and the
// drain returns instead of waiting for more.
func TestDrainTakesBufferedOutput(t *testing.T) {
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"small", []byte("written before the shell exited\n")},
		{"more than one read", bytes.Repeat([]byte("0123456789abcdef"), 4096)}, // 64 KiB, two reads
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			defer w.Close() // held open, as by a detached grandchild
			// A Linux pipe holds 64 KiB by default, so the write completes
			// with everything waiting in the pipe.
			if _, err := w.Write(tt.data); err != nil {
				t.Fatal(err)
			}
			r.SetReadDeadline(time.Now()) // as Wait leaves it
			var out bytes.Buffer
			drain(r, &out)
			if !bytes.Equal(out.Bytes(), tt.data) {
				t.Errorf("drained %d bytes, want %d", out.Len(), len(tt.data))
			}
		})
	}
}

// TestDrainEndsUnderEndlessWriter checks that a writer that never pauses
// cannot hold the drain: it stops after drainLimit bytes.
func TestDrainEndsUnderEndlessWriter(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	stop := make(chan struct{})
	go func() {
		chunk := bytes.Repeat([]byte("y\n"), 2048)
		for {
			select {
			case <-stop:
				w.Close()
				return
			default:
				w.Write(chunk)
			}
		}
	}()
	defer close(stop)
	var out countWriter
	done := make(chan struct{})
	go func() { drain(r, &out); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // a hang guard, not a timing assertion
		t.Fatal("drain did not return while a writer kept writing")
	}
	if out.n > drainLimit+32<<10 {
		t.Errorf("drained %d bytes, more than the limit %d", out.n, drainLimit)
	}
}

type countWriter struct{ n int }

func (c *countWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }
