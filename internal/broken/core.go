package broken

import (
	"context"
	"encoding/base64"
	"io"
	"os"
	"strings"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/output"
	"github.com/apexcheck/apexcheck/ref/server"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// The core variants break one behaviour of the core profile each, in a way
// other agents' tools really do, and are caught by the core scenarios
// alone (`*_core_*`): the portable checks must be able to fail without
// the help of apex's exact texts.
func init() {
	Register("nonzero-success", Variant{
		Clause:    "EXEC-15",
		Defect:    "reports a command that exited non-zero or was killed by a signal as a success, as Codex's shell tool does (EXEC-15, EXEC-17)",
		Scenarios: `^exec_core_(exit_status|signal)$`,
		Serve: Wrapped(func(h server.Handler) server.Handler {
			return ExecuteFunc{Handler: h, Exec: func(ctx context.Context, c tool.Call) protocol.Result {
				r := h.Execute(ctx, c)
				if d := r.Details; d != nil && d.Execution != nil && d.Execution.ExitCode != nil && *d.Execution.ExitCode != 0 {
					r.IsError = false
				}
				return r
			}}
		}),
	})
	Register("drops-stderr", Variant{
		Clause:    "EXEC-6",
		Defect:    "captures stdout only: what the command writes to stderr never reaches the model (EXEC-6)",
		Scenarios: `^(exec_core_both_streams|output_core_(interleaved|stderr_flood))$`,
		Serve:     rewritingCommand(func(cmd string) string { return "{\n" + cmd + "\n} 2>/dev/null" }),
	})
	Register("agent-stdin", Variant{
		Clause: "EXEC-5",
		Defect: "gives the command the implementation's own stdin, so a command that reads stdin waits on, " +
			"and swallows, the agent's input (EXEC-5)",
		Scenarios: `^exec_core_stdin$`,
		// The shell's parent is the implementation, whose stdin is the
		// protocol stream.
		Serve: rewritingCommand(func(cmd string) string { return "exec </proc/$PPID/fd/0\n" + cmd }),
	})
	Register("tree-escapes-kill", Variant{
		Clause: "EXEC-10",
		Defect: "kills only the shell on timeout, abort and shutdown: the command runs in a session of its own, " +
			"as under a tool that signals the child's pid rather than its group (EXEC-10, EXEC-11, PROTO-9, PROTO-10)",
		Scenarios: `^(exec_core_(timeout|abort)|proto_core_(shutdown|stdin_close))$`,
		Serve: rewritingCommand(func(cmd string) string {
			// setsid -w forks the command into a new session and waits for
			// it, so the result is the command's, while a kill of the
			// shell's group reaches only setsid.
			return "exec setsid -w bash -c \"$(printf %s " + base64.StdEncoding.EncodeToString([]byte(cmd)) + " | base64 -d)\""
		}),
	})
	Register("abort-waits-for-command", Variant{
		Clause: "EXEC-27",
		Defect: "looks at the abort signal only before the shell starts, so an aborted call goes on until its command ends, " +
			"as a server that ignores MCP cancellation does (EXEC-27)",
		Scenarios: `^exec_core_abort$`,
		Serve:     withPort(port{abortOnlyBeforeStart: true}),
	})
	Register("timeout-cancelled", Variant{
		Clause: "PROTO-24",
		Defect: "answers a call that timed out as cancelled, with no result, as a bridge that takes every context error " +
			"for a cancellation would: only an aborted call may end with no result, and a timeout is not an abort (PROTO-24)",
		Scenarios: `^exec_core_timeout$`,
		Serve: func(in io.Reader, out io.Writer) error {
			return server.Reference().Serve(in, &cancellingTimeouts{w: out})
		},
	})
	Register("waits-for-descendants", Variant{
		Clause:    "EXEC-19",
		Defect:    "waits for every process the command started, so a detached grandchild holds the call (EXEC-19)",
		Scenarios: `^exec_core_detached_grandchild$`,
		Serve:     rewritingCommand(func(cmd string) string { return cmd + "\nwait" }),
	})
	Register("ignores-cwd", Variant{
		Clause:    "EXEC-25",
		Defect:    "runs every command in the implementation's own working directory, whatever the call asks (EXEC-12, EXEC-25)",
		Scenarios: `^exec_core_(cwd|missing_cwd)$`,
		Serve: Wrapped(func(h server.Handler) server.Handler {
			return ExecuteFunc{Handler: h, Exec: func(ctx context.Context, c tool.Call) protocol.Result {
				if wd, err := os.Getwd(); err == nil {
					c.Cwd = wd
				}
				return h.Execute(ctx, c)
			}}
		}),
	})
	Register("fixed-environment", Variant{
		Clause:    "EXEC-20",
		Defect:    "starts every shell with a fixed environment (PATH and HOME) instead of its own (EXEC-20)",
		Scenarios: `^exec_core_environment$`,
		Serve: func(in io.Reader, out io.Writer) error {
			return server.ReferenceWith(func(c *tool.Config) {
				c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
			}).Serve(in, out)
		},
	})
	Register("no-cut", Variant{
		Defect:    "passes output to the model uncut, however long (OUT-34)",
		Clause:    "OUT-34",
		Scenarios: `^output_core_cut$`,
		Serve: withOutput(func(o output.Options) tool.Output {
			return output.NewAccumulator(output.Options{Dir: o.Dir, MaxLines: unreachable, MaxBytes: unreachable})
		}),
	})
	Register("silent-cut", Variant{
		Defect:    "cuts long output without telling the model: no footer, as Codex's shell tool does (OUT-34)",
		Clause:    "OUT-34",
		Scenarios: `^output_core_cut$`,
		Serve: Wrapped(func(h server.Handler) server.Handler {
			return ExecuteFunc{Handler: h, Exec: func(ctx context.Context, c tool.Call) protocol.Result {
				r := h.Execute(ctx, c)
				if d := r.Details; d != nil && d.Truncation != nil && d.Truncation.Truncated {
					if i := strings.LastIndex(r.Text, "\n\n["); i >= 0 {
						r.Text = r.Text[:i]
					}
				}
				return r
			}}
		}),
	})
}

// rewritingCommand serves the reference with the command of every call
// that has one replaced by edit's rewrite of it.
func rewritingCommand(edit func(string) string) func(io.Reader, io.Writer) error {
	return rewritingArgs(func(m map[string]any) {
		if cmd, ok := m["command"].(string); ok && cmd != "" {
			m["command"] = edit(cmd)
		}
	})
}

// cancellingTimeouts passes the reference's messages on, but rewrites the
// result of a call that timed out into a cancelled answer with no result.
// The reference writes each message in one Write.
type cancellingTimeouts struct{ w io.Writer }

func (c *cancellingTimeouts) Write(p []byte) (int, error) {
	var resp protocol.Response
	if protocol.Unmarshal(p, &resp) == nil && resp.Type == protocol.TypeResult && resp.Result != nil &&
		strings.Contains(resp.Result.Text, "Command timed out") {
		line, _ := protocol.Marshal(protocol.Response{ID: resp.ID, Type: protocol.TypeResult, Cancelled: true})
		if _, err := c.w.Write(append(line, '\n')); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.w.Write(p)
}
