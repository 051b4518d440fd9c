// Package tool composes the reference bash tool from its concerns: the one
// call parse (ref/call), foreground execution (ref/shellexec), output
// accumulation (ref/output), the login PATH probe, permissions and
// background shells. It is what the spec means, in code; ref/server serves
// it over the protocol.
package tool

import (
	"context"
	"io"
	"os"
	"sync"
	"time"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/call"
	"github.com/apexcheck/apexcheck/ref/output"
)

// Config configures a Tool.
type Config struct {
	// Env is the host environment every shell starts from. Nil means
	// os.Environ().
	Env []string
	// TempDir is where full-output files go. Empty means os.TempDir().
	TempDir string
	// LoginPATH returns the probed login-shell PATH and whether the probe
	// succeeded (spec/path-probe.md). Nil means no probe: the host PATH is
	// used.
	LoginPATH func() (string, bool)
	// Background runs background launches; nil means the backend has no
	// background support.
	Background Background
	// Permissions answers permission requests; nil means the tool has no
	// permission support.
	Permissions func(rules []protocol.Rule, p call.Parsed) protocol.PermissionAnswer
	// NewOutput returns what one foreground run feeds its output to; nil
	// means output.NewAccumulator (spec/output.md). The kit's broken
	// variants replace it to break one output rule at a time.
	NewOutput func(output.Options) Output
	// UpdateInterval is the least time between two streamed updates; 0
	// means UpdateInterval (OUT-30). Like NewOutput, it exists for the
	// kit's broken variants; the reference never sets it.
	UpdateInterval time.Duration
}

// Output takes one run's output stream and says what the model sees: the
// methods of ref/output's Accumulator.
type Output interface {
	io.Writer
	// Finish ends the stream; later writes are dropped.
	Finish()
	// Snapshot returns the tail so far, creating the full-output file when
	// the output is truncated.
	Snapshot() output.Snapshot
	// Close finishes the stream and closes the full-output file.
	Close() error
}

// Background is the background-shell registry the tool delegates handle
// operations to.
type Background interface {
	// Launch starts command detached and returns its handle.
	Launch(spec Spawn) (handle string, err error)
	// Handle serves a retrieve or kill call.
	Handle(op call.Operation) protocol.Result
	// CommandFor resolves a handle to the command it ran, for evidence.
	CommandFor(handle string) (string, bool)
	// Close kills every running background command.
	Close()
}

// Spawn is everything needed to start a shell for a run call.
type Spawn struct {
	Command   string
	Dir       string
	Env       []string
	ShellPath string
	HostPATH  string
	TempDir   string
}

// Tool is one bash tool instance with its session state.
type Tool struct {
	cfg     Config
	hostEnv []string
	closeMu sync.Once
}

// New returns a Tool.
func New(cfg Config) *Tool {
	env := cfg.Env
	if env == nil {
		env = os.Environ()
	}
	if cfg.TempDir == "" {
		cfg.TempDir = os.TempDir()
	}
	return &Tool{cfg: cfg, hostEnv: env}
}

// Options are the tool options a call is made under (EXEC-14, EXEC-22).
type Options struct {
	CommandPrefix string
	ShellPath     string
	// ExposeSessionEnvironment: nil means true.
	ExposeSessionEnvironment *bool
}

// Call is one tool call.
type Call struct {
	Args    []byte
	Cwd     string
	Options Options
	Session *protocol.Session
	// OnUpdate, when set, receives streamed partial results (OUT clauses
	// on updates). It is never called after Execute returns.
	OnUpdate func(protocol.Result)
}

// Permission applies every permission function to one call, through the
// one parse (spec/permissions.md).
func (t *Tool) Permission(rules []protocol.Rule, args []byte) protocol.PermissionAnswer {
	return t.cfg.Permissions(rules, call.Parse(args))
}

// Close disposes the tool's session: every running background command is
// killed.
func (t *Tool) Close() {
	t.closeMu.Do(func() {
		if t.cfg.Background != nil {
			t.cfg.Background.Close()
		}
	})
}

// Execute runs one call and returns its result. ctx is the call's abort
// signal.
func (t *Tool) Execute(ctx context.Context, c Call) protocol.Result {
	parsed := call.Parse(c.Args)
	if !parsed.OK {
		return errorResult(parsed.Reason, nil) // CALL-10: nothing runs
	}
	op := parsed.Operation
	if op.Kind != call.Run {
		if t.cfg.Background == nil {
			return errorResult(unknownHandle(op.Handle), nil)
		}
		return t.cfg.Background.Handle(op)
	}
	command := op.Command
	if c.Options.CommandPrefix != "" {
		command = c.Options.CommandPrefix + "\n" + command // EXEC-14
	}
	spawn := Spawn{
		Command:   command,
		Dir:       c.Cwd,
		Env:       t.spawnEnv(c),
		ShellPath: c.Options.ShellPath,
		HostPATH:  lookupEnv(t.hostEnv, "PATH"),
		TempDir:   t.cfg.TempDir,
	}
	if op.Background {
		if t.cfg.Background == nil {
			return errorResult(NoBackgroundSupport, nil)
		}
		if ctx.Err() != nil {
			// BG-6: a call cancelled before it ran launches nothing.
			return errorResult(StatusAborted, &protocol.Details{Execution: &protocol.Execution{Cwd: c.Cwd}})
		}
		handle, err := t.cfg.Background.Launch(spawn)
		if err != nil {
			return errorResult(err.Error(), nil)
		}
		return protocol.Result{
			Text: "[background] launched with handle " + handle +
				"\nRetrieve its output: { \"handle\": \"" + handle + "\" }" +
				"\nKill it: { \"handle\": \"" + handle + "\", \"kill\": true }",
			Details: &protocol.Details{Execution: &protocol.Execution{Cwd: c.Cwd}},
		}
	}
	return t.runForeground(ctx, spawn, op.Timeout, c.OnUpdate)
}

// NoBackgroundSupport is the error text of a background launch on a backend
// without background support (seed bash.ts).
const NoBackgroundSupport = "This shell backend does not support background execution. Run the command in the foreground instead."

func unknownHandle(handle string) string {
	return "Unknown background handle: " + handle + ". No background commands have been launched."
}

func errorResult(text string, details *protocol.Details) protocol.Result {
	return protocol.Result{IsError: true, Text: text, Details: details}
}
