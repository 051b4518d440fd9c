package client

import (
	"errors"
	"os"
	"time"
)

// drainReader reads one of the implementation's pipes. Once the
// implementation has exited, a read deadline (drainAfterExit) bounds the
// wait for end-of-file, which only a process it left behind holding the
// pipe can delay. Go fails every read once its deadline has passed, even
// when bytes are waiting in the pipe, so a reader that a loaded machine
// kept from running until then would lose the implementation's last lines
// and blame it for a leftover process (proto_permission_answered_at_shutdown
// errored so at load 26). drainReader reads what the pipe already holds
// before it lets the deadline stand: the deadline bounds waiting, never
// reading.
type drainReader struct{ f *os.File }

func (r drainReader) Read(p []byte) (int, error) {
	for {
		n, err := r.f.Read(p)
		if n == 0 && errors.Is(err, os.ErrDeadlineExceeded) && pending(r.f) > 0 {
			r.f.SetReadDeadline(time.Now().Add(drainAfterExit))
			continue
		}
		return n, err
	}
}
