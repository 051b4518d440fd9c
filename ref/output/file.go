package output

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
	a.file, a.path = f, path
	a.bw = bufio.NewWriterSize(f, fileBuffer)
	a.writeFile(a.raw)
	a.raw = nil
}

// writeFile appends raw bytes to the open file; after an error it writes
// nothing more, so that the file is a prefix of the stream, never a stream
// with holes.
func (a *Accumulator) writeFile(p []byte) {
	if a.bw == nil || a.fileErr != nil || len(p) == 0 {
		return
	}
	if _, err := a.bw.Write(p); err != nil {
		a.setErr(err, "write full-output file")
	}
}

func (a *Accumulator) flushFile() {
	if a.bw == nil || a.fileErr != nil {
		return
	}
	if err := a.bw.Flush(); err != nil {
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
	if a.file != nil {
		a.file.Close()
		os.Remove(a.path)
		a.file, a.bw, a.path = nil, nil, ""
	}
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
