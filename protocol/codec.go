package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// MaxLine is the longest message either side accepts, in bytes. A result
// carries at most the 50 KB tail plus footers, so this leaves ample room for
// large raw arguments (a 1 MiB command) while bounding a broken peer.
const MaxLine = 16 << 20

// ErrLineTooLong is returned, wrapped with the size seen and the limit, by
// Reader.Line for a line longer than MaxLine.
var ErrLineTooLong = errors.New("protocol: message longer than the limit")

// lineTooLong says how long the line was and which limit it broke, so
// that a peer's author can tell a runaway message from a limit set too low.
func lineTooLong(size int, complete bool) error {
	at := "at least "
	if complete {
		at = ""
	}
	return fmt.Errorf("%w: %s%d bytes, the limit is %d bytes (16 MiB, PROTO-1)", ErrLineTooLong, at, size, MaxLine)
}

// Reader reads newline-delimited JSON messages.
type Reader struct {
	r *bufio.Reader
}

// NewReader returns a Reader reading from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10)}
}

// Line returns the next non-empty line without its newline. It returns
// io.EOF at the end of input; a final line without a newline is returned
// first.
func (r *Reader) Line() ([]byte, error) {
	for {
		var line []byte
		for {
			chunk, err := r.r.ReadSlice('\n')
			line = append(line, chunk...)
			if len(line) > MaxLine {
				// Skip the rest of the line so the stream stays in step,
				// counting it for the message.
				size := len(line)
				for errors.Is(err, bufio.ErrBufferFull) {
					chunk, err = r.r.ReadSlice('\n')
					size += len(chunk)
				}
				if err == nil {
					size-- // the line feed
				}
				return nil, lineTooLong(size, err == nil)
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if err != nil {
				if errors.Is(err, io.EOF) && len(bytes.TrimSpace(line)) > 0 {
					return bytes.TrimRight(line, "\r\n"), nil
				}
				return nil, err
			}
			break
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(bytes.TrimSpace(line)) > 0 {
			return line, nil
		}
	}
}

// Writer writes newline-delimited JSON messages. It is safe for concurrent
// use: each message is written whole.
type Writer struct {
	mu sync.Mutex
	w  io.Writer
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write encodes v as one line. HTML characters are not escaped, so the
// bytes on the wire are the text itself (FACTS §5: Go escapes &, <, >
// unless told not to).
func (w *Writer) Write(v any) error {
	line, err := Marshal(v)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.w.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("protocol: write message: %w", err)
	}
	return nil
}

// Marshal encodes v as compact JSON without HTML escaping and without a
// trailing newline.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("protocol: encode message: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
