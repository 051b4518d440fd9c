package output

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// ensureFile opens the full-output file unless it is open, was closed, or
// could not be created, and writes into it the raw bytes held so far.
func (a *Accumulator) ensureFile() {
	if a.path != "" || a.fileErr != nil || a.closed {
		return
	}
	f, path, err := create(a.dir, a.prefix)
	if err != nil {
		a.setErr(err, "")
		a.raw = nil
		return
	}
	a.fw, a.path = newFileWriter(f), path
	a.writeFile(a.raw)
	a.raw = nil
}

// writeFile appends raw bytes to the open file; after an error it writes
// nothing more, so that the file is a prefix of the stream, never a stream
// with holes.
func (a *Accumulator) writeFile(p []byte) {
	if a.fw == nil || len(p) == 0 {
		return
	}
	if err := a.fw.failed(); err != nil {
		a.setErr(err, "write full-output file")
		return
	}
	a.fw.write(p)
}

// flushFile waits until the file holds everything written so far.
func (a *Accumulator) flushFile() {
	if a.fw == nil {
		return
	}
	if err := a.fw.flush(); err != nil {
		a.setErr(err, "write full-output file")
	}
}

// setErr records the first file error. A file that cannot be written in
// full is not the full output: it is closed and removed, and no path is
// reported from then on (OUT-24, OUT-33), so that the model is never sent to
// a file missing part of the output.
func (a *Accumulator) setErr(err error, context string) {
	if a.fileErr != nil {
		return
	}
	if context != "" {
		err = fmt.Errorf("%s: %w", context, err)
	}
	a.fileErr = err
	if a.fw != nil {
		a.fw.close()
		os.Remove(a.path)
		a.fw, a.path = nil, ""
	}
}

// The file queue: at most queueDepth buffers of queueBuffer bytes exist at
// once, so that it holds at most 1 MiB however fast the command prints and
// however slow the disk is (OUT-25).
const (
	queueBuffer = 256 << 10
	queueDepth  = 4
)

// fileWriter writes the full-output file on a goroutine of its own, so that
// the goroutine reading a command's pipes copies each chunk into a queue
// buffer and goes back to reading while the disk takes the previous ones:
// decoding and writing run side by side. A full queue makes the reader wait
// for the disk, as a direct write would. Only the Accumulator, under its
// lock, calls its methods.
type fileWriter struct {
	f       *os.File
	full    chan []byte // buffers to write, in order; closed by close
	free    chan []byte // written buffers, to be filled again
	made    int         // buffers allocated so far, at most queueDepth
	cur     []byte      // the buffer being filled, nil when none
	pending sync.WaitGroup
	done    chan struct{} // closed when the goroutine has exited

	errMu sync.Mutex
	err   error // the first write error
}

func newFileWriter(f *os.File) *fileWriter {
	w := &fileWriter{
		f:    f,
		full: make(chan []byte, queueDepth),
		free: make(chan []byte, queueDepth),
		done: make(chan struct{}),
	}
	go w.run()
	return w
}

// run writes the queued buffers in order. After an error it writes nothing
// more but keeps returning buffers, so that the reader never blocks on a
// file that has failed.
func (w *fileWriter) run() {
	defer close(w.done)
	for b := range w.full {
		if w.failed() == nil {
			if _, err := w.f.Write(b); err != nil {
				w.errMu.Lock()
				w.err = err
				w.errMu.Unlock()
			}
		}
		w.free <- b[:0] // never blocks: at most queueDepth buffers exist
		w.pending.Done()
	}
}

func (w *fileWriter) failed() error {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	return w.err
}

// write queues a copy of p.
func (w *fileWriter) write(p []byte) {
	for len(p) > 0 {
		if w.cur == nil {
			w.cur = w.buffer()
		}
		n := copy(w.cur[len(w.cur):cap(w.cur)], p)
		w.cur = w.cur[:len(w.cur)+n]
		p = p[n:]
		if len(w.cur) == cap(w.cur) {
			w.send()
		}
	}
}

// buffer returns an empty buffer: a written one, a new one while fewer than
// queueDepth exist, or else the next one the disk gives back.
func (w *fileWriter) buffer() []byte {
	select {
	case b := <-w.free:
		return b
	default:
	}
	if w.made < queueDepth {
		w.made++
		return make([]byte, 0, queueBuffer)
	}
	return <-w.free
}

func (w *fileWriter) send() {
	w.pending.Add(1)
	w.full <- w.cur
	w.cur = nil
}

// flush returns once everything queued so far is in the file, with the
// first write error.
func (w *fileWriter) flush() error {
	if len(w.cur) > 0 {
		w.send()
	}
	w.pending.Wait()
	return w.failed()
}

// close flushes, stops the goroutine and closes the file.
func (w *fileWriter) close() error {
	err := w.flush()
	close(w.full)
	<-w.done
	if cerr := w.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close full-output file: %w", cerr)
	} else if err != nil {
		err = fmt.Errorf("write full-output file: %w", err)
	}
	return err
}

// readRandom supplies the random part of file names; tests replace it to
// force name collisions.
var readRandom = rand.Read

// create opens the full-output file; tests replace it to make writes fail.
var create = createFile

// nameAttempts bounds the retries on a name collision; 64 random bits make
// even one collision unlikely, so running out means something is wrong
// with the directory rather than bad luck.
const nameAttempts = 16

// createFile creates <dir>/<prefix>-<16 hex>.log for writing (OUT-21). It is
// created exclusively with mode 0600 (OUT-22): the file holds everything a
// command printed, secrets included, and lives in a shared directory, so it
// must be neither readable by others nor a pre-planted file or symlink.
func createFile(dir, prefix string) (*os.File, string, error) {
	for range nameAttempts {
		var id [8]byte
		if _, err := readRandom(id[:]); err != nil {
			return nil, "", fmt.Errorf("create full-output file: %w", err)
		}
		path := filepath.Join(dir, prefix+"-"+hex.EncodeToString(id[:])+".log")
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", fmt.Errorf("create full-output file: %w", err)
		}
		// The umask may only have removed bits; set the mode outright so
		// that it is exactly 0600.
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			os.Remove(path)
			return nil, "", fmt.Errorf("create full-output file: %w", err)
		}
		return f, path, nil
	}
	return nil, "", fmt.Errorf("create full-output file in %s: %d names taken", dir, nameAttempts)
}
