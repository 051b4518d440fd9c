package broken

import (
	"fmt"
	"syscall"

	"github.com/apexcheck/apexcheck/ref/shellexec"
)

// The racy variants prove that the scenarios which end a call while its
// command has a background job (abort, shutdown, stdin close, timeout)
// cannot be passed by timing. Each kills only the shell's pid, not its
// process group (process.kill(pid) where -pid was meant; Codex's server
// leaves a `sleep 300` behind the same way), and runs a shell that is
// descheduled right after it writes a marker or output, as a loaded
// machine can: its touch and echo pause after doing their work. A
// scenario that writes its marker or output before forking `(sleep 300) &`
// ends the shell in that pause, before the fork, and passes such a tool;
// one whose marker the forked subshell writes, or whose output is echoed
// after the fork, catches it every time. One variant a scenario, so that
// each fix is proved on its own.
func init() {
	// slowShell pauses after every touch and echo: long enough for the
	// runner to see a marker and act on it before the shell's next
	// command, or to put that command past the scenario's timeout (1 s, or 2 s
	// where the shell ignores signals). Subshells
	// inherit the functions, which only pause them after their own work.
	slowShell := func(pause string) func(shellexec.Shell, string) []string {
		return func(sh shellexec.Shell, command string) []string {
			return sh.Argv("touch() { command touch \"$@\"; sleep " + pause + "; }\n" +
				"echo() { builtin echo \"$@\"; sleep " + pause + "; }\n" + command)
		}
	}
	killPid := func(pid int) { syscall.Kill(pid, syscall.SIGKILL) }
	for _, r := range []struct{ scenario, clause, pause, ends string }{
		{"exec_core_abort", "EXEC-11", "0.5", "an abort"},
		{"exec_abort_running", "EXEC-11", "0.5", "an abort"},
		{"exec_kill_ignored_signals", "EXEC-10", "2.5", "a timeout and an abort"},
		{"proto_core_shutdown", "PROTO-9", "0.5", "a shutdown"},
		{"proto_shutdown_aborts_calls", "PROTO-9", "0.5", "a shutdown"},
		{"proto_core_stdin_close", "PROTO-10", "0.5", "the end of its stdin"},
		{"proto_stdin_close", "PROTO-10", "0.5", "the end of its stdin"},
		{"exec_core_timeout", "EXEC-10", "1.5", "a timeout"},
		{"exec_timeout_kills_tree", "EXEC-10", "1.5", "a timeout"},
	} {
		Register("racy-"+r.scenario, Variant{
			Clause: r.clause,
			Defect: fmt.Sprintf("kills only the shell's pid on %s, and its shell pauses %s s after each touch and echo: "+
				"ended between a marker or output and the fork after it, nothing survives", r.ends, r.pause),
			Scenarios: "^" + r.scenario + "$",
			Serve:     withPort(port{kill: killPid, argv: slowShell(r.pause)}),
		})
	}
}

// The approval variants model Codex's shell tool, whose patched bash asks
// its server before each exec: a program started after the marker waits
// for an answer, and dies with the server when the session ends first. The
// port kills only the shell's pid, and each sleep waits 1 s for "approval"
// and then runs only while the server (the shell's parent, $PPID, which a
// subshell keeps) is alive. A scenario whose subshell writes its marker and
// then starts `sleep 300` lets the session end during the wait, the sleep
// never starts, and nothing survives; one whose subshell blocks in the
// shell's own `read` after its marker leaves a running subshell behind.
func init() {
	approvalShell := func(sh shellexec.Shell, command string) []string {
		return sh.Argv("sleep() { command sleep 1; kill -0 $PPID 2>/dev/null || exit 1; command sleep \"$@\"; }\n" + command)
	}
	killPid := func(pid int) { syscall.Kill(pid, syscall.SIGKILL) }
	for _, r := range []struct{ scenario, clause, ends string }{
		{"proto_core_shutdown", "PROTO-9", "a shutdown"},
		{"proto_core_stdin_close", "PROTO-10", "the end of its stdin"},
		{"proto_shutdown_aborts_calls", "PROTO-9", "a shutdown"},
		{"proto_stdin_close", "PROTO-10", "the end of its stdin"},
	} {
		Register("approval-"+r.scenario, Variant{
			Clause: r.clause,
			Defect: fmt.Sprintf("kills only the shell's pid on %s, and each sleep its shell starts first waits 1 s "+
				"for approval and dies if the server has gone: a program started after the marker never runs", r.ends),
			Scenarios: "^" + r.scenario + "$",
			Serve:     withPort(port{kill: killPid, argv: approvalShell}),
		})
	}
}
