// Package shellserver is a small, correct MCP shell server, written with
// the official MCP Go SDK, that the kit's tests certify in the core
// profile through the MCP bridge (`apexcheck --mcp`). It is the proof that
// the bridge judges an MCP tool as the kit judges any other: a bridge that
// distorted a result, an exit status, a cancellation or the server's own
// process would fail it. It is not shipped.
//
// It serves one tool in one of two conventions, chosen by its argument:
//
//	plain  tool "sh" {command, cwd, timeout (seconds)}; the text is the
//	       output, then a last line "exit status: N" ("exit status: none"
//	       when the command was killed by a timeout or cancellation, or
//	       never ran)
//	json   tool "exec" {cmd, workdir, timeout_ms, shell}, all required;
//	       the text is the JSON object {"output", "exit_code", "timed_out"},
//	       exit_code null when the command was killed or never ran
//
// A command runs as `SHELL -c COMMAND` (bash) in the working directory, in
// a process group of its own, with stdin /dev/null and stdout and stderr
// both into one bounded buffer: the last 64 KiB are kept, after a notice of
// what was dropped. A timeout or a cancellation kills the whole group with
// SIGKILL; so does the end of the server's input, for every command still
// running. A shell killed by signal n reports 128+n. Anything but status 0
// is an error result.
package shellserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Arg, as a test binary's first argument, makes it the server; the second
// argument is the convention, Plain or JSON.
const Arg = "shell-mcp-server"

// The conventions.
const (
	Plain = "plain"
	JSON  = "json"
)

// Mappings are the bridge's mappings for the two conventions.
var Mappings = map[string]string{
	Plain: `{
  "implementation": {"name": "shellserver-plain", "language": "go"},
  "tool": "sh",
  "arguments": {"command": "command", "timeout": {"name": "timeout", "unit": "s"}, "cwd": "cwd"},
  "result": {"text": "content", "exitLine": "exit status: (\\d+|none)", "rpcError": "error-result"},
  "capabilities": ["abort"]
}`,
	JSON: `{
  "implementation": {"name": "shellserver-json", "language": "go"},
  "tool": "exec",
  "arguments": {"command": "cmd", "timeout": {"name": "timeout_ms", "unit": "ms"}, "cwd": "workdir",
    "defaults": {"timeout_ms": 0}, "fixed": {"shell": "bash"}},
  "result": {"text": "content", "output": "output", "exitCode": "exit_code", "rpcError": "error-result"},
  "capabilities": ["abort"]
}`,
}

// keep is how much output a result keeps: its last bytes.
const keep = 64 << 10

type plainIn struct {
	Command string  `json:"command" jsonschema:"the shell command to run"`
	Cwd     string  `json:"cwd" jsonschema:"the absolute working directory"`
	Timeout float64 `json:"timeout,omitempty" jsonschema:"seconds before the command is killed; absent or 0 for none"`
}

type jsonIn struct {
	Cmd       string `json:"cmd" jsonschema:"the shell command to run"`
	Workdir   string `json:"workdir" jsonschema:"the absolute working directory"`
	TimeoutMS int64  `json:"timeout_ms" jsonschema:"milliseconds before the command is killed; 0 for none"`
	Shell     string `json:"shell" jsonschema:"the shell that runs the command"`
}

// Main serves the server of convention on stdin and stdout until its
// input ends, then kills every command still running.
func Main(convention string) int {
	s := mcp.NewServer(&mcp.Implementation{Name: "shellserver-" + convention, Version: "1.0.0"}, nil)
	r := &runner{groups: map[int]bool{}}
	switch convention {
	case Plain:
		mcp.AddTool(s, &mcp.Tool{Name: "sh", Description: "Run a shell command."},
			func(ctx context.Context, _ *mcp.CallToolRequest, in plainIn) (*mcp.CallToolResult, any, error) {
				o := r.run(ctx, "bash", in.Command, in.Cwd, time.Duration(in.Timeout*float64(time.Second)))
				return o.plain(), nil, nil
			})
	case JSON:
		mcp.AddTool(s, &mcp.Tool{Name: "exec", Description: "Run a shell command."},
			func(ctx context.Context, _ *mcp.CallToolRequest, in jsonIn) (*mcp.CallToolResult, any, error) {
				o := r.run(ctx, in.Shell, in.Cmd, in.Workdir, time.Duration(in.TimeoutMS)*time.Millisecond)
				return o.json(), nil, nil
			})
	default:
		fmt.Fprintf(os.Stderr, "shellserver: unknown convention %q\n", convention)
		return 2
	}
	err := s.Run(context.Background(), &mcp.StdioTransport{})
	r.killAll()
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "shellserver:", err)
		return 1
	}
	return 0
}

// runner runs commands and knows their process groups.
type runner struct {
	mu     sync.Mutex
	groups map[int]bool
	closed bool
}

// outcome is what became of a command.
type outcome struct {
	output  string
	code    *int   // nil when the command was killed or never ran
	problem string // why it never ran, or was killed
}

func (o outcome) isError() bool { return o.code == nil || *o.code != 0 }

func (o outcome) text() string {
	if o.problem != "" {
		return o.output + o.problem + "\n"
	}
	return o.output
}

func (o outcome) plain() *mcp.CallToolResult {
	status := "none"
	if o.code != nil {
		status = strconv.Itoa(*o.code)
	}
	return &mcp.CallToolResult{IsError: o.isError(),
		Content: []mcp.Content{&mcp.TextContent{Text: o.text() + "exit status: " + status}}}
}

func (o outcome) json() *mcp.CallToolResult {
	text, _ := json.Marshal(map[string]any{"output": o.text(), "exit_code": o.code, "timed_out": o.problem == "timed out"})
	return &mcp.CallToolResult{IsError: o.isError(), Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}
}

func (r *runner) run(ctx context.Context, shell, command, dir string, timeout time.Duration) outcome {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return outcome{problem: fmt.Sprintf("working directory %q does not exist; nothing ran", dir)}
	}
	if ctx.Err() != nil {
		return outcome{problem: "cancelled before it started; nothing ran"}
	}
	buf := &tail{}
	cmd := exec.Command(shell, "-c", command)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = buf, buf // stdin is /dev/null
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A descendant that left the group may hold the pipe: once the shell
	// has exited, its output is not waited for.
	cmd.WaitDelay = 250 * time.Millisecond
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return outcome{problem: "the server is stopping; nothing ran"}
	}
	err := cmd.Start()
	if err == nil {
		r.groups[cmd.Process.Pid] = true
	}
	r.mu.Unlock()
	if err != nil {
		return outcome{problem: err.Error()}
	}
	pgid := cmd.Process.Pid
	defer func() {
		r.mu.Lock()
		delete(r.groups, pgid)
		r.mu.Unlock()
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var expire <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expire = t.C
	}
	var problem string
	select {
	case err = <-exited:
	case <-expire:
		problem = "timed out"
	case <-ctx.Done():
		problem = "cancelled"
	}
	if problem != "" {
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-exited
		return outcome{output: buf.String(), problem: problem}
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && !errors.Is(err, exec.ErrWaitDelay) {
		return outcome{output: buf.String(), problem: err.Error()}
	}
	code := cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	return outcome{output: buf.String(), code: &code}
}

// killAll kills every command still running and refuses new ones: the
// server's input has ended, so no result can reach anyone.
func (r *runner) killAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	for pgid := range r.groups {
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// tail keeps the last bytes written to it and counts the rest.
type tail struct {
	mu      sync.Mutex
	buf     []byte
	dropped int64
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - keep; over > 0 {
		t.dropped += int64(over)
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dropped == 0 {
		return string(t.buf)
	}
	// Start at a line's start, so that the notice is a line of its own.
	kept := t.buf
	if i := bytes.IndexByte(kept, '\n'); i >= 0 && i+1 < len(kept) {
		kept = kept[i+1:]
	}
	return fmt.Sprintf("[output cut: the first %d bytes are not shown]\n%s", int64(len(t.buf)-len(kept))+t.dropped, kept)
}
