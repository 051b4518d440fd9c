package broken

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/creack/pty"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/output"
	"github.com/apexcheck/apexcheck/ref/server"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// The hazard variants break the core profile the way shell tools written
// in a hurry do: a stdin left open, a pseudo-terminal, a kill that is not
// SIGKILL to the whole group, a wait on pipes, a strict decoder, a shared
// buffer. Each is caught by the core scenarios alone (`*_core_*`).
func init() {
	Register("stdin-open-pipe", Variant{
		Clause: "EXEC-5",
		Defect: "gives the command a stdin pipe it never writes nor closes, as mcp-server-commands does, " +
			"so a prompt or a filter reading stdin waits for ever (EXEC-5)",
		Scenarios: `^exec_core_stdin_(prompt|filters)$`,
		Serve:     naive(naiveExec{stdin: stdinOpenPipe, signal: syscall.SIGKILL, group: true}),
	})
	Register("stdin-newline", Variant{
		Clause:    "EXEC-5",
		Defect:    "writes a line feed to the command's stdin, answering every prompt with an empty line (EXEC-5)",
		Scenarios: `^exec_core_stdin_(prompt|filters)$`,
		Serve:     naive(naiveExec{stdin: stdinNewline, signal: syscall.SIGKILL, group: true}),
	})
	Register("pseudo-terminal", Variant{
		Clause: "EXEC-30",
		Defect: "runs the command on a pseudo-terminal, its controlling terminal, as tools built on node-pty do, " +
			"so pagers and /dev/tty prompts wait for keystrokes that never come (EXEC-30)",
		Scenarios: `^exec_core_(stdin_not_terminal|no_terminal|dev_tty|pager_less|pager_more)$`,
		Serve:     naive(naiveExec{pty: true, signal: syscall.SIGKILL, group: true}),
	})
	Register("hangup-kill", Variant{
		Clause: "EXEC-10",
		Defect: "ends a timed-out or aborted command with SIGHUP to its group, node-pty's default kill, " +
			"so nohup'ed children live on (EXEC-10, EXEC-11)",
		Scenarios: `^exec_core_(timeout|abort)_nohup$`,
		Serve:     naive(naiveExec{signal: syscall.SIGHUP, group: true}),
	})
	Register("term-kill", Variant{
		Clause: "EXEC-10",
		Defect: "ends a timed-out or aborted command with SIGTERM alone, so processes that ignore it live on " +
			"and the call waits for them (EXEC-10, EXEC-11)",
		Scenarios: `^exec_core_(timeout|abort)_ignores_term$`,
		Serve:     naive(naiveExec{signal: syscall.SIGTERM, group: true}),
	})
	Register("kills-shell-only", Variant{
		Clause: "EXEC-10",
		Defect: "kills only the shell's pid on timeout and abort, as Node's child.kill() does, " +
			"so the rest of a pipeline lives on (EXEC-10, EXEC-11)",
		Scenarios: `^exec_core_(timeout|abort)_pipeline$`,
		Serve:     naive(naiveExec{signal: syscall.SIGKILL}),
	})
	Register("waits-for-pipes", Variant{
		Clause: "EXEC-19",
		Defect: "waits for the output pipes to close before it answers, as os/exec's Wait does with a " +
			"buffer and no WaitDelay, so a detached descendant holds a killed call (EXEC-19, EXEC-10, EXEC-11)",
		Scenarios: `^exec_core_(timeout|abort)_detached_holder$`,
		Serve:     naive(naiveExec{signal: syscall.SIGKILL, group: true, waitPipes: true}),
	})
	Register("exit-status-flattened", Variant{
		Clause:    "EXEC-15",
		Defect:    "reports every failure as exit status 1, whatever the command exited with (EXEC-15, PROTO-8)",
		Scenarios: `^exec_core_(missing_command|not_executable|exit_range)$`,
		Serve: editResult(func(r *protocol.Result) {
			if d := r.Details; d != nil && d.Execution != nil && d.Execution.ExitCode != nil && *d.Execution.ExitCode != 0 {
				one := 1
				d.Execution.ExitCode = &one
			}
		}),
	})
	Register("silent-failure-success", Variant{
		Clause: "EXEC-15",
		Defect: "judges failure by output, reporting a command that failed without printing anything " +
			"as a success (EXEC-15)",
		Scenarios: `^exec_core_(silent_failure|exit_range)$`,
		Serve: editResult(func(r *protocol.Result) {
			if strings.HasPrefix(r.Text, "(no output)") {
				r.IsError = false
			}
		}),
	})
	Register("empty-output-error", Variant{
		Clause:    "EXEC-16",
		Defect:    "reports a command that succeeded without printing anything as an error (EXEC-16)",
		Scenarios: `^exec_core_empty_output$`,
		Serve: editResult(func(r *protocol.Result) {
			if r.Text == "(no output)" {
				r.IsError = true
			}
		}),
	})
	Register("drops-partial-line", Variant{
		Clause: "EXEC-16",
		Defect: "hands on only complete lines, as a line reader does, so a last line without a line feed " +
			"is lost (EXEC-16, EXEC-6)",
		Scenarios: `^output_core_no_final_newline$`,
		Serve: editResult(func(r *protocol.Result) {
			r.Text = r.Text[:strings.LastIndex(r.Text, "\n")+1]
		}),
	})
	Register("strict-utf8", Variant{
		Clause:    "OUT-37",
		Defect:    "fails the call when the output is not valid UTF-8, as a strict decoder does (OUT-37)",
		Scenarios: `^output_core_(invalid_utf8|binary)$`,
		Serve: editResult(func(r *protocol.Result) {
			// The reference has replaced every invalid byte with U+FFFD.
			if strings.ContainsRune(r.Text, utf8.RuneError) {
				*r = protocol.Result{IsError: true, Text: "error: the command's output is not valid UTF-8"}
			}
		}),
	})
	Register("cuts-at-nul", Variant{
		Clause:    "OUT-37",
		Defect:    "ends the text at the first NUL byte, as a C string does (OUT-37)",
		Scenarios: `^output_core_binary$`,
		Serve: editResult(func(r *protocol.Result) {
			if i := strings.IndexByte(r.Text, 0); i >= 0 {
				r.Text = r.Text[:i]
			}
		}),
	})
	Register("latin1-decoding", Variant{
		Clause:    "OUT-37",
		Defect:    "decodes the output as Latin-1, so every multi-byte character reaches the model garbled (OUT-37)",
		Scenarios: `^output_core_utf8_intact$`,
		Serve: editResult(func(r *protocol.Result) {
			var b strings.Builder
			for i := 0; i < len(r.Text); i++ {
				b.WriteRune(rune(r.Text[i]))
			}
			r.Text = b.String()
		}),
	})
	Register("uncut-hazards", Variant{
		Clause:    "OUT-34",
		Defect:    "passes one enormous line, a million lines and a stderr flood to the model uncut (OUT-34)",
		Scenarios: `^output_core_(long_line|many_lines|stderr_flood)$`,
		Serve: withOutput(func(o output.Options) tool.Output {
			return output.NewAccumulator(output.Options{Dir: o.Dir, MaxLines: unreachable, MaxBytes: unreachable})
		}),
	})
	Register("shared-output", Variant{
		Clause: "EXEC-28",
		Defect: "collects output in one buffer shared by every call, so a result carries the output of " +
			"the calls that ended while it ran (EXEC-28)",
		Scenarios: `^proto_core_concurrent_(isolated|many)$`,
		Serve: Wrapped(func(h server.Handler) server.Handler {
			var (
				mu   sync.Mutex
				done []string
			)
			return ExecuteFunc{Handler: h, Exec: func(ctx context.Context, c tool.Call) protocol.Result {
				mu.Lock()
				from := len(done)
				mu.Unlock()
				r := h.Execute(ctx, c)
				mu.Lock()
				defer mu.Unlock()
				own := r.Text
				r.Text = strings.Join(done[from:], "") + r.Text
				done = append(done, own)
				return r
			}}
		}),
	})
	Register("truncates-command", Variant{
		Clause:    "EXEC-29",
		Defect:    "cuts the command at 64 KiB and runs what is left, without a word (EXEC-29)",
		Scenarios: `^exec_core_(long|huge)_command$`,
		Serve: rewritingCommand(func(cmd string) string {
			if len(cmd) > 64<<10 {
				return cmd[:64<<10]
			}
			return cmd
		}),
	})

	// naive-exec is the naive executor with no defect: stdin the null
	// device, SIGKILL to the whole group, a short grace after the shell
	// exits. It passes every scenario the variants built from it must fail,
	// so each of them is caught for its own defect.
	Controls["naive-exec"] = Variant{
		Defect:    "none: the executor the stdin, kill and pipe variants are built from",
		Scenarios: `^exec_core_(stdin_(prompt|filters|not_terminal)|no_terminal|dev_tty|pager_(less|more)|(timeout|abort)_(nohup|ignores_term|pipeline|detached_holder))$`,
		Serve:     naive(naiveExec{signal: syscall.SIGKILL, group: true}),
	}
}

// editResult serves the reference with every result changed by edit.
func editResult(edit func(*protocol.Result)) func(io.Reader, io.Writer) error {
	return Wrapped(func(h server.Handler) server.Handler {
		return ExecuteFunc{Handler: h, Exec: func(ctx context.Context, c tool.Call) protocol.Result {
			r := h.Execute(ctx, c)
			edit(&r)
			return r
		}}
	})
}

// The stdin modes of the naive executor.
const (
	stdinNull = iota
	stdinOpenPipe
	stdinNewline
)

// naiveExec is a shell executor of the kind a tool's author writes in an
// afternoon with os/exec: `bash -c` in a session of its own, both streams
// into one buffer, a timer for the timeout. Its fields choose the defects.
type naiveExec struct {
	stdin int
	// signal is what a timeout or an abort sends; group sends it to the
	// shell's process group rather than to the shell alone.
	signal syscall.Signal
	group  bool
	// waitPipes waits for both pipes to close, however long a descendant
	// holds them, instead of a short grace after the shell exits.
	waitPipes bool
	// pty runs the command on a new pseudo-terminal, its controlling
	// terminal and all three of its standard streams.
	pty bool
}

// naive serves the reference with every foreground run executed by e
// instead; everything else (handshake, rejections, background, a missing
// working directory) is the reference's.
func naive(e naiveExec) func(io.Reader, io.Writer) error {
	return Wrapped(func(h server.Handler) server.Handler {
		return ExecuteFunc{Handler: h, Exec: func(ctx context.Context, c tool.Call) protocol.Result {
			var args struct {
				Command    *string  `json:"command"`
				Timeout    *float64 `json:"timeout"`
				Background any      `json:"background"`
				Handle     any      `json:"handle"`
			}
			if json.Unmarshal(c.Args, &args) != nil || args.Command == nil || args.Background != nil || args.Handle != nil {
				return h.Execute(ctx, c)
			}
			if st, err := os.Stat(c.Cwd); err != nil || !st.IsDir() {
				return h.Execute(ctx, c)
			}
			return e.run(ctx, *args.Command, args.Timeout, c.Cwd)
		}}
	})
}

// lockedBuffer is one buffer both streams append to.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.ToValidUTF8(b.buf.String(), "\uFFFD")
}

func (e naiveExec) run(ctx context.Context, command string, timeout *float64, cwd string) protocol.Result {
	cmd := exec.Command("bash", "-c", command)
	cmd.Dir = cwd
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	switch e.stdin {
	case stdinOpenPipe:
		r, w, err := os.Pipe()
		if err != nil {
			return protocol.Result{IsError: true, Text: "stdin pipe: " + err.Error()}
		}
		// Nobody writes w, and it stays open until the call is over.
		defer r.Close()
		defer w.Close()
		cmd.Stdin = r
	case stdinNewline:
		cmd.Stdin = strings.NewReader("\n")
	}
	var out lockedBuffer
	var pipeW *os.File
	var pipesDone chan struct{}
	if e.pty {
		cmd.SysProcAttr = nil // pty.Start makes the session and the controlling terminal
		f, err := pty.Start(cmd)
		if err != nil {
			return protocol.Result{IsError: true, Text: "start on a pty: " + err.Error()}
		}
		defer f.Close()
		pipesDone = make(chan struct{})
		go func() { io.Copy(&out, f); close(pipesDone) }()
	} else if e.waitPipes {
		// Writers that are not *os.File: Wait copies until both pipes close.
		cmd.Stdout, cmd.Stderr = &out, &out
	} else {
		r, w, err := os.Pipe()
		if err != nil {
			return protocol.Result{IsError: true, Text: "output pipe: " + err.Error()}
		}
		defer r.Close()
		pipeW = w
		cmd.Stdout, cmd.Stderr = w, w
		pipesDone = make(chan struct{})
		go func() { io.Copy(&out, r); close(pipesDone) }()
	}
	if !e.pty {
		err := cmd.Start()
		if pipeW != nil {
			pipeW.Close() // the child holds its own copy
		}
		if err != nil {
			return protocol.Result{IsError: true, Text: "start: " + err.Error()}
		}
	}
	var expired <-chan time.Time
	if timeout != nil {
		t := time.NewTimer(time.Duration(*timeout * float64(time.Second)))
		defer t.Stop()
		expired = t.C
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var err error
	status := ""
	select {
	case err = <-waited:
	case <-expired:
		status = "Command timed out"
	case <-ctx.Done():
		status = "Command aborted"
	}
	if status != "" {
		pid := cmd.Process.Pid
		if e.group {
			pid = -pid
		}
		syscall.Kill(pid, e.signal)
		err = <-waited
	}
	if pipesDone != nil {
		select {
		case <-pipesDone:
		case <-time.After(100 * time.Millisecond):
		}
	}
	text := out.String()
	if status != "" {
		return protocol.Result{IsError: true, Text: text + "\n\n" + status,
			Details: &protocol.Details{Execution: &protocol.Execution{Cwd: cwd}}}
	}
	code := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	} else if err != nil {
		return protocol.Result{IsError: true, Text: text + "\n\nwait: " + err.Error()}
	}
	if text == "" {
		text = "(no output)"
	}
	return protocol.Result{IsError: code != 0, Text: text,
		Details: &protocol.Details{Execution: &protocol.Execution{Cwd: cwd, ExitCode: &code}}}
}
