package output

import (
	"bufio"
	"bytes"
	"os"
	"sync"
)

// Options configure an Accumulator.
type Options struct {
	// Dir holds the full-output file; "" means os.TempDir() ($TMPDIR).
	Dir string
	// Prefix starts the file name; "" means DefaultPrefix.
	Prefix string
	// MaxLines and MaxBytes are the limits; 0 means the defaults.
	MaxLines, MaxBytes int
}

// Snapshot is the state of an accumulated stream at one moment: its tail
// result, and where the complete output is kept.
type Snapshot struct {
	Result
	// FullOutputPath names the full-output file, "" when none was opened
	// (OUT-19, OUT-24) or when it could not be created (Close then says
	// why).
	FullOutputPath string
	// LastLineBytes is the decoded size of the last line of the text (the
	// one a partial tail is cut from), for the footer of OUT-11 (OUT-26).
	LastLineBytes int64
}

// Accumulator takes a command's output stream and keeps what the model will
// see, with memory bounded independently of the stream's size (OUT-25).
// Stdout and stderr are fed into one Accumulator, in arrival order; it is
// safe for concurrent use.
type Accumulator struct {
	mu       sync.Mutex
	maxLines int
	maxBytes int
	dir      string
	prefix   string
	emit     func([]byte) // a.consume, bound once

	dec     utf8Decoder
	bomDone bool // the first decoded character has been seen (OUT-16)

	rawBytes     int64 // bytes written
	decodedBytes int64 // bytes of decoded text
	newlines     int
	openLine     int64 // decoded bytes after the last "\n"
	closedLine   int64 // decoded bytes of the line the last "\n" ended

	// win is the decoded tail window: a suffix of the decoded text, of at
	// least winSize bytes once the text is that long. winComplete reports
	// whether it starts a line.
	win         []byte
	winSize     int
	winComplete bool

	// raw holds the bytes written before the file is opened; it never
	// passes the byte limit, since passing it opens the file (OUT-19).
	raw      []byte
	file     *os.File
	bw       *bufio.Writer
	path     string
	fileErr  error // the first file error, reported by Close
	finished bool
	closed   bool
}

// fileBuffer is the write buffer of the full-output file. Writes at least
// this large bypass it.
const fileBuffer = 64 << 10

// NewAccumulator returns an empty Accumulator. It creates no file until the
// output passes a limit (OUT-19).
func NewAccumulator(o Options) *Accumulator {
	maxLines, maxBytes := limits(o.MaxLines, o.MaxBytes)
	a := &Accumulator{
		maxLines: maxLines,
		maxBytes: maxBytes,
		dir:      o.Dir,
		prefix:   o.Prefix,
		// Upstream keeps a rolling tail of twice the byte limit; tailOf
		// needs more than maxBytes+1 bytes after the window start moves up
		// to 3 bytes to a character boundary, which tiny limits would miss.
		winSize:     max(2*maxBytes, maxBytes+8),
		winComplete: true,
	}
	if a.dir == "" {
		a.dir = os.TempDir()
	}
	if a.prefix == "" {
		a.prefix = DefaultPrefix
	}
	a.emit = a.consume
	return a
}

// Write adds output. It always returns len(p), nil: output must keep
// flowing whatever happens to the file, so a file error is remembered and
// reported by Close. Output written after Finish is dropped, as the seed
// stops accepting output once the command is over (OUT-32).
func (a *Accumulator) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.finished {
		return len(p), nil
	}
	a.rawBytes += int64(len(p))
	a.dec.decode(p, a.emit)
	if a.file != nil || a.path != "" || a.fileErr != nil || a.overLimit() {
		// OUT-19, OUT-20: open the file the first time a limit is passed,
		// with everything before, then stream the rest into it.
		a.ensureFile()
		a.writeFile(p)
	} else {
		a.raw = append(a.raw, p...)
	}
	return len(p), nil
}

// Finish ends the stream: an incomplete UTF-8 sequence at the end becomes
// U+FFFD (OUT-15). Later writes are dropped.
func (a *Accumulator) Finish() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.finishLocked()
}

func (a *Accumulator) finishLocked() {
	if a.finished {
		return
	}
	a.finished = true
	a.dec.flush(a.emit)
	if a.overLimit() {
		a.ensureFile()
	}
}

// Snapshot returns the current tail. When the output is truncated it makes
// sure the full-output file exists (the seed's persistIfTruncated, OUT-19,
// OUT-29), and it flushes the file so that the file holds everything
// written so far. A partial UTF-8 sequence at the end of the output so far
// is left out until it completes or Finish is called (OUT-15).
func (a *Accumulator) Snapshot() Snapshot {
	a.mu.Lock()
	defer a.mu.Unlock()
	totalLines := a.totalLines()
	// OUT-18: the tail of the whole decoded text, computed from the window.
	r := tailOf(a.win, a.winComplete, totalLines, a.decodedBytes, a.maxLines, a.maxBytes)
	if r.Truncated {
		a.ensureFile()
	}
	a.flushFile()
	s := Snapshot{Result: r, FullOutputPath: a.path, LastLineBytes: a.openLine}
	if a.openLine == 0 && a.newlines > 0 {
		// OUT-26: a text ending in "\n" has the line that newline ended as
		// its last line.
		s.LastLineBytes = a.closedLine
	}
	return s
}

// Close finishes the stream if needed and closes the full-output file,
// leaving it on disk (OUT-23). It returns the first error met creating or
// writing the file.
func (a *Accumulator) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.finishLocked()
	if !a.closed {
		a.closed = true
		a.flushFile()
		if a.file != nil {
			// Write errors surfaced at the flush above; what is left is
			// closing, after the path may have been reported, so setErr
			// must not remove the file.
			f := a.file
			a.file, a.bw = nil, nil
			if err := f.Close(); err != nil {
				a.setErr(err, "close full-output file")
			}
		}
	}
	return a.fileErr
}

func (a *Accumulator) totalLines() int {
	if a.openLine > 0 {
		return a.newlines + 1
	}
	return a.newlines
}

// overLimit reports whether raw bytes, decoded bytes or lines have passed a
// limit, the condition that opens the file (OUT-19).
func (a *Accumulator) overLimit() bool {
	return a.rawBytes > int64(a.maxBytes) || a.decodedBytes > int64(a.maxBytes) || a.totalLines() > a.maxLines
}

// consume takes one piece of decoded text.
func (a *Accumulator) consume(p []byte) {
	if !a.bomDone {
		a.bomDone = true
		// OUT-16: like TextDecoder, drop a byte order mark that starts the
		// stream. Pieces hold whole characters, so the first one holds the
		// first character whole.
		p = bytes.TrimPrefix(p, bom)
	}
	if len(p) == 0 {
		return
	}
	a.decodedBytes += int64(len(p))
	if last := bytes.LastIndexByte(p, '\n'); last < 0 {
		a.openLine += int64(len(p))
	} else {
		n := bytes.Count(p, newline)
		a.newlines += n
		if n == 1 {
			a.closedLine = a.openLine + int64(last)
		} else {
			a.closedLine = int64(last - bytes.LastIndexByte(p[:last], '\n') - 1)
		}
		a.openLine = int64(len(p) - last - 1)
	}
	a.appendWindow(p)
}

var bom = []byte("\uFEFF")

// winSlack is how many times winSize the window may hold before its front
// is dropped. Dropping copies winSize bytes to the start; the more slack,
// the rarer that is: with 4, a third of a copy per byte of output, against a
// whole copy with 2. (Measured end to end, this and 128 KiB pipe reads cut
// the reference's CPU time per GiB by about a fifth.)
const winSlack = 4

// appendWindow adds decoded text to the tail window, dropping its front once
// it holds winSlack times winSize, so that copying stays linear.
func (a *Accumulator) appendWindow(p []byte) {
	if len(p) > a.winSize {
		// Only the end of a large piece can matter.
		cut := a.boundary(p, len(p)-a.winSize)
		a.winComplete = p[cut-1] == '\n'
		a.win = append(a.win[:0], p[cut:]...)
		return
	}
	a.win = append(a.win, p...)
	if len(a.win) > winSlack*a.winSize {
		cut := a.boundary(a.win, len(a.win)-a.winSize)
		a.winComplete = a.win[cut-1] == '\n'
		a.win = a.win[:copy(a.win, a.win[cut:])]
	}
}

// boundary moves i forward to the start of a character. Decoded text is
// valid UTF-8, so at most three bytes are skipped.
func (a *Accumulator) boundary(b []byte, i int) int {
	for i < len(b) && b[i]&0xC0 == 0x80 {
		i++
	}
	return i
}
