package client

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// Transcript records the protocol messages of a scenario's implementations,
// both directions, as JSON lines a person can read and `apexcheck replay`
// can send to an implementation again. Each line is a [TranscriptEntry].
// It is safe for concurrent use; the zero value is not ready, use
// [NewTranscript]. Write errors are ignored: a transcript is evidence, and
// must not change the run.
type Transcript struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
	impls int
}

// TranscriptEntry is one line of a transcript.
type TranscriptEntry struct {
	// Impl numbers the implementation the message belongs to, from 1, in
	// the order the scenario started them.
	Impl int `json:"impl"`
	// Dir is "start" (the implementation was started: Argv), "send" (a
	// line the kit wrote to its stdin) or "recv" (a line it wrote to its
	// stdout).
	Dir string `json:"dir"`
	// Ms is the time since the transcript began, in milliseconds.
	Ms int64 `json:"ms"`
	// Argv is the command line of a start, and Env its environment (a
	// scenario gives the implementation a small one of its own: WORK,
	// PATH, HOME and TMPDIR inside the work directory, and a few more).
	Argv []string `json:"argv,omitempty"`
	Env  []string `json:"env,omitempty"`
	// Msg is the message when it is valid JSON, as sent or received.
	Msg json.RawMessage `json:"msg,omitempty"`
	// Raw is the line when it is not valid JSON (a scenario probing how
	// an implementation answers a malformed request, or a broken peer).
	Raw string `json:"raw,omitempty"`
}

// Directions of a [TranscriptEntry].
const (
	TranscriptStart = "start"
	TranscriptSend  = "send"
	TranscriptRecv  = "recv"
)

// NewTranscript returns a transcript writing to w.
func NewTranscript(w io.Writer) *Transcript {
	return &Transcript{w: w, start: time.Now()}
}

// begin records the start of an implementation and returns its number.
func (t *Transcript) begin(argv, env []string) int {
	t.mu.Lock()
	t.impls++
	n := t.impls
	t.mu.Unlock()
	t.write(TranscriptEntry{Impl: n, Dir: TranscriptStart, Argv: argv, Env: env})
	return n
}

// record records one line of a message.
func (t *Transcript) record(impl int, dir string, line []byte) {
	e := TranscriptEntry{Impl: impl, Dir: dir}
	line = bytes.TrimRight(line, "\r\n")
	if json.Valid(line) {
		var compact bytes.Buffer
		json.Compact(&compact, line)
		e.Msg = compact.Bytes()
	} else {
		e.Raw = string(line)
	}
	t.write(e)
}

func (t *Transcript) write(e TranscriptEntry) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e.Ms = time.Since(t.start).Milliseconds()
	data, err := json.Marshal(e)
	if err != nil {
		return
	}
	t.w.Write(append(data, '\n'))
}

// sendRecorder is an implementation's stdin that records each line
// written to it.
type sendRecorder struct {
	io.WriteCloser
	t       *Transcript
	impl    int
	mu      sync.Mutex
	partial []byte
}

func (s *sendRecorder) Write(b []byte) (int, error) {
	n, err := s.WriteCloser.Write(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partial = append(s.partial, b[:n]...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		if len(bytes.TrimSpace(s.partial[:i])) > 0 {
			s.t.record(s.impl, TranscriptSend, s.partial[:i])
		}
		s.partial = s.partial[i+1:]
	}
	return n, err
}

// Recorder records the messages of one implementation that the caller
// starts itself (apexcheck replay), in a transcript.
type Recorder struct {
	t    *Transcript
	impl int
}

// RecordStart records the start of implementation number impl, argv with
// env, and returns its recorder.
func RecordStart(t *Transcript, impl int, argv, env []string) *Recorder {
	t.write(TranscriptEntry{Impl: impl, Dir: TranscriptStart, Argv: argv, Env: env})
	return &Recorder{t: t, impl: impl}
}

// Send records a line written to the implementation.
func (r *Recorder) Send(line []byte) { r.t.record(r.impl, TranscriptSend, line) }

// Recv records a line the implementation wrote.
func (r *Recorder) Recv(line []byte) { r.t.record(r.impl, TranscriptRecv, line) }
