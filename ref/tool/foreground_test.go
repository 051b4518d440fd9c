package tool

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/apexcheck/apexcheck/ref/output"
)

// recorder is an Output that keeps what it is given and the size of each
// write.
type recorder struct {
	got    bytes.Buffer
	writes []int
}

func (r *recorder) Write(p []byte) (int, error) {
	r.writes = append(r.writes, len(p))
	return r.got.Write(p)
}
func (r *recorder) Finish()                   {}
func (r *recorder) Snapshot() output.Snapshot { return output.Snapshot{} }
func (r *recorder) Close() error              { return nil }

// TestReadFrom checks that io.Copy from a pipe-like reader goes through the
// updater's ReadFrom, in reads of readBuffer, delivering every byte in
// order, and that a read error other than EOF is returned.
func TestReadFrom(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 3*readBuffer/16+5)
	rec := &recorder{}
	u := newUpdater(rec, nil, UpdateInterval)
	// Hide WriterTo, as os.File's generic path does, so that io.Copy
	// turns to the destination's ReadFrom.
	n, err := io.Copy(u, struct{ io.Reader }{bytes.NewReader(data)})
	if err != nil || n != int64(len(data)) {
		t.Fatalf("io.Copy = %d, %v; want %d, nil", n, err, len(data))
	}
	if !bytes.Equal(rec.got.Bytes(), data) {
		t.Errorf("the output differs from the input")
	}
	if len(rec.writes) == 0 || rec.writes[0] != readBuffer {
		t.Errorf("write sizes %v, want reads of %d", rec.writes, readBuffer)
	}

	rec = &recorder{}
	u = newUpdater(rec, nil, UpdateInterval)
	n, err = io.Copy(u, iotest.TimeoutReader(bytes.NewReader(data)))
	if !errors.Is(err, iotest.ErrTimeout) || n != readBuffer || rec.got.Len() != readBuffer {
		t.Errorf("io.Copy with a failing reader = %d, %v (%d delivered); want %d, %v", n, err, rec.got.Len(), readBuffer, iotest.ErrTimeout)
	}
}
