// Command adapter is an apexcheck adapter skeleton (Go, standard library
// only).
//
// It speaks the apexcheck wire protocol (spec/protocol.md in the kit) on
// stdin and stdout: one JSON object per line, requests in, responses out.
// Everything in this file is protocol plumbing except ONE function, runTool,
// which is marked below: replace its body with a call into your bash tool.
//
// As generated, runTool runs the command with a plain `bash -lc` subprocess.
// That passes the protocol scenarios (proto_*) and shows the shape of a
// result; it is not a conforming bash tool (no call parsing, no truncation,
// no background shells), and the kit's other scenarios say exactly what is
// missing.
//
// Build and run it:
//
//	go build -o adapter .
//	apexcheck --impl ./adapter
//	apexcheck --impl ./adapter --run '^exec_exit' -v   # one area, with logs
//
// Rules the plumbing keeps for you (spec/INTERPRETING.md, "Rules of
// thumb"): stdout carries only protocol messages (log to stderr); each
// message is written whole; requests keep being read while calls run, so an
// abort reaches a running call; shutdown and end of stdin abort every call
// in flight and exit.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
)

const protocolVersion = 1

// implementation is who you are, as the certificate will name you.
var implementation = map[string]string{"name": "my-bash-tool", "version": "0.0.0", "language": "go"}

// capabilities are optional features (spec/protocol.md PROTO-4). Declare
// only what your tool really does: a declared capability is tested, an
// undeclared one is skipped (and never counted as a pass).
//
//	abort         runTool stops the command when ctx is cancelled
//	process-tree  the command runs in a session of its own and an abort
//	              kills its whole process group
//
// Others you may add once your tool supports them: background, evidence,
// full-output, path-probe, permissions, render, session-env, shell-path,
// updates (each needs more plumbing; see spec/protocol.md).
var capabilities = []string{"abort", "process-tree"}

// Result is a tool result (spec/protocol.md PROTO-8).
type Result struct {
	IsError bool           `json:"isError"`
	Text    string         `json:"text"`
	Details map[string]any `json:"details,omitempty"`
}

// Options are the tool options of one call (spec/protocol.md PROTO-7).
type Options struct {
	CommandPrefix            *string `json:"commandPrefix,omitempty"`
	ShellPath                *string `json:"shellPath,omitempty"`
	ExposeSessionEnvironment *bool   `json:"exposeSessionEnvironment,omitempty"`
}

// ---------------------------------------------------------------------------
// >>> REPLACE THIS FUNCTION with a call into your bash tool. <<<
//
// args     the raw tool arguments exactly as the model sent them: any JSON
//
//	value, malformed shapes included (spec/call.md). Do not
//	pre-validate them here; that is your tool's job.
//
// cwd      the absolute working directory of the call.
// opts     the tool options, any of them nil when absent.
// ctx      the call's abort signal: kill the command when it is cancelled.
//
// Return the tool result. A failed tool call is a Result with IsError true.
// ---------------------------------------------------------------------------
func runTool(ctx context.Context, args json.RawMessage, cwd string, opts Options) Result {
	// Members by their exact names, the last of a repeated one winning, as
	// JSON.parse reads them: decoding into a struct would also take
	// "Command" for command (call.md CALL-11).
	var fields map[string]json.RawMessage
	var command string
	if json.Unmarshal(args, &fields) != nil || json.Unmarshal(fields["command"], &command) != nil || fields["command"] == nil || string(fields["command"]) == "null" {
		return Result{IsError: true, Text: `this skeleton only runs {"command": "..."}`}
	}
	// Seconds; anything but a number means no timeout (0 here).
	var timeout float64
	if t := fields["timeout"]; len(t) > 0 && (t[0] == '-' || t[0] >= '0' && t[0] <= '9') {
		// 1e400 overflows to +Inf, as JavaScript's JSON.parse reads it.
		timeout, _ = strconv.ParseFloat(string(t), 64)
		if math.IsInf(timeout, 0) || timeout <= 0 {
			return Result{IsError: true, Text: "Invalid timeout: must be a finite number of seconds"}
		}
	}
	if timeout*1000 > 2147483647 {
		return Result{IsError: true, Text: "Invalid timeout: maximum is 2147483.647 seconds"}
	}
	if opts.CommandPrefix != nil && *opts.CommandPrefix != "" {
		command = *opts.CommandPrefix + "\n" + command
	}
	if ctx.Err() != nil {
		return Result{IsError: true, Text: "Command aborted"}
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return Result{IsError: true, Text: "Working directory does not exist: " + cwd + "\nCannot execute bash commands."}
	}
	shell := "/bin/bash"
	argv := []string{"-lc", command}
	cmd := exec.Command(shell, argv...)
	cmd.Dir = cwd
	// A session of its own (setsid), so that an abort can kill the whole
	// process group; stdin is the null device (exec.Command's default).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// Descendants may hold the pipes open after the shell exits: read for
	// a short grace period, not until they end (spec/exec.md EXEC-19).
	cmd.WaitDelay = 100 * time.Millisecond
	if err := cmd.Start(); err != nil {
		return Result{IsError: true, Text: err.Error()}
	}
	killGroup := func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var timedOut <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(time.Duration(timeout * float64(time.Second)))
		defer t.Stop()
		timedOut = t.C
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	stopped := ""
	var err error
	select {
	case err = <-waited:
	case <-ctx.Done():
		stopped = "Command aborted"
		killGroup()
		err = <-waited
	case <-timedOut:
		stopped = "Command timed out after " + jsNumber(timeout) + " seconds"
		killGroup()
		err = <-waited
	}
	output := decode(out.bytes())
	if stopped != "" {
		if output != "" {
			stopped = output + "\n\n" + stopped
		}
		return Result{IsError: true, Text: stopped, Details: map[string]any{"execution": map[string]any{"cwd": cwd, "exitCode": nil}}}
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && !errors.Is(err, exec.ErrWaitDelay) {
		return Result{IsError: true, Text: err.Error()}
	}
	code := cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		code = 128 + int(ws.Signal()) // killed by signal n: reported as 128+n
	}
	details := map[string]any{"execution": map[string]any{"cwd": cwd, "executable": shell, "argv": argv, "exitCode": code}}
	if output == "" {
		output = "(no output)"
	}
	if code != 0 {
		return Result{IsError: true, Text: fmt.Sprintf("%s\n\nCommand exited with code %d", output, code), Details: details}
	}
	return Result{Text: output, Details: details}
}

// jsNumber formats a positive number as JavaScript's
// Number.prototype.toString does (0.5, 1, 1e-7, 2147483.647).
func jsNumber(x float64) string {
	if x >= 1e-6 && x < 1e21 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	s := strconv.FormatFloat(x, 'e', -1, 64) // 1e-07
	mant, exp, _ := strings.Cut(s, "e")
	sign, digits := exp[:1], strings.TrimLeft(exp[1:], "0")
	return mant + "e" + sign + digits
}

// lockedBuffer collects stdout and stderr, which are copied concurrently.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Bytes()
}

// decode reads output as UTF-8, replacing each maximal ill-formed
// subsequence with one U+FFFD, as JavaScript's TextDecoder does
// (spec/output.md).
func decode(b []byte) string {
	var s strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			n = maximalSubpart(b)
		}
		s.WriteRune(r)
		b = b[n:]
	}
	return s.String()
}

// maximalSubpart is the length of the ill-formed sequence at the start of
// b: a lead byte and the continuation bytes that could still follow it.
func maximalSubpart(b []byte) int {
	lo, hi, need := byte(0x80), byte(0xBF), 0
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 2
	case c == 0xE0:
		lo, need = 0xA0, 3
	case c == 0xED:
		hi, need = 0x9F, 3
	case c >= 0xE1 && c <= 0xEF:
		need = 3
	case c == 0xF0:
		lo, need = 0x90, 4
	case c >= 0xF1 && c <= 0xF3:
		need = 4
	case c == 0xF4:
		hi, need = 0x8F, 4
	default:
		return 1
	}
	i := 1
	if i < len(b) && i < need && b[i] >= lo && b[i] <= hi {
		for i++; i < len(b) && i < need && b[i] >= 0x80 && b[i] <= 0xBF; i++ {
		}
	}
	return i
}

// ---------------------------------------------------------------------------
// Everything below is protocol plumbing; you should not need to change it.
// ---------------------------------------------------------------------------

var writeMu sync.Mutex

// send writes one message as one whole line (PROTO-1, PROTO-2).
func send(msg map[string]any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(msg); err != nil {
		fmt.Fprintln(os.Stderr, "adapter: encode response:", err)
		return
	}
	writeMu.Lock()
	defer writeMu.Unlock()
	os.Stdout.Write(b.Bytes())
}

func sendError(id, code, message string) {
	send(map[string]any{"id": id, "type": "error", "error": map[string]string{"code": code, "message": message}})
}

// request holds every member any request may have. The members whose JSON
// type the adapter must check (PROTO-15) stay raw until checked.
type request struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Versions  []int           `json:"versions"`
	Arguments json.RawMessage `json:"arguments"`
	Cwd       json.RawMessage `json:"cwd"`
	Options   json.RawMessage `json:"options"`
	Session   json.RawMessage `json:"session"`
	Updates   json.RawMessage `json:"updates"`
	Evidence  json.RawMessage `json:"evidence"`
	Aborted   json.RawMessage `json:"aborted"`
	Target    json.RawMessage `json:"target"`
}

type inflightCall struct {
	cancel context.CancelFunc
	done   chan struct{}
}

var (
	inflightMu sync.Mutex
	inflight   = map[string]*inflightCall{}
)

// checkCall decodes a call's members, or says what is wrong with them
// (PROTO-15).
func checkCall(req *request) (cwd string, opts Options, aborted bool, problem string) {
	if json.Unmarshal(req.Cwd, &cwd) != nil || cwd == "" {
		return "", opts, false, "call needs cwd, a non-empty string"
	}
	if len(req.Options) > 0 && string(req.Options) != "null" {
		var members map[string]json.RawMessage
		bad := json.Unmarshal(req.Options, &members) != nil
		for name, dst := range map[string]any{"commandPrefix": &opts.CommandPrefix, "shellPath": &opts.ShellPath,
			"exposeSessionEnvironment": &opts.ExposeSessionEnvironment} {
			if v, ok := members[name]; ok && json.Unmarshal(v, dst) != nil {
				bad = true
			}
		}
		if bad {
			return "", opts, false, "options must be an object of strings and booleans"
		}
	}
	if len(req.Session) > 0 {
		var session map[string]any
		if json.Unmarshal(req.Session, &session) != nil {
			return "", opts, false, "session must be an object"
		}
	}
	for name, raw := range map[string]json.RawMessage{"updates": req.Updates, "evidence": req.Evidence, "aborted": req.Aborted} {
		var b bool
		if len(raw) > 0 && json.Unmarshal(raw, &b) != nil {
			return "", opts, false, name + " must be a boolean"
		}
		if name == "aborted" {
			aborted = b
		}
	}
	return cwd, opts, aborted, ""
}

func serveCall(req *request) {
	inflightMu.Lock()
	if _, dup := inflight[req.ID]; dup {
		inflightMu.Unlock()
		sendError(req.ID, "duplicate-id", fmt.Sprintf("call %q is already in flight", req.ID))
		return
	}
	cwd, opts, aborted, problem := checkCall(req)
	if problem != "" {
		inflightMu.Unlock()
		sendError(req.ID, "bad-request", problem)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	if aborted {
		cancel()
	}
	c := &inflightCall{cancel: cancel, done: make(chan struct{})}
	inflight[req.ID] = c
	inflightMu.Unlock()
	go func() {
		defer close(c.done)
		result := runTool(ctx, req.Arguments, cwd, opts)
		cancel()
		inflightMu.Lock()
		delete(inflight, req.ID)
		inflightMu.Unlock()
		send(map[string]any{"id": req.ID, "type": "result", "result": result})
	}()
}

func serve(req *request) {
	switch req.Type {
	case "hello":
		for _, v := range req.Versions {
			if v == protocolVersion {
				send(map[string]any{"id": req.ID, "type": "hello", "protocol": protocolVersion,
					"implementation": implementation, "capabilities": capabilities})
				return
			}
		}
		sendError(req.ID, "unsupported", fmt.Sprintf("this adapter speaks protocol %d only", protocolVersion))
	case "call":
		serveCall(req)
	case "abort":
		var target string
		if json.Unmarshal(req.Target, &target) != nil {
			sendError(req.ID, "bad-request", "abort needs target, a string")
			return
		}
		inflightMu.Lock()
		if c := inflight[target]; c != nil {
			c.cancel()
		}
		inflightMu.Unlock()
		send(map[string]any{"id": req.ID, "type": "abort"})
	case "permission", "render":
		sendError(req.ID, "unsupported", req.Type+" is not a declared capability")
	default:
		sendError(req.ID, "bad-request", fmt.Sprintf("unknown request type %q", req.Type))
	}
}

// shutdown aborts every call in flight, lets each answer, then exits
// (PROTO-9; on end of stdin, PROTO-10, without the shutdown response).
func shutdown(id *string) {
	inflightMu.Lock()
	var pending []*inflightCall
	for _, c := range inflight {
		c.cancel()
		pending = append(pending, c)
	}
	inflightMu.Unlock()
	for _, c := range pending {
		<-c.done
	}
	if id != nil {
		send(map[string]any{"id": *id, "type": "shutdown"})
	}
	os.Exit(0)
}

func main() {
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			handle(line)
		}
		if err != nil {
			shutdown(nil)
		}
	}
}

// handle serves one request line.
func handle(line []byte) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		sendError("", "bad-request", "request is not a JSON object: "+err.Error())
		return
	}
	var id, typ string
	if json.Unmarshal(obj["id"], &id) != nil || id == "" {
		sendError("", "bad-request", "request has no id")
		return
	}
	if json.Unmarshal(obj["type"], &typ) != nil {
		sendError(id, "bad-request", "request has no type")
		return
	}
	if typ == "shutdown" {
		shutdown(&id)
	}
	// Members by their exact names (protocol.md PROTO-20): decoding the line
	// into a struct would also take "Arguments" for arguments.
	req := request{ID: id, Type: typ, Arguments: obj["arguments"], Cwd: obj["cwd"], Options: obj["options"],
		Session: obj["session"], Updates: obj["updates"], Evidence: obj["evidence"], Aborted: obj["aborted"],
		Target: obj["target"]}
	if v := obj["versions"]; v != nil && json.Unmarshal(v, &req.Versions) != nil {
		sendError(id, "bad-request", "versions must be a list of integers")
		return
	}
	serve(&req)
}
