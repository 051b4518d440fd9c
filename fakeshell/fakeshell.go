// Package fakeshell is a fake login shell whose behaviour a scenario
// chooses, for the login PATH probe's scenarios (spec/path-probe.md). It
// prints banners, trailers, escape codes, a given PATH or nothing, exits
// with a chosen code, sleeps, ignores SIGTERM, leaves a child holding
// stdout, reads stdin or /dev/tty, takes the terminal as a job-control
// shell does, or rejects -lic; and it logs every invocation as JSON lines
// a scenario can assert on. With Exec set it is a recording shell instead:
// it logs, then becomes another program with the same arguments.
//
// A fake shell is a small #!/bin/sh wrapper that re-executes the kit's own
// binary (the apexcheck command or a test binary) with APEXCHECK_ROLE set
// to Role, so it works wherever the kit's binary runs, `go install`
// included. Install writes the wrapper and its behaviour file; Main is the
// role's entry point.
package fakeshell

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Role is the value of APEXCHECK_ROLE that makes the kit's binary a fake
// shell.
const Role = "fakeshell"

// RoleVariable is the variable that selects a role (internal/roles).
const RoleVariable = "APEXCHECK_ROLE"

// ConfigVariable names the behaviour file of the fake shell being run.
const ConfigVariable = "APEXCHECK_FAKESHELL"

// holdVariable makes the binary the child a fake shell leaves holding its
// stdout: it sleeps for the given number of milliseconds.
const holdVariable = "APEXCHECK_FAKESHELL_HOLD"

// Behaviour is what one fake shell does, in this order: log its start;
// ignore SIGTERM; take or read the terminal; read stdin; start a child
// holding stdout; start a detached child holding stdout; start a tracer;
// start a background job; leave a leaderless child, then a leaderless job;
// wait; print; log its
// end; exit.
type Behaviour struct {
	// Log is the JSON-lines file every invocation appends to.
	Log string `json:"log"`
	// Tag names this fake shell in its log records.
	Tag string `json:"tag,omitempty"`
	// PATH is printed as the PATH; nil prints the shell's own $PATH.
	PATH *string `json:"path,omitempty"`
	// PathLen, when positive, prints a generated PATH of exactly this many
	// bytes instead.
	PathLen int `json:"pathLen,omitempty"`
	// Banner, when positive, prints a generated banner of exactly this
	// many bytes first, before Before: one long line of text with no line
	// feed, as an rc that prints a blob, so that a scenario can put a
	// stdout of any size before the last line.
	Banner int `json:"banner,omitempty"`
	// Before and After are printed right before and after the PATH, with
	// no line feed added: banners, trailers, escape codes.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Stderr is printed to stderr before anything else is printed, as
	// interactive shells without a terminal complain about job control.
	Stderr string `json:"stderr,omitempty"`
	// StderrAfter is printed to stderr after the PATH, as a shell's
	// logout or EXIT-trap noise.
	StderrAfter string `json:"stderrAfter,omitempty"`
	// Silent prints nothing at all, as a shell whose rc execs another
	// shell that reads end-of-file from stdin.
	Silent bool `json:"silent,omitempty"`
	// Fish2 prints the PATH's entries separated by spaces, as fish 2
	// expanded "$PATH".
	Fish2 bool `json:"fish2,omitempty"`
	// Exit is the exit status.
	Exit int `json:"exit,omitempty"`
	// SleepMS is how long to wait before printing.
	SleepMS int `json:"sleepMS,omitempty"`
	// AtMS, when positive, waits before printing until this long after
	// the process started, by the kernel's record of its start (the fork
	// in the implementation), so that a slow start on a loaded machine
	// does not shift the moment the PATH is printed.
	AtMS int `json:"atMS,omitempty"`
	// Until, when set, waits for this file to exist before printing.
	Until string `json:"until,omitempty"`
	// IgnoreTERM ignores SIGTERM, SIGHUP and SIGINT, as interactive bash
	// and zsh do.
	IgnoreTERM bool `json:"ignoreTerm,omitempty"`
	// HoldMS, when positive, leaves a child in the shell's process group
	// holding stdout open for this long, as an rc that starts an agent.
	HoldMS int `json:"holdMS,omitempty"`
	// DetachMS, when positive, leaves a child that started a session of
	// its own (setsid) holding stdout open for this long, as an rc that
	// starts a daemon with setsid and no redirection: beyond the reach of
	// a sweep of the shell's session (PATH-8, PATH-25).
	DetachMS int `json:"detachMS,omitempty"`
	// TraceMS, when positive, leaves a child in a session of its own, its
	// standard streams on the null device, that traces the shell
	// (PTRACE_SEIZE) for this long, passing every signal on, as a debugger
	// or strace attached to a login shell does. The kernel reports a
	// traced process's death to its tracer alone: until the tracer lets
	// go, the shell's parent cannot see it die, even of SIGKILL. Linux
	// only; it needs the right to trace (see the runner's [ptrace]).
	TraceMS int `json:"traceMS,omitempty"`
	// JobMS, when positive, starts a background job for this long as an
	// rc that turns on job control (`set -m; cmd &`) does: a child in a
	// process group of its own, still in the shell's session, with stdin
	// and stdout on the null device.
	JobMS int `json:"jobMS,omitempty"`
	// LeaderlessMS, when positive, leaves a child in the shell's process
	// group, with stdin and stdout on the null device, whose main thread
	// exits while another of its threads runs on for this long, as a
	// program whose main thread calls pthread_exit: the kernel then shows
	// the child as a zombie (state Z in /proc/PID/stat, an empty
	// /proc/PID/environ) although it runs.
	LeaderlessMS int `json:"leaderlessMS,omitempty"`
	// LeaderlessJobMS is LeaderlessMS for a child in a process group of
	// its own, still in the shell's session, as an rc that turns on job
	// control (`set -m; prog &`) starts such a program: beyond a kill of
	// the shell's group, so only a sweep of the session that counts it as
	// live reaches it (PATH-25).
	LeaderlessJobMS int `json:"leaderlessJobMS,omitempty"`
	// ReadStdin reads a line from stdin first, as an rc that prompts.
	ReadStdin bool `json:"readStdin,omitempty"`
	// TTYGrab opens /dev/tty and takes the terminal as bash's job control
	// does: SIGTTIN to its own group until it is in the foreground, then a
	// process group of its own made the terminal's foreground group.
	TTYGrab bool `json:"ttyGrab,omitempty"`
	// TTYRead opens /dev/tty and reads a line from it.
	TTYRead bool `json:"ttyRead,omitempty"`
	// Reject rejects -lic as tcsh and nushell do: a message on stderr and
	// exit status 1, nothing else.
	Reject bool `json:"reject,omitempty"`
	// Exec, when set, makes this a recording shell: it logs its start,
	// then execs this program with the same arguments and environment.
	Exec string `json:"exec,omitempty"`
}

// Install writes a fake shell at path that runs self (the kit's binary) as
// the fake shell b describes. Its behaviour goes to path+".json"; b.Log
// defaults to path+".log".
func Install(self, path string, b Behaviour) error {
	path, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("install fake shell: %w", err)
	}
	if b.Log == "" {
		b.Log = path + ".log"
	}
	if b.Tag == "" {
		b.Tag = filepath.Base(path)
	}
	data, err := json.MarshalIndent(b, "", "\t")
	if err != nil {
		return fmt.Errorf("install fake shell: %w", err)
	}
	config := path + ".json"
	if err := os.WriteFile(config, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("install fake shell: %w", err)
	}
	// The assignments before exec are exported to the binary; it removes
	// them from its environment before anything else can inherit them.
	script := "#!/bin/sh\n" + RoleVariable + "=" + Role + " " + ConfigVariable + "=" + shellQuote(config) +
		" exec " + shellQuote(self) + " \"$@\"\n"
	if err := writeExecutable(path, []byte(script)); err != nil {
		return fmt.Errorf("install fake shell: %w", err)
	}
	return nil
}

// writeExecutable writes an executable file while no process can be
// forked from this one. A child forked while the file is open for writing
// holds it open until it execs, and an exec of the file until then fails
// with ETXTBSY (Go issue 22315): on a loaded machine, with scenarios
// starting processes in parallel, the implementation's exec of the fake
// shell failed so, and its probe with it. Forks hold syscall.ForkLock
// until the child has exec'd, so holding it for reading keeps them out.
func writeExecutable(path string, data []byte) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	return os.WriteFile(path, data, 0o755)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// generatedPATH returns a PATH of exactly n bytes made of directory
// entries that do not exist.
func generatedPATH(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		if b.Len() > 0 {
			b.WriteByte(':')
		}
		fmt.Fprintf(&b, "/nonexistent/apexcheck-%06d", i)
	}
	out := []byte(b.String()[:n])
	if out[n-1] == ':' {
		out[n-1] = 'x' // no empty entry at the end
	}
	return string(out)
}

// generatedBanner returns exactly n bytes of printable text with no line
// feed.
func generatedBanner(n int) string {
	const word = "banner "
	return strings.Repeat(word, n/len(word)+1)[:n]
}
