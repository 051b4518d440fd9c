package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/apexcheck/apexcheck/conformance/client"
	"github.com/apexcheck/apexcheck/protocol"
)

const replayHelp = `
Send the requests of a protocol transcript to an implementation again, in
their order, and print what it answers. A run with --keep-work keeps, in
each kept work directory, the scenario (apexcheck-scenario.txtar) and its
transcript (apexcheck-transcript.jsonl): one JSON object a line, "start"
when the scenario started an implementation, "send" for each line the kit
wrote to its stdin, "recv" for each line it wrote to its stdout, each with
the implementation's number (impl) and the milliseconds since the scenario
began (ms); the message is in "msg", or in "raw" when it is not JSON.

replay keeps the order of the exchange: before each request it waits (at
most --bound) until the implementation has written as many lines as it had
when the kit sent that request, so a request that followed an answer
follows it again. Each implementation of the transcript is started in turn
with --impl, in --dir (default: the transcript's directory, the kept work
directory, whose absolute paths the requests name), with the environment
the transcript recorded (the scenario's: HOME and TMPDIR inside the work
directory), or this process's when it recorded none. The replay is printed as a transcript on stdout, to compare
with the recorded one; a line per implementation on stderr counts the
messages.

Without apexcheck, the requests alone can be piped to an adapter:

    jq -c 'select(.dir=="send" and .impl==1) | .msg' apexcheck-transcript.jsonl | ./my-adapter

Exit status: 0 when every implementation answered as many lines as
recorded, 1 when one answered fewer, 2 bad usage or a transcript that
cannot be read.`

func cmdReplay(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("replay", stdout, stderr)
	impl := fs.String("impl", "", "implementation command line `CMD ARGS` (default: this binary's reference, `apexcheck serve`)")
	dir := fs.String("dir", "", "directory the implementation starts in (default: the transcript's)")
	bound := fs.Duration("bound", client.DefaultBound, "bound on every wait for the implementation")
	if code, done := fs.parse(args, 1); done {
		return code
	}
	if fs.NArg() != 1 {
		return fs.usageError(errors.New("want one transcript, such as WORKDIR/apexcheck-transcript.jsonl"))
	}
	if *bound <= 0 {
		return fs.usageError(errors.New("--bound must be positive"))
	}
	f := implFlags{impl: *impl, bound: *bound}
	argv, _, err := f.command()
	if err != nil {
		return fs.usageError(err)
	}
	file := fs.Arg(0)
	entries, err := readTranscript(file)
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck replay:", err)
		return ExitUsage
	}
	if *dir == "" {
		*dir = filepath.Dir(file)
	}
	tr := client.NewTranscript(stdout)
	code := ExitConformant
	for _, impl := range implNumbers(entries) {
		got, want, err := replayOne(tr, argv, *dir, *bound, entries, impl)
		if err != nil {
			fmt.Fprintf(stderr, "apexcheck replay: implementation %d: %v\n", impl, err)
			return ExitUsage
		}
		fmt.Fprintf(stderr, "apexcheck replay: implementation %d: sent %d lines, received %d (recorded: %d)\n", impl, countDir(entries, impl, client.TranscriptSend), got, want)
		if got < want {
			code = ExitNotConformant
		}
	}
	return code
}

// readTranscript reads a transcript's entries, strictly: an unknown
// member or a line that is not an entry is an error naming its line.
func readTranscript(file string) ([]client.TranscriptEntry, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	defer f.Close()
	var out []client.TranscriptEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), protocol.MaxLine+4096)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var e client.TranscriptEntry
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("read transcript %s:%d: %w", file, n, err)
		}
		switch e.Dir {
		case client.TranscriptStart, client.TranscriptSend, client.TranscriptRecv:
		default:
			return nil, fmt.Errorf("read transcript %s:%d: dir %q, want start, send or recv", file, n, e.Dir)
		}
		if e.Impl < 1 {
			return nil, fmt.Errorf("read transcript %s:%d: impl %d, want a number from 1", file, n, e.Impl)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read transcript %s: %w", file, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("read transcript %s: no entries", file)
	}
	return out, nil
}

// implNumbers returns the implementations of a transcript, in order.
func implNumbers(entries []client.TranscriptEntry) []int {
	var out []int
	seen := map[int]bool{}
	for _, e := range entries {
		if !seen[e.Impl] {
			seen[e.Impl] = true
			out = append(out, e.Impl)
		}
	}
	return out
}

func countDir(entries []client.TranscriptEntry, impl int, dir string) int {
	n := 0
	for _, e := range entries {
		if e.Impl == impl && e.Dir == dir {
			n++
		}
	}
	return n
}

// line is what a transcript entry carried on the wire.
func (r *replayer) line(e client.TranscriptEntry) []byte {
	if e.Msg != nil {
		return append(append([]byte(nil), e.Msg...), '\n')
	}
	return []byte(e.Raw + "\n")
}

// replayer replays one implementation's part of a transcript.
type replayer struct {
	mu   sync.Mutex
	cond *sync.Cond
	got  int  // lines read from the implementation
	eof  bool // its stdout ended
}

// waitFor waits until n lines were read, stdout ended or bound passed.
func (r *replayer) waitFor(n int, bound time.Duration) {
	timer := time.AfterFunc(bound, func() {
		r.mu.Lock()
		r.eof = true // a timeout ends the waiting for good
		r.cond.Broadcast()
		r.mu.Unlock()
	})
	defer timer.Stop()
	r.mu.Lock()
	for r.got < n && !r.eof {
		r.cond.Wait()
	}
	r.mu.Unlock()
}

// replayOne starts argv and sends it the requests implementation impl of
// entries was sent, in step with its answers, recording both in tr. It
// returns how many lines it read and how many were recorded.
func replayOne(tr *client.Transcript, argv []string, dir string, bound time.Duration, entries []client.TranscriptEntry, impl int) (got, want int, err error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = recordedEnv(entries, impl)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, 0, fmt.Errorf("start %q: %w", strings.Join(argv, " "), err)
	}
	// Whatever happens, the implementation and its group end with the
	// replay.
	defer func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	}()
	rec := client.RecordStart(tr, impl, cmd.Args, cmd.Env)
	r := &replayer{}
	r.cond = sync.NewCond(&r.mu)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		pr := protocol.NewReader(stdout)
		for {
			line, err := pr.Line()
			if err != nil && !errors.Is(err, protocol.ErrLineTooLong) {
				break
			}
			if err == nil {
				rec.Recv(line)
			}
			r.mu.Lock()
			r.got++
			r.cond.Broadcast()
			r.mu.Unlock()
		}
		r.mu.Lock()
		r.eof = true
		r.cond.Broadcast()
		r.mu.Unlock()
	}()
	seen := 0 // lines the implementation had written at this point of the recording
send:
	for _, e := range entries {
		if e.Impl != impl {
			continue
		}
		switch e.Dir {
		case client.TranscriptRecv:
			seen++
			want++
		case client.TranscriptSend:
			r.waitFor(seen, bound)
			line := r.line(e)
			rec.Send(line)
			if _, err := stdin.Write(line); err != nil {
				break send // it is gone; what it said is recorded
			}
		}
	}
	r.waitFor(want, bound)
	stdin.Close()
	select {
	case <-readDone:
	case <-time.After(bound):
	}
	r.mu.Lock()
	got = r.got
	r.mu.Unlock()
	return got, want, nil
}

// recordedEnv is the environment implementation impl started with, as
// recorded, without the run's marker (a replay is no run's); nil (this
// process's environment) when none was recorded.
func recordedEnv(entries []client.TranscriptEntry, impl int) []string {
	for _, e := range entries {
		if e.Impl == impl && e.Dir == client.TranscriptStart && len(e.Env) > 0 {
			var env []string
			for _, kv := range e.Env {
				if !strings.HasPrefix(kv, client.MarkerVariable+"=") {
					env = append(env, kv)
				}
			}
			return env
		}
	}
	return nil
}
