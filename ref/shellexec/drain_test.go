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
