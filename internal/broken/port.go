package broken

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/call"
	"github.com/apexcheck/apexcheck/ref/output"
	"github.com/apexcheck/apexcheck/ref/server"
	"github.com/apexcheck/apexcheck/ref/shellexec"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// port is the foreground execution of spec/exec.md written again by hand,
// as a porter writes it from the spec: its own spawn, pumps, timer, kill
// and result texts, with the reference's packages used only for what a
// port would take from a library (the call parse, the output accumulator,
// the timeout check and the shell resolution). Every field left zero gives
// the reference's behaviour (TestPortIsFaithful proves it against the
// exec scenarios); a variant sets one field to make the one mistake it
// names. Calls other than a foreground run go to the reference.
type port struct {
	// order is the order of the checks made before the shell starts
	// (EXEC-13); nil means timeout, abort, shell, cwd.
	order []string
	// resolveTimeout replaces shellexec.ResolveTimeout.
	resolveTimeout func(*float64) (time.Duration, error)
	// seconds formats the timeout in the timeout status; nil means
	// shellexec.FormatJSNumber.
	seconds func(float64) string
	// resolveShell replaces shellexec.ResolveShell.
	resolveShell func(shellPath, hostPATH string) (shellexec.Shell, error)
	// shellFromLoginPATH looks bash up in the probed login PATH instead of
	// the host PATH (PATH-21).
	shellFromLoginPATH bool
	// argv replaces the argument vector after the executable (EXEC-1).
	argv func(sh shellexec.Shell, command string) []string
	// join joins the commandPrefix and the command (EXEC-14).
	join func(prefix, command string) string
	// attr replaces the new session the shell starts in (EXEC-4).
	attr *syscall.SysProcAttr
	// stdinPipe gives the shell an open pipe nothing is ever written to,
	// never closed, instead of the null device (EXEC-5).
	stdinPipe bool
	// kill ends the shell on timeout and abort; nil means SIGKILL to its
	// process group (EXEC-10, EXEC-11).
	kill func(pid int)
	// abortOnlyBeforeStart looks at the abort signal only before the
	// shell starts (EXEC-11).
	abortOnlyBeforeStart bool
	// timerFromCall starts the timeout when the call arrives, before the
	// environment (and the login PATH probe it waits for) is made, rather
	// than when the shell has started (EXEC-10).
	timerFromCall bool
	// grace is how long output is read after the shell exited; 0 means
	// shellexec.StreamGrace; negative means until both pipes close
	// (EXEC-19).
	grace time.Duration
	// dropInFlight keeps, once the grace has passed, nothing the pipes
	// still hold (EXEC-19).
	dropInFlight bool
	// readsAfterExit starts the pumps only once the shell has exited, as
	// a reader descheduled for the command's whole life on a loaded
	// machine, or after 2 s, so that a shell which fills a pipe still
	// runs. With dropInFlight they start once the grace has passed, so
	// that what the pipes hold at the shell's exit is deterministically
	// in flight, not raced for (EXEC-19).
	readsAfterExit bool
	// pumpsOutliveResult, once the grace has passed, answers with the
	// output so far and leaves the pumps copying into the accumulator,
	// and so into the full-output file, until the pipes close (OUT-32).
	pumpsOutliveResult bool
	// streamsInTurn reads stdout to its end before it reads stderr at all,
	// as `p.stdout.read(); p.stderr.read()` does (EXEC-6).
	streamsInTurn bool
	// env makes the shell's environment from the host environment, the
	// login PATH and the call; nil means the reference's (EXEC-20 to
	// EXEC-24).
	env func(host []string, loginPATH func() (string, bool), c tool.Call) []string
	// exitCode maps the shell's end to the exit code; nil means its status
	// or 128+n for signal n (EXEC-17).
	exitCode func(ws syscall.WaitStatus) int
	// text edits the output text before the status is joined to it
	// (EXEC-16, EXEC-18).
	text func(string) string
	// startErrorSuccess answers a shell that cannot be started with a
	// success and no output (EXEC-26).
	startErrorSuccess bool
	// statusText replaces the join of output and status (EXEC-10, EXEC-15).
	statusText func(output, status string) string
	// truncationOnError gives a truncated non-zero result the truncation
	// details of a success (EXEC-15).
	truncationOnError bool

	inner     server.Handler
	hostEnv   []string
	loginPATH func() (string, bool)
}

// withPort serves the reference with its foreground runs done by p.
func withPort(p port) func(io.Reader, io.Writer) error {
	return func(in io.Reader, out io.Writer) error {
		var loginPATH func() (string, bool)
		s := server.ReferenceWith(func(c *tool.Config) { loginPATH = c.LoginPATH })
		q := p
		q.inner, q.hostEnv, q.loginPATH = s.Tool, os.Environ(), loginPATH
		s.Tool = &q
		return s.Serve(in, out)
	}
}

// Evidence, Permission and Close are the reference's.
func (p *port) Evidence(args []byte, r protocol.Result) []protocol.EvidenceRecord {
	return p.inner.Evidence(args, r)
}

func (p *port) Permission(rules []protocol.Rule, args []byte) protocol.PermissionAnswer {
	return p.inner.Permission(rules, args)
}

func (p *port) Close() { p.inner.Close() }

// Execute runs a foreground run call; any other call is the reference's.
func (p *port) Execute(ctx context.Context, c tool.Call) protocol.Result {
	arrived := time.Now()
	parsed := call.Parse(c.Args)
	if !parsed.OK || parsed.Operation.Kind != call.Run || parsed.Operation.Background {
		return p.inner.Execute(ctx, c)
	}
	op := parsed.Operation
	command := op.Command
	if c.Options.CommandPrefix != "" {
		if p.join != nil {
			command = p.join(c.Options.CommandPrefix, command)
		} else {
			command = c.Options.CommandPrefix + "\n" + command
		}
	}
	var env []string
	if p.env != nil {
		env = p.env(p.hostEnv, p.loginPATH, c)
	} else {
		env = referenceEnv(p.hostEnv, p.loginPATH, c)
	}

	resolveTimeout := shellexec.ResolveTimeout
	if p.resolveTimeout != nil {
		resolveTimeout = p.resolveTimeout
	}
	resolveShell := shellexec.ResolveShell
	if p.resolveShell != nil {
		resolveShell = p.resolveShell
	}
	var (
		timeout time.Duration
		sh      shellexec.Shell
	)
	order := p.order
	if order == nil {
		order = []string{"timeout", "abort", "shell", "cwd"}
	}
	for _, check := range order {
		var err error
		switch check {
		case "timeout":
			timeout, err = resolveTimeout(op.Timeout)
		case "abort":
			if ctx.Err() != nil {
				return errorResult(tool.StatusAborted, &protocol.Details{Execution: &protocol.Execution{Cwd: c.Cwd}})
			}
		case "shell":
			searchPATH := lookupEnv(p.hostEnv, "PATH")
			if p.shellFromLoginPATH && p.loginPATH != nil {
				if path, ok := p.loginPATH(); ok {
					searchPATH = path
				}
			}
			sh, err = resolveShell(c.Options.ShellPath, searchPATH)
		case "cwd":
			if _, serr := os.Stat(c.Cwd); serr != nil {
				err = &shellexec.CwdError{Dir: c.Cwd}
			}
		}
		if err != nil {
			return errorResult(err.Error(), nil)
		}
	}

	acc := output.NewAccumulator(output.Options{Dir: os.TempDir()})
	args := sh.Argv(command)
	if p.argv != nil {
		args = p.argv(sh, command)
	}
	cmd := exec.Command(sh.Path, args...)
	cmd.Dir, cmd.Env = c.Cwd, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if p.attr != nil {
		cmd.SysProcAttr = p.attr
	}
	if p.stdinPipe {
		r, w, err := os.Pipe()
		if err != nil {
			return errorResult("start: "+err.Error(), nil)
		}
		cmd.Stdin = r
		defer w.Close()
		defer r.Close()
	}
	var reads, writes []*os.File
	for range 2 {
		r, w, err := os.Pipe()
		if err != nil {
			return errorResult("start: "+err.Error(), nil)
		}
		reads, writes = append(reads, r), append(writes, w)
	}
	cmd.Stdout, cmd.Stderr = writes[0], writes[1]
	err := cmd.Start()
	for _, w := range writes {
		w.Close()
	}
	if err != nil {
		for _, r := range reads {
			r.Close()
		}
		if p.startErrorSuccess {
			return protocol.Result{Text: tool.NoOutput, Details: &protocol.Details{Execution: &protocol.Execution{Cwd: c.Cwd}}}
		}
		return errorResult("start "+sh.Path+": "+err.Error(), nil)
	}
	pid := cmd.Process.Pid
	started := time.Now()

	pumped := make(chan struct{})
	release := make(chan struct{})
	free := sync.OnceFunc(func() { close(release) })
	go func() {
		defer close(pumped)
		if p.readsAfterExit {
			select {
			case <-release:
			case <-time.After(2 * time.Second):
			}
		}
		if p.streamsInTurn {
			io.Copy(acc, reads[0])
			io.Copy(acc, reads[1])
			return
		}
		done := make(chan struct{})
		go func() { io.Copy(acc, reads[1]); close(done) }()
		io.Copy(acc, reads[0])
		<-done
	}()
	exited := make(chan struct{})
	var state *os.ProcessState
	go func() { state, _ = cmd.Process.Wait(); close(exited) }()

	var timer <-chan time.Time
	if op.Timeout != nil || timeout > 0 {
		from := started
		if p.timerFromCall {
			from = arrived
		}
		t := time.NewTimer(time.Until(from.Add(timeout)))
		defer t.Stop()
		timer = t.C
	}
	abort := ctx.Done()
	if p.abortOnlyBeforeStart {
		abort = nil
	}
	kill := p.kill
	if kill == nil {
		kill = func(pid int) { syscall.Kill(-pid, syscall.SIGKILL) }
	}
	var status string
	select {
	case <-exited:
	case <-abort:
		kill(pid)
		status = tool.StatusAborted
	case <-timer:
		kill(pid)
		seconds := shellexec.FormatJSNumber
		if p.seconds != nil {
			seconds = p.seconds
		}
		given := "undefined" // a timer armed without a timeout (exec-missing-timeout-nan)
		if op.Timeout != nil {
			given = seconds(*op.Timeout)
		}
		status = "Command timed out after " + given + " seconds"
	}
	<-exited
	if !p.dropInFlight {
		free()
	}
	grace := p.grace
	if grace == 0 {
		grace = shellexec.StreamGrace
	}
	outlive := false
	if grace > 0 {
		select {
		case <-pumped:
		case <-time.After(grace):
			if p.pumpsOutliveResult {
				outlive = true
				break
			}
			for _, r := range reads {
				r.SetReadDeadline(time.Now())
			}
			free()
			<-pumped
			// What the shell wrote before it exited may still sit in the
			// pipes on a loaded machine: take it without waiting for more.
			for _, r := range reads {
				if !p.dropInFlight {
					drainPipe(r, acc)
				}
			}
		}
	}
	free() // whatever path the grace took, the pumps must not wait out their 2 s
	var snap output.Snapshot
	if outlive {
		snap = acc.Snapshot()
		go func() {
			<-pumped
			for _, r := range reads {
				r.Close()
			}
			acc.Close()
		}()
	} else {
		<-pumped
		for _, r := range reads {
			r.Close()
		}
		acc.Finish()
		snap = acc.Snapshot()
		acc.Close()
	}

	join := p.statusText
	if join == nil {
		join = func(text, status string) string {
			if text == "" {
				return status
			}
			return text + "\n\n" + status
		}
	}
	edit := func(s string) string {
		if p.text != nil {
			return p.text(s)
		}
		return s
	}
	if status != "" {
		return errorResult(join(edit(snap.Text("")), status), &protocol.Details{Execution: &protocol.Execution{Cwd: c.Cwd}})
	}
	ws := state.Sys().(syscall.WaitStatus)
	code := ws.ExitStatus()
	if ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	if p.exitCode != nil {
		code = p.exitCode(ws)
	}
	facts := &protocol.Execution{Cwd: c.Cwd, Executable: sh.Path, Argv: args, ExitCode: &code}
	if ws.Signaled() {
		facts.Signal = signalName(ws.Signal())
	}
	text := edit(snap.Text(tool.NoOutput))
	details := &protocol.Details{Execution: facts}
	if (code == 0 || p.truncationOnError) && snap.Truncated {
		details.Truncation, details.FullOutputPath = tool.WireTruncation(snap.Result), snap.FullOutputPath
	}
	if code != 0 {
		return errorResult(join(text, "Command exited with code "+strconv.Itoa(code)), details)
	}
	return protocol.Result{Text: text, Details: details}
}

// signalName names a signal as the reference does: SIG and its name.
func signalName(s syscall.Signal) string {
	names := map[syscall.Signal]string{
		syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
		syscall.SIGABRT: "SIGABRT", syscall.SIGKILL: "SIGKILL", syscall.SIGSEGV: "SIGSEGV",
		syscall.SIGPIPE: "SIGPIPE", syscall.SIGTERM: "SIGTERM", syscall.SIGUSR1: "SIGUSR1",
		syscall.SIGUSR2: "SIGUSR2", syscall.SIGALRM: "SIGALRM",
	}
	if n, ok := names[s]; ok {
		return n
	}
	return "SIG" + strings.ToUpper(s.String())
}

// referenceEnv is the environment of spec/exec.md as a porter writes it:
// the host's without the session variables under either name, PATH
// replaced by the login PATH, then the session's variables under both.
func referenceEnv(host []string, loginPATH func() (string, bool), c tool.Call) []string {
	env := dropVars(host, func(name string) bool { return sessionVar(name) })
	if loginPATH != nil {
		if path, ok := loginPATH(); ok {
			env = append(dropVars(env, func(name string) bool { return name == "PATH" }), "PATH="+path)
		}
	}
	return append(env, sessionEnv(c, true)...)
}

// sessionEnv is what the session context adds to the environment, with
// the legacy PI_ names when legacy is set (EXEC-23, EXEC-24).
func sessionEnv(c tool.Call, legacy bool) []string {
	expose := c.Options.ExposeSessionEnvironment == nil || *c.Options.ExposeSessionEnvironment
	s := c.Session
	if !expose || s == nil {
		return nil
	}
	var env []string
	set := func(name, value string) {
		env = append(env, "APEX_CODE_"+name+"="+value)
		if legacy {
			env = append(env, "PI_"+name+"="+value)
		}
	}
	set("SESSION_ID", s.ID)
	if s.File != "" {
		set("SESSION_FILE", s.File)
	}
	if s.Model != "" {
		set("PROVIDER", s.Provider)
		set("MODEL", s.Model)
	}
	if s.ReasoningLevel != "" {
		set("REASONING_LEVEL", s.ReasoningLevel)
	}
	return env
}

// sessionVar reports whether name is a session variable under either name.
func sessionVar(name string) bool {
	for _, v := range tool.SessionVariables {
		if name == v || name == "PI_"+strings.TrimPrefix(v, "APEX_CODE_") {
			return true
		}
	}
	return false
}

func dropVars(env []string, drop func(string) bool) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); !drop(name) {
			out = append(out, kv)
		}
	}
	return out
}

func lookupEnv(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}

func errorResult(text string, details *protocol.Details) protocol.Result {
	return protocol.Result{IsError: true, Text: text, Details: details}
}

// Controls are implementations the kit's variants are built from, served
// with no defect: each must pass the scenarios it names, so that a variant
// made from it differs from the reference by its one defect alone.
var Controls = map[string]Variant{
	"port": {
		Defect:    "none: the hand-written foreground execution the exec variants turn one knob of",
		Scenarios: `^exec_`,
		Serve:     withPort(port{}),
	},
	"port-lagging-reader": {
		Defect: "none: the port with a reader that starts only once the shell has exited, as exec-grace-none's does; " +
			"it waits for the pipes as the reference does, and so loses nothing",
		Scenarios: `^exec_(core_)?(detached_grandchild|timeout_detached_holder|abort_detached_holder|other_call_exits|output)$`,
		Serve:     withPort(port{readsAfterExit: true}),
	},
}

// drainPipe copies to out what the pipe f holds now, without blocking and
// at most 1 MiB, the most a Linux pipe holds.
func drainPipe(f *os.File, out io.Writer) {
	f.SetReadDeadline(time.Time{})
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	buf := make([]byte, 32<<10)
	for taken := 0; taken < 1<<20; {
		var n int
		var rerr error
		if err := rc.Read(func(fd uintptr) bool {
			n, rerr = syscall.Read(int(fd), buf)
			return true
		}); err != nil || rerr != nil || n <= 0 {
			return
		}
		taken += n
		out.Write(buf[:n])
	}
}
