package background

import (
	"errors"
	"os"
	"sync"
	"time"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/call"
	"github.com/apexcheck/apexcheck/ref/output"
	"github.com/apexcheck/apexcheck/ref/shellexec"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// KillWait bounds how long a kill call, and disposal, wait for a killed
// shell to be seen exiting. SIGKILL cannot be caught, so the wait normally
// ends within milliseconds; the bound only keeps a process stuck in the
// kernel from hanging the call.
const KillWait = 5 * time.Second

// ErrClosed is returned by Launch after Close: the session is over.
var ErrClosed = errors.New("background registry is closed")

// Options configure a Registry.
type Options struct {
	// Kill ends a running entry's process tree. Nil means SIGKILL to the
	// shell's whole process group (BG-16). It exists so that the kit's
	// broken variants can swap in a defective kill; the reference never
	// sets it.
	Kill func(*shellexec.Process)
	// KillWait bounds how long a kill call waits to see the killed shell
	// exit; 0 means KillWait. Like Kill, it exists for the kit's broken
	// variants (one that answers before the exit is seen); the reference
	// never sets it.
	KillWait time.Duration
}

// Registry is the background-shell registry of one session. It implements
// tool.Background and is safe for concurrent use.
type Registry struct {
	kill     func(*shellexec.Process)
	killWait time.Duration

	mu      sync.Mutex
	entries map[string]*entry
	order   []string // handles in launch order (BG-19)
	closed  bool
}

var _ tool.Background = (*Registry)(nil)

// entry is one launched command. The fields after mu's comment are
// guarded by Registry.mu.
type entry struct {
	handle  string
	command string // as started: with the commandPrefix joined (EVID-2)
	dir     string
	started time.Time
	proc    *shellexec.Process
	done    chan struct{} // closed once the entry has ended

	// guarded by Registry.mu
	acc    *output.Accumulator // nil once ended: final holds what is left
	ended  bool
	killed bool
	code   int
	endAt  time.Time
	final  output.Snapshot
}

// New returns an empty Registry.
func New(o Options) *Registry {
	kill := o.Kill
	if kill == nil {
		kill = (*shellexec.Process).KillGroup
	}
	killWait := o.KillWait
	if killWait == 0 {
		killWait = KillWait
	}
	return &Registry{kill: kill, killWait: killWait, entries: map[string]*entry{}}
}

// Launch starts s detached and returns its handle (BG-1 to BG-4). It
// returns as soon as the shell exists. The checks before starting are the
// foreground's without the timeout and abort ones: the shell path, then the
// working directory (BG-4); their errors are the model-visible texts.
func (r *Registry) Launch(s tool.Spawn) (string, error) {
	shell, err := shellexec.ResolveShell(s.ShellPath, s.HostPATH)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(s.Dir); err != nil {
		return "", &shellexec.CwdError{Dir: s.Dir}
	}
	handle, err := newHandle()
	if err != nil {
		return "", err
	}
	acc := output.NewAccumulator(output.Options{Dir: s.TempDir})

	// The lock is held across the start so that Close cannot miss an entry
	// whose shell is starting: either Close sees it, or Launch sees closed.
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return "", ErrClosed
	}
	p, err := shellexec.Start(shell, s.Command, s.Dir, s.Env, acc)
	if err != nil {
		acc.Close()
		return "", err
	}
	e := &entry{
		handle:  handle,
		command: s.Command,
		dir:     s.Dir,
		started: time.Now(),
		proc:    p,
		done:    make(chan struct{}),
		acc:     acc,
	}
	r.entries[handle] = e
	r.order = append(r.order, handle)
	go r.watch(e)
	return handle, nil
}

// watch waits for an entry's shell to exit and its output to end, then
// records the exit and keeps only the final snapshot, so that a finished
// entry holds no more than one tail of output (BG-26).
func (r *Registry) watch(e *entry) {
	<-e.proc.Exited()
	endAt := time.Now()
	// Wait returns when the pipes close or the grace of EXEC-19 has passed:
	// after it, no more output arrives, so the output is final (BG-12).
	code, _ := e.proc.Wait()
	r.mu.Lock()
	acc := e.acc
	r.mu.Unlock()
	acc.Close()
	final := acc.Snapshot()

	r.mu.Lock()
	e.ended, e.code, e.endAt, e.final, e.acc = true, code, endAt, final, nil
	r.mu.Unlock()
	close(e.done)
}

// Handle serves a retrieve or kill call (BG-9 to BG-19).
func (r *Registry) Handle(op call.Operation) protocol.Result {
	r.mu.Lock()
	e, ok := r.entries[op.Handle]
	r.mu.Unlock()
	if !ok {
		return protocol.Result{IsError: true, Text: r.unknownHandle(op.Handle)}
	}
	if op.Kind == call.Kill {
		return r.killEntry(e)
	}
	return r.retrieve(e)
}

// retrieve reads an entry without changing it (BG-11).
func (r *Registry) retrieve(e *entry) protocol.Result {
	r.mu.Lock()
	ended, killed, code, endAt, acc, final := e.ended, e.killed, e.code, e.endAt, e.acc, e.final
	r.mu.Unlock()
	snap := final
	if !ended {
		// Output is still arriving; the snapshot is its tail now. Should the
		// entry end meanwhile, the snapshot is merely more complete than the
		// header says.
		snap = acc.Snapshot()
	}
	exec := &protocol.Execution{Cwd: e.dir}
	var header string
	if ended {
		exec.ExitCode = &code
		header = endedHeader(e.handle, killed, code, endAt.Sub(e.started))
	} else {
		header = runningHeader(e.handle, time.Since(e.started))
	}
	details := &protocol.Details{FullOutputPath: snap.FullOutputPath, Execution: exec}
	if snap.Truncated {
		details.Truncation = tool.WireTruncation(snap.Result)
	}
	return protocol.Result{Text: retrievalText(header, snap), Details: details}
}

// killEntry kills a running entry's tree and waits for its exit, so that
// every later retrieval reports it killed (BG-16 to BG-18).
func (r *Registry) killEntry(e *entry) protocol.Result {
	r.mu.Lock()
	if e.ended {
		code := e.code
		r.mu.Unlock()
		return protocol.Result{Text: alreadyExited(e.handle, code)}
	}
	e.killed = true
	r.mu.Unlock()
	r.kill(e.proc)
	waitEnded([]*entry{e}, r.killWait)
	return protocol.Result{Text: killSent(e.handle)}
}

// CommandFor resolves a handle to the command it started, for evidence
// (EVID-2).
func (r *Registry) CommandFor(handle string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.entries[handle]; ok {
		return e.command, true
	}
	return "", false
}

// Handles returns the handles in launch order.
func (r *Registry) Handles() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.order...)
}

// Close disposes the registry (BG-25): every entry still running is
// killed, its whole process group, and Close waits for them to be seen
// exiting. Later launches fail with ErrClosed; entries stay retrievable.
func (r *Registry) Close() {
	r.mu.Lock()
	r.closed = true
	var running []*entry
	for _, h := range r.order {
		if e := r.entries[h]; !e.ended {
			e.killed = true
			running = append(running, e)
		}
	}
	r.mu.Unlock()
	for _, e := range running {
		r.kill(e.proc)
	}
	waitEnded(running, KillWait)
}

// waitEnded waits until every entry has ended or bound has passed.
func waitEnded(entries []*entry, bound time.Duration) {
	timer := time.NewTimer(bound)
	defer timer.Stop()
	for _, e := range entries {
		select {
		case <-e.done:
		case <-timer.C:
			return
		}
	}
}
