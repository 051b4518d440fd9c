package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/apexcheck/apexcheck/conformance/internal/sched"
	"github.com/apexcheck/apexcheck/protocol"
)

// ErrBroken wraps every error caused by the implementation misbehaving at
// the protocol level: a crash, a hang past a bound, or bytes on stdout that
// are not protocol messages. A scenario that meets one is errored, not
// failed.
var ErrBroken = errors.New("implementation broke the protocol")

// Client drives one implementation process over the protocol.
type Client struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	w      *protocol.Writer
	stderr *tailBuffer
	// stdinPipe and stdoutPipe are the runner's ends of the pipes, for
	// what a missed bound's evidence says lies unread in them; nil where
	// the runner cannot say.
	stdinPipe, stdoutPipe syscall.Conn

	mu      sync.Mutex
	pending map[string]*Pending
	broken  error // first protocol violation or read failure
	// shutdownSeen is set by the shutdown response, after which PROTO-9
	// allows no message: a call's result that comes later means the
	// implementation answered shutdown before ending its calls.
	shutdownSeen bool
	// dups are raw lines sent under the id of a request still in flight
	// (SendDuplicate): an error answer with that id is theirs.
	dups    map[string]*Pending
	nextID  int
	answers uint64 // final responses read so far (Pending.seq)
	exited  chan struct{}
	waitErr error
	// stderrDone is closed when the stderr reader has stopped.
	stderrDone chan struct{}
	trace      func(line []byte)
	tracker    *Tracker
	transcript *Transcript
	impl       int // the implementation's number in the transcript
	// pid is the implementation's pid when the process started is not the
	// implementation itself but its parent (impl start -pty).
	pid int

	// Hello is the implementation's handshake answer.
	Hello protocol.Response
}

// Pending is a request awaiting its response.
type Pending struct {
	ID      string
	Request protocol.Request
	done    chan struct{}
	resp    protocol.Response
	updates []protocol.Result
	err     error
	mu      sync.Mutex
	// sent and answered are when the request was written and its response
	// read: every update of a call was sent between them (Elapsed).
	sent, answered time.Time
	// held is the machine's accounting of the implementation as the
	// request was sent, from which Await weighs a missed bound.
	held sched.Held
	// seq is the place of the final response among all final responses
	// read from the implementation, from 1: the order on the wire, which
	// no clock can blur (the order command).
	seq uint64
	// line is the final response as read, for CaseNote.
	line []byte
}

// CaseNote returns, once Done is closed, a note naming the members of the
// final response that differ only in case from a protocol member whose
// exact name is absent ("TYPE, not type"), to append to a scenario's
// failure: the client ignores them (PROTO-20), and the note says the
// implementation sent them. It is "" when there are none.
func (p *Pending) CaseNote() string {
	if w := withMiscased(p.line); w != "" {
		return " (the implementation sent it" + w + ")"
	}
	return ""
}

// Seq returns the place of the final response in the order responses were
// read, from 1, once Done is closed; 0 when the client broke first.
func (p *Pending) Seq() uint64 { return p.seq }

// Updates returns the update messages received so far, in order.
func (p *Pending) Updates() []protocol.Result {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]protocol.Result(nil), p.updates...)
}

// Done is closed when the response arrived or the client broke.
func (p *Pending) Done() <-chan struct{} { return p.done }

// Response returns the response once Done is closed.
func (p *Pending) Response() (protocol.Response, error) { return p.resp, p.err }

// Elapsed is the time from writing the request to reading its response,
// once Done is closed: every update of the call was sent within it.
func (p *Pending) Elapsed() time.Duration { return p.answered.Sub(p.sent) }

// Answered is when the response was read, once Done is closed.
func (p *Pending) Answered() time.Time { return p.answered }

// Options are the optional parts of a start.
type Options struct {
	// Trace, when set, is called with every line the implementation writes
	// to stdout, as written and before it is decoded: `apexcheck validate`
	// checks those lines against the schema, including lines that break
	// decoding into the protocol types.
	Trace func(line []byte)
	// Tracker, when set, tracks the implementation while it runs, so that
	// [Tracker.Interrupt] can kill it; once the tracker is interrupted, no
	// start through it succeeds.
	Tracker *Tracker
	// Started, when set, runs once the process exists and before the
	// handshake. It returns the implementation's pid when the process
	// started is not the implementation itself but its parent (`impl start
	// -pty` learns it there), else 0; with an error too, when it knows
	// one, so that the implementation is killed with its parent.
	Started func(*Client) (pid int, err error)
	// Startup is how long the implementation may take to start before
	// the bound on its hello answer begins: the MCP bridge first starts
	// its server and completes the MCP handshake, within a start-up
	// bound of its own, and answers hello only then.
	Startup time.Duration
	// Transcript, when set, records every line written to the
	// implementation's stdin and read from its stdout.
	Transcript *Transcript
}

// Start starts argv with env in dir and performs the handshake, waiting at
// most bound for it.
func Start(argv, env []string, dir string, bound time.Duration, opt Options) (*Client, error) {
	if len(argv) == 0 {
		return nil, errors.New("start implementation: empty command")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = dir
	// Its own session, hence its own process group, so a stuck
	// implementation and whatever it started in its group can be killed
	// together; and no controlling terminal, so a scenario sees the same
	// implementation whether apexcheck runs in a terminal or in CI, and an
	// implementation whose login shell grabs the terminal cannot take the
	// user's (terminal scenarios give it one of their own: impl start -pty).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return StartCmd(cmd, bound, opt)
}

// Handshake starts argv as [Start] does and shuts it down at once, to learn
// its identity and capabilities (Hello, Capabilities) outside any
// scenario.
func Handshake(argv, env []string, dir string, bound time.Duration, opt Options) (*Client, error) {
	c, err := Start(argv, env, dir, bound, opt)
	if err != nil {
		return nil, err
	}
	if err := c.Shutdown(bound); err != nil {
		c.Kill()
		return nil, c.startError(fmt.Errorf("handshake: shutdown: %w", err))
	}
	return c, nil
}

// StartCmd starts cmd, prepared with its environment, directory and
// process attributes, as the implementation, and performs the handshake,
// waiting at most bound for it.
func StartCmd(cmd *exec.Cmd, bound time.Duration, opt Options) (*Client, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start implementation: %w", err)
	}
	stdinPipe, _ := stdin.(syscall.Conn) // os/exec's pipe is an *os.File inside
	// The pipes for stdout and stderr are made here, not by os/exec: Wait
	// closes the read end of a pipe it made, and a Wait that returns while
	// the last response is still unread in the pipe would lose it. These
	// read ends belong to the readers, which close them once they are done;
	// after the process exits, a read deadline (never a close) bounds how
	// long a process it left behind can hold the pipes open.
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start implementation: stdout pipe: %w", err)
	}
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		stdoutR.Close()
		stdoutW.Close()
		return nil, fmt.Errorf("start implementation: stderr pipe: %w", err)
	}
	cmd.Stdout, cmd.Stderr = stdoutW, stderrW
	impl := 0
	if opt.Transcript != nil {
		impl = opt.Transcript.begin(cmd.Args, cmd.Env)
		stdin = &sendRecorder{WriteCloser: stdin, t: opt.Transcript, impl: impl}
	}
	c := &Client{
		cmd: cmd, stdin: stdin, stdinPipe: stdinPipe, stdoutPipe: stdoutR,
		w: protocol.NewWriter(stdin), transcript: opt.Transcript, impl: impl,
		stderr: &tailBuffer{max: 8 << 10}, pending: map[string]*Pending{},
		exited: make(chan struct{}), stderrDone: make(chan struct{}), trace: opt.Trace, tracker: opt.Tracker,
	}
	if opt.Tracker.beginStart() {
		err = cmd.Start()
		if err == nil {
			opt.Tracker.endStart(c)
		} else {
			opt.Tracker.endStart(nil)
		}
	} else {
		err = errors.New("the run was interrupted")
	}
	stdoutW.Close() // the child has its own copies now
	stderrW.Close()
	if err != nil {
		stdoutR.Close()
		stderrR.Close()
		return nil, fmt.Errorf("start implementation %q: %w", cmd.Args[0], err)
	}
	go c.readLoop(stdoutR)
	go c.copyStderr(stderrR)
	go func() {
		c.waitErr = cmd.Wait()
		close(c.exited)
		c.tracker.untrackClient(c)
		// Whatever the implementation wrote before it exited is in the
		// pipes, and drainReader reads it whenever the deadline passes:
		// the deadline only cuts a wait for more.
		deadline := time.Now().Add(drainAfterExit)
		stdoutR.SetReadDeadline(deadline)
		stderrR.SetReadDeadline(deadline)
	}()
	if opt.Started != nil {
		pid, err := opt.Started(c)
		c.pid = pid // before any Kill: it must reach the implementation's group too
		if err != nil {
			c.Kill()
			return nil, c.startError(err)
		}
	}
	p, err := c.Send(protocol.Request{Type: protocol.TypeHello, Versions: []int{protocol.Version}})
	if err == nil {
		var resp protocol.Response
		resp, err = c.Await(p, opt.Startup+bound)
		c.Hello = resp
		if err == nil {
			err = checkHello(resp)
		}
	}
	if err != nil {
		c.Kill()
		return nil, c.startError(fmt.Errorf("handshake: %w", err))
	}
	return c, nil
}

// drainAfterExit bounds how long the readers wait for end-of-file once the
// implementation has exited: only a process it left behind holding its
// stdout or stderr can make them wait that long.
const drainAfterExit = 2 * time.Second

// StartError is the error of an implementation that could not be started
// or did not complete the handshake. It carries the tail of what the
// implementation wrote to stderr, which usually says why (a missing
// module, a syntax error, a bad flag).
type StartError struct {
	Err    error
	Stderr string // the last bytes of the implementation's stderr, trimmed
}

func (e *StartError) Error() string {
	if e.Stderr == "" {
		return e.Err.Error()
	}
	return e.Err.Error() + "\nimplementation stderr (tail):\n" + indent(e.Stderr, "  ")
}

func (e *StartError) Unwrap() error { return e.Err }

// startError wraps err with the stderr the implementation wrote before it
// was stopped, waiting (bounded) for the stderr reader to finish.
func (c *Client) startError(err error) error {
	select {
	case <-c.stderrDone:
	case <-time.After(drainAfterExit + time.Second):
	}
	return &StartError{Err: err, Stderr: strings.TrimSpace(lastLines(c.StderrTail(), 20))}
}

// copyStderr keeps the tail of the implementation's stderr until end of
// file or the deadline set after exit.
func (c *Client) copyStderr(r *os.File) {
	defer close(c.stderrDone)
	defer r.Close()
	io.Copy(c.stderr, drainReader{r})
}

func checkHello(r protocol.Response) error {
	switch {
	case r.Type != protocol.TypeHello:
		return fmt.Errorf("%w: hello answered with type %q", ErrBroken, r.Type)
	case r.Protocol != protocol.Version:
		return fmt.Errorf("%w: implementation speaks protocol %d, the kit speaks %d", ErrBroken, r.Protocol, protocol.Version)
	case r.Implementation == nil || r.Implementation.Name == "" || r.Implementation.Version == "":
		return fmt.Errorf("%w: hello names no implementation (name and version are required)", ErrBroken)
	}
	return nil
}

// Capabilities returns the capabilities the implementation declared.
func (c *Client) Capabilities() map[string]bool {
	caps := map[string]bool{}
	for _, cap := range c.Hello.Capabilities {
		caps[cap] = true
	}
	return caps
}

// Send sends a request, assigning it an ID when it has none.
func (c *Client) Send(req protocol.Request) (*Pending, error) {
	c.mu.Lock()
	if c.broken != nil {
		err := c.broken
		c.mu.Unlock()
		return nil, err
	}
	if req.ID == "" {
		c.nextID++
		req.ID = "r" + strconv.Itoa(c.nextID)
	}
	if _, dup := c.pending[req.ID]; dup {
		c.mu.Unlock()
		return nil, fmt.Errorf("send request: id %q is already in flight", req.ID)
	}
	p := &Pending{ID: req.ID, Request: req, done: make(chan struct{}), sent: time.Now()}
	c.pending[req.ID] = p
	c.mu.Unlock()
	p.held = sampleHeld(c.Pid())
	if err := c.w.Write(req); err != nil {
		c.writeFailed(err)
	}
	return p, nil
}

// SendRaw writes line as it is (a newline is added) and registers a
// pending response under id, which may be "" for a line whose id the
// implementation cannot read. It lets scenarios probe how an
// implementation answers requests the kit itself would never send.
func (c *Client) SendRaw(line []byte, id string) (*Pending, error) {
	c.mu.Lock()
	if c.broken != nil {
		err := c.broken
		c.mu.Unlock()
		return nil, err
	}
	if _, dup := c.pending[id]; dup {
		c.mu.Unlock()
		return nil, fmt.Errorf("send raw line: id %q is already in flight", id)
	}
	p := &Pending{ID: id, Request: protocol.Request{ID: id, Type: "raw"}, done: make(chan struct{}), sent: time.Now()}
	c.pending[id] = p
	c.mu.Unlock()
	p.held = sampleHeld(c.Pid())
	if _, err := c.stdin.Write(append(append([]byte(nil), line...), '\n')); err != nil {
		c.writeFailed(err)
	}
	return p, nil
}

// SendDuplicate writes line, a request reusing the id of a request still
// in flight, and registers a pending response for the error answer PROTO-5
// requires: an error with that id is matched to it, anything else with that
// id to the request in flight.
func (c *Client) SendDuplicate(line []byte, id string) (*Pending, error) {
	c.mu.Lock()
	if c.broken != nil {
		err := c.broken
		c.mu.Unlock()
		return nil, err
	}
	if c.pending[id] == nil || c.dups[id] != nil {
		c.mu.Unlock()
		return nil, fmt.Errorf("send duplicate: id %q is not in flight once", id)
	}
	p := &Pending{ID: id, Request: protocol.Request{ID: id, Type: "raw"}, done: make(chan struct{}), sent: time.Now()}
	if c.dups == nil {
		c.dups = map[string]*Pending{}
	}
	c.dups[id] = p
	c.mu.Unlock()
	p.held = sampleHeld(c.Pid())
	if _, err := c.stdin.Write(append(append([]byte(nil), line...), '\n')); err != nil {
		c.fail(fmt.Errorf("%w: write request: %v", ErrBroken, err))
	}
	return p, nil
}

// Await waits for p's response under the runner's own bound, its safety
// net against a hang (--bound): no clause decides how long an answer may
// take. When bound passes with no answer, the wait goes on while the
// machine's evidence excuses the implementation: while an answer lies
// unread in its stdout pipe (the runner's reader is behind, not the
// implementation), or while the time since the wait began, less the time
// the machine held the implementation back since the request was sent
// (its threads' waits for a CPU, CPU throttling, steal: package sched), is
// within bound. An answer that comes then is the answer. The extension
// is at most bound again, so the runner never hangs; an implementation
// still excused when it runs out is reported with
// [NoAnswerError.Inconclusive] set: the machine, not the implementation,
// kept the answer away.
//
// A missed bound breaks the client: the implementation is killed.
func (c *Client) Await(p *Pending, bound time.Duration) (protocol.Response, error) {
	return c.await(p, bound, true)
}

// AwaitWithin waits at most within for p's response, a bound a scenario
// checks: nothing extends it. A miss breaks the client (the implementation
// is killed), and the [NoAnswerError] carries the machine's evidence for
// the caller to weigh.
func (c *Client) AwaitWithin(p *Pending, within time.Duration) (protocol.Response, error) {
	return c.await(p, within, false)
}

func (c *Client) await(p *Pending, bound time.Duration, excusable bool) (protocol.Response, error) {
	start := time.Now()
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-p.done:
		return p.Response()
	case <-t.C:
	}
	var spoiled bool
	if excusable {
		var answered bool
		if answered, spoiled = c.awaitExcused(p, start, bound); answered {
			return p.Response()
		}
	}
	err := &NoAnswerError{Type: p.Request.Type, ID: p.ID, Bound: bound, Evidence: c.evidence(p), Inconclusive: spoiled}
	c.fail(err)
	c.Kill()
	return protocol.Response{}, err
}

// excuseTick is how often a wait past its bound weighs the evidence again.
const excuseTick = 20 * time.Millisecond

// awaitExcused is Await past its bound: it waits for p's answer while the
// evidence excuses the implementation, and at most bound more. It reports
// whether the answer came, and whether the implementation was still
// excused when the extension ran out.
func (c *Client) awaitExcused(p *Pending, start time.Time, bound time.Duration) (answered, spoiled bool) {
	limit := time.NewTimer(bound)
	defer limit.Stop()
	tick := time.NewTicker(excuseTick)
	defer tick.Stop()
	pid := c.Pid()
	for {
		if !c.excused(p, pid, start, bound) {
			return false, false
		}
		select {
		case <-p.done:
			return true, false
		case <-limit.C:
			return false, true
		case <-tick.C:
		}
	}
}

// excused reports whether the evidence excuses the implementation for p's
// answer, awaited since start, not having come within bound.
func (c *Client) excused(p *Pending, pid int, start time.Time, bound time.Duration) bool {
	if pending(c.stdoutPipe) > 0 {
		return true // the runner has yet to read what the implementation wrote
	}
	h := sched.Between(p.held, sampleHeld(pid))
	return h.OK && time.Since(start)-h.Total() <= bound
}

// sampleHeld samples the machine's accounting of a process; tests replace
// it to play a machine that holds the implementation back.
var sampleHeld = sched.Sample

// evidence says what the machine shows of the implementation when p's
// bound has passed: what lies unread in its pipes, where each process of
// its group stands, and how long the machine held it back since p was
// sent.
func (c *Client) evidence(p *Pending) string {
	var parts []string
	if n := pending(c.stdinPipe); n > 0 {
		parts = append(parts, fmt.Sprintf("%d bytes of requests lay unread on its stdin", n))
	}
	if n := pending(c.stdoutPipe); n > 0 {
		parts = append(parts, fmt.Sprintf("%d bytes it wrote lay unread on its stdout", n))
	}
	pid := c.Pid()
	// Its process group: it leads one of its own (Start's session), and
	// what it waits on is often a child's state, not its own.
	if where := sched.WhereGroup(pid, 6); where != "" {
		parts = append(parts, "its processes: "+where)
	}
	if h := sched.Between(p.held, sampleHeld(pid)); h.OK {
		parts = append(parts, "since the request: "+h.String())
	}
	return strings.Join(parts, "; ")
}

// NoAnswerError is Await's error when its bound passed with no answer: the
// implementation broke the protocol (it wraps [ErrBroken]) unless the bound
// was one a scenario set to check a behaviour, which the caller knows.
type NoAnswerError struct {
	Type  string        // the request's type
	ID    string        // the request's id
	Bound time.Duration // how long the answer was awaited
	// Evidence is what the machine showed of the implementation when the
	// bound passed (Client.Await): "" when nothing could be read.
	Evidence string
	// Inconclusive is set when the machine's evidence still excused the
	// implementation as Await's extension ran out: the machine, not the
	// implementation, kept the answer away, and the miss decides nothing.
	Inconclusive bool
}

func (e *NoAnswerError) Error() string {
	msg := fmt.Sprintf("%v: no answer to %s request %q within %v", ErrBroken, e.Type, e.ID, e.Bound)
	if e.Inconclusive {
		msg += " even with as long again while the machine held it back"
	}
	if e.Evidence != "" {
		msg += " (" + e.Evidence + ")"
	}
	return msg
}

// Unwrap returns ErrBroken.
func (e *NoAnswerError) Unwrap() error { return ErrBroken }

// Roundtrip sends req and awaits its response.
func (c *Client) Roundtrip(req protocol.Request, bound time.Duration) (protocol.Response, error) {
	p, err := c.Send(req)
	if err != nil {
		return protocol.Response{}, err
	}
	return c.Await(p, bound)
}

func (c *Client) readLoop(stdout *os.File) {
	defer stdout.Close()
	r := protocol.NewReader(drainReader{stdout})
	lineNo := 0
	for {
		line, err := r.Line()
		if err != nil {
			switch {
			case errors.Is(err, io.EOF):
				// Let Wait settle so the message can say how it ended.
				select {
				case <-c.exited:
				case <-time.After(drainAfterExit):
				}
				c.fail(fmt.Errorf("%w: implementation closed stdout (%s)", ErrBroken, c.ExitStatus()))
			case errors.Is(err, os.ErrDeadlineExceeded):
				c.fail(fmt.Errorf("%w: implementation exited (%s), and a process it left behind still holds its stdout", ErrBroken, c.ExitStatus()))
			default:
				c.fail(fmt.Errorf("%w: read stdout: %v", ErrBroken, err))
			}
			return
		}
		lineNo++
		if c.trace != nil {
			c.trace(line)
		}
		if c.transcript != nil {
			c.transcript.record(c.impl, TranscriptRecv, line)
		}
		// Members by their exact names (PROTO-20): "TYPE" is not "type".
		var resp protocol.Response
		err = protocol.Unmarshal(line, &resp)
		if err == nil && resp.Type == "" {
			err = errors.New("no string member type")
		}
		if err != nil {
			c.fail(fmt.Errorf("%w: the implementation sent stdout line %d%s, which is not a protocol message (%v): %s",
				ErrBroken, lineNo, withMiscased(line), err, quoteShort(line)))
			c.Kill()
			return
		}
		// The reader's buffer is reused for the next line.
		resp.Raw = append(json.RawMessage(nil), line...)
		c.dispatch(resp, line)
	}
}

func (c *Client) dispatch(resp protocol.Response, line []byte) {
	c.mu.Lock()
	if c.shutdownSeen {
		c.mu.Unlock()
		c.fail(fmt.Errorf("%w: message after the shutdown response (PROTO-9): %s", ErrBroken, quoteShort(line)))
		return
	}
	if resp.Type == protocol.TypeShutdown {
		c.shutdownSeen = true
	}
	if d := c.dups[resp.ID]; d != nil && resp.Type == protocol.TypeError {
		delete(c.dups, resp.ID)
		c.answers++
		d.seq = c.answers
		c.mu.Unlock()
		d.resp, d.line = resp, line
		close(d.done)
		return
	}
	p := c.pending[resp.ID]
	if p == nil {
		c.mu.Unlock()
		c.fail(fmt.Errorf("%w: the implementation sent a response%s for unknown id %q: %s", ErrBroken, withMiscased(line), resp.ID, quoteShort(line)))
		return
	}
	if resp.Type == protocol.TypeUpdate {
		c.mu.Unlock()
		if resp.Result == nil {
			c.fail(fmt.Errorf("%w: the implementation sent an update for %q%s that carries no result", ErrBroken, resp.ID, withMiscased(line)))
			return
		}
		p.mu.Lock()
		p.updates = append(p.updates, *resp.Result)
		p.mu.Unlock()
		return
	}
	delete(c.pending, resp.ID)
	c.answers++
	p.seq = c.answers
	c.mu.Unlock()
	p.resp, p.answered, p.line = resp, time.Now(), line
	close(p.done)
}

// writeFailed breaks the client after a failed write to stdin. A write
// fails most often because the implementation has exited (a broken
// pipe), so the message says how it exited, once that is known.
func (c *Client) writeFailed(err error) {
	select {
	case <-c.exited:
	case <-time.After(drainAfterExit):
	}
	c.fail(fmt.Errorf("%w: write request: %v (%s)", ErrBroken, err, c.ExitStatus()))
}

// fail records the first breakage and fails every pending request.
func (c *Client) fail(err error) {
	c.mu.Lock()
	if c.broken == nil {
		c.broken = err
	}
	pending := c.pending
	c.pending = map[string]*Pending{}
	for id, d := range c.dups {
		pending["dup "+id] = d
	}
	c.dups = nil
	c.mu.Unlock()
	for _, p := range pending {
		p.err = err
		close(p.done)
	}
}

// Broken returns the first protocol breakage, or nil.
func (c *Client) Broken() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.broken
}

// Shutdown asks the implementation to shut down and waits at most bound
// for the answer and the exit.
func (c *Client) Shutdown(bound time.Duration) error {
	deadline := time.Now().Add(bound)
	resp, err := c.Roundtrip(protocol.Request{Type: protocol.TypeShutdown}, bound)
	if err != nil {
		return err
	}
	if resp.Type != protocol.TypeShutdown {
		return fmt.Errorf("%w: shutdown answered with type %q", ErrBroken, resp.Type)
	}
	return c.WaitExit(time.Until(deadline))
}

// CloseStdin closes the implementation's stdin and waits at most bound for
// it to exit.
func (c *Client) CloseStdin(bound time.Duration) error {
	c.stdin.Close()
	return c.WaitExit(bound)
}

// WaitExit waits at most bound for the process to exit, then kills it.
func (c *Client) WaitExit(bound time.Duration) error {
	select {
	case <-c.exited:
		return nil // even when bound is spent: select would pick at random
	default:
	}
	select {
	case <-c.exited:
		return nil
	case <-time.After(bound):
		c.Kill()
		return fmt.Errorf("%w: did not exit within %v", ErrBroken, bound)
	}
}

// Exited reports whether the process has exited.
func (c *Client) Exited() bool {
	select {
	case <-c.exited:
		return true
	default:
		return false
	}
}

// Kill kills the implementation's process group and waits for it.
func (c *Client) Kill() {
	if c.cmd.Process != nil {
		killGroup(c.cmd.Process.Pid, c.Exited())
		c.cmd.Process.Kill() // a pidfd: never another process
	}
	if c.pid != 0 {
		syscall.Kill(-c.pid, syscall.SIGKILL) // its own group, under a parent
	}
	c.stdin.Close()
	select {
	case <-c.exited:
	case <-time.After(5 * time.Second):
	}
}

// killGroup kills process group pgid, the group the implementation leads.
// Once the leader has been reaped, its number is free for another process
// unless a process left in its group still holds it (Linux hands out no
// number that is some group's id), so a live process with that number is
// proof the group is empty and the number belongs to someone else: the
// group is then left alone, never killed by a number reused.
func killGroup(pgid int, reaped bool) {
	if reaped && processExists(pgid) {
		return
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
}

// processExists reports whether a process with that pid exists, ours to
// signal or not.
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

// Pid is the implementation's process ID.
func (c *Client) Pid() int {
	if c.pid != 0 {
		return c.pid
	}
	return c.cmd.Process.Pid
}

// StderrTail returns the last bytes the implementation wrote to stderr.
func (c *Client) StderrTail() string { return c.stderr.String() }

// ExitStatus describes how the process ended ("exited with status 0",
// "exited: signal: killed"), or says "still running".
func (c *Client) ExitStatus() string {
	select {
	case <-c.exited:
		if c.waitErr != nil {
			return "exited: " + c.waitErr.Error()
		}
		return "exited with status 0"
	default:
		return "still running"
	}
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

func quoteShort(b []byte) string {
	if len(b) > 200 {
		return strconv.Quote(string(b[:200])) + "…"
	}
	return strconv.Quote(string(b))
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// DefaultBound is the default bound on every wait for the implementation.
// It is generous because a loaded 2-core CI machine can stall a process for
// seconds; a conforming call in the suite answers in well under a second
// unless its scenario says otherwise.
const DefaultBound = 30 * time.Second
