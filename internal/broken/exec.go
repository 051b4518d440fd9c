package broken

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/call"
	"github.com/apexcheck/apexcheck/ref/shellexec"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// The exec variants (spec/exec.md): each is the hand-written port of
// port.go with one mistake a porter to Python, Node or Rust makes while
// reading the clause it names. Each is selected against the whole exec
// area, so that it is the suite, not one chosen scenario, that catches it.
func init() {
	const area = `^exec_`
	reg := func(name, clause, defect string, p port) {
		Register(name, Variant{Defect: defect, Clause: clause, Scenarios: area, Serve: withPort(p)})
	}
	// A clause that two areas share is checked against both.
	regBoth := func(name, clause, defect, scenarios string, p port) {
		Register(name, Variant{Defect: defect, Clause: clause, Scenarios: scenarios, Serve: withPort(p)})
	}

	reg("exec-command-quoted", "EXEC-1",
		"quotes the command for a shell line before passing it after -lc (shlex.quote on an argv element), so bash looks for a program named after the whole command",
		port{argv: func(sh shellexec.Shell, cmd string) []string {
			return sh.Argv("'" + strings.ReplaceAll(cmd, "'", `'\''`) + "'")
		}})
	reg("exec-login-split", "EXEC-1",
		"passes -l and -c as two arguments ([shell, \"-l\", \"-c\", cmd]): the shell behaves the same, the argument vector does not",
		port{argv: func(sh shellexec.Shell, cmd string) []string { return []string{"-l", "-c", cmd} }})
	reg("exec-bash-from-path-first", "EXEC-2",
		"looks bash up on the host PATH before trying /bin/bash (shutil.which(\"bash\") or \"/bin/bash\")",
		port{resolveShell: func(shellPath, hostPATH string) (shellexec.Shell, error) {
			if shellPath == "" {
				for _, dir := range strings.Split(hostPATH, ":") {
					if dir == "" {
						continue
					}
					if fi, err := os.Stat(dir + "/bash"); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
						return shellexec.Shell{Path: dir + "/bash", Args: []string{shellexec.LoginFlag}}, nil
					}
				}
			}
			return shellexec.ResolveShell(shellPath, hostPATH)
		}})
	reg("exec-shell-path-fallback", "EXEC-3",
		"falls back to the default shell when shellPath names nothing, instead of refusing to run",
		port{resolveShell: func(shellPath, hostPATH string) (shellexec.Shell, error) {
			sh, err := shellexec.ResolveShell(shellPath, hostPATH)
			if errors.Is(err, shellexec.ErrShellNotFound) {
				return shellexec.ResolveShell("", hostPATH)
			}
			return sh, err
		}})
	reg("exec-process-group-only", "EXEC-4",
		"starts the shell in a process group of its own but in the implementation's session (setpgid, Node's detached on a platform without setsid)",
		port{attr: &syscall.SysProcAttr{Setpgid: true}})
	reg("exec-stdin-open-pipe", "EXEC-5",
		"gives the shell a stdin pipe that is never written to nor closed (Node's default stdio \"pipe\"), so a command that reads stdin waits forever",
		port{stdinPipe: true})
	reg("exec-streams-in-turn", "EXEC-6",
		"reads stdout to its end before reading stderr (p.stdout.read(); p.stderr.read()), so a command that fills the stderr pipe before closing stdout deadlocks",
		port{streamsInTurn: true})
	reg("exec-missing-timeout-nan", "EXEC-7",
		"arms the timer with timeout * 1000 even when timeout is absent: undefined * 1000 is NaN, which setTimeout takes as 1 ms",
		port{resolveTimeout: func(s *float64) (time.Duration, error) {
			if s == nil {
				return time.Millisecond, nil
			}
			return shellexec.ResolveTimeout(s)
		}})
	reg("exec-zero-timeout-none", "EXEC-8",
		"treats a timeout of 0 as no timeout (`if timeout:` in Python, `timeout || undefined` in JavaScript) instead of rejecting it",
		port{resolveTimeout: func(s *float64) (time.Duration, error) {
			if s != nil && *s == 0 {
				return 0, nil
			}
			return shellexec.ResolveTimeout(s)
		}})
	reg("exec-negative-timeout-none", "EXEC-8",
		"rejects only a timeout of 0 and NaN; a negative one is taken as no timeout",
		port{resolveTimeout: func(s *float64) (time.Duration, error) {
			if s != nil && *s < 0 && !math.IsInf(*s, 0) {
				return 0, nil
			}
			return shellexec.ResolveTimeout(s)
		}})
	reg("exec-max-timeout-in-seconds", "EXEC-9",
		"compares the timeout with 2147483.647 seconds, rounding it to whole milliseconds first (Math.round(t*1000)), so 2147483.6474 passes",
		port{resolveTimeout: func(s *float64) (time.Duration, error) {
			if s != nil {
				r := math.Round(*s*1000) / 1000
				return shellexec.ResolveTimeout(&r)
			}
			return shellexec.ResolveTimeout(s)
		}})
	reg("exec-max-timeout-inclusive", "EXEC-9",
		"rejects a timeout of exactly the maximum (>= instead of >)",
		port{resolveTimeout: func(s *float64) (time.Duration, error) {
			if s != nil && *s*1000 >= shellexec.MaxTimeoutMillis {
				return 0, shellexec.ErrTimeoutTooLarge
			}
			return shellexec.ResolveTimeout(s)
		}})
	reg("exec-timeout-sigterm", "EXEC-10",
		"sends SIGTERM to the process group on timeout (Node's child.kill() default) and waits for the shell to go",
		port{kill: func(pid int) { syscall.Kill(-pid, syscall.SIGTERM) }})
	reg("exec-timeout-kills-pid", "EXEC-10",
		"kills only the shell's pid on timeout and abort (process.kill(pid) where -pid was meant), so its children run on",
		port{kill: func(pid int) { syscall.Kill(pid, syscall.SIGKILL) }})
	reg("exec-timeout-from-call", "EXEC-10",
		"starts the timeout when the call arrives, so the login PATH probe the first call waits for eats into the command's time",
		port{timerFromCall: true})
	reg("exec-timeout-milliseconds", "EXEC-10",
		"hands the timeout to a timer that counts milliseconds without multiplying it by 1000 (setTimeout(kill, timeout))",
		port{resolveTimeout: func(s *float64) (time.Duration, error) {
			d, err := shellexec.ResolveTimeout(s)
			return d / 1000, err
		}})
	reg("exec-timeout-seconds-go", "EXEC-10",
		"writes the timeout in the status with Go's %v (strconv 'g'), 1e-07 where JavaScript writes 1e-7",
		port{seconds: func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }})
	reg("exec-timeout-seconds-python", "EXEC-10",
		"writes the timeout in the status as Python's str(float(t)) does: 1.0 where JavaScript writes 1",
		port{seconds: func(f float64) string {
			s := strconv.FormatFloat(f, 'g', -1, 64)
			if !strings.ContainsAny(s, ".e") {
				s += ".0"
			}
			return s
		}})
	reg("exec-abort-only-before-start", "EXEC-11",
		"looks at the abort signal only before the shell starts: an abort while it runs is ignored until the command ends",
		port{abortOnlyBeforeStart: true})
	reg("exec-abort-sigterm", "EXEC-11",
		"sends SIGHUP then waits, as a terminal close would, instead of SIGKILL, so a command that ignores it runs on",
		port{kill: func(pid int) { syscall.Kill(-pid, syscall.SIGHUP) }})
	Register("exec-cwd-text-one-line", Variant{Clause: "EXEC-12", Scenarios: area,
		Defect: "words the missing working directory as one sentence, without the seed's second line",
		Serve: editResults(func(c tool.Call, op call.Operation, r *protocol.Result) {
			if first, _, ok := strings.Cut(r.Text, "\nCannot execute bash commands."); ok && r.IsError {
				r.Text = first
			}
		})})
	reg("exec-cwd-checked-first", "EXEC-13",
		"checks the working directory before the timeout (os.chdir first), so the model reads the wrong one of two errors",
		port{order: []string{"cwd", "timeout", "abort", "shell"}})
	reg("exec-shell-checked-last", "EXEC-13",
		"checks the shell path after the working directory",
		port{order: []string{"timeout", "abort", "cwd", "shell"}})
	reg("exec-prefix-semicolon", "EXEC-14",
		"joins commandPrefix and the command with \"; \" instead of a line feed",
		port{join: func(prefix, cmd string) string { return prefix + "; " + cmd }})
	reg("exec-nonzero-no-placeholder", "EXEC-15",
		"omits (no output) before the status of a non-zero exit with no output",
		port{statusText: func(text, status string) string {
			if text == tool.NoOutput {
				text = ""
			}
			if text == "" {
				return status
			}
			return text + "\n\n" + status
		}})
	regBoth("exec-nonzero-truncation-details", "EXEC-15",
		"gives a truncated non-zero result the truncation and full-output details of a success",
		`^(exec|output)_`,
		port{truncationOnError: true})
	reg("exec-trims-output", "EXEC-16",
		"strips the output's trailing white space (Python's .strip(), Rust's trim_end)",
		port{text: func(s string) string { return strings.TrimRight(s, " \t\n") }})
	reg("exec-empty-no-placeholder", "EXEC-16",
		"answers a successful command that printed nothing with an empty text instead of (no output)",
		port{text: func(s string) string {
			if s == tool.NoOutput {
				return ""
			}
			return s
		}})
	Register("exec-executable-unresolved", Variant{Clause: "EXEC-21", Scenarios: area,
		Defect: "reports the executable as the name it was looked up by (bash) rather than the path it resolved to",
		Serve: editResults(func(c tool.Call, op call.Operation, r *protocol.Result) {
			if d := r.Details; d != nil && d.Execution != nil && d.Execution.Executable != "" {
				d.Execution.Executable = filepath.Base(d.Execution.Executable)
			}
		})})
	reg("exec-signal-negative", "EXEC-17",
		"reports a shell killed by signal n with Python's returncode -n instead of 128+n",
		port{exitCode: func(ws syscall.WaitStatus) int {
			if ws.Signaled() {
				return -int(ws.Signal())
			}
			return ws.ExitStatus()
		}})
	reg("exec-strips-ansi", "EXEC-18",
		"strips ANSI escape sequences and carriage returns from the output, to spare the model",
		port{text: stripANSI})
	reg("exec-grace-none", "EXEC-19",
		"answers on the shell's exit event (Node's 'exit' where 'close' was meant) with a reader that lags behind the shell, as on a loaded machine: what the pipes still hold is lost",
		port{grace: time.Nanosecond, dropInFlight: true, readsAfterExit: true})
	reg("exec-session-vars-kept-when-hidden", "EXEC-22",
		"removes the inherited session variables only when it is about to set them: with exposeSessionEnvironment false or no session they pass through",
		port{env: func(host []string, login func() (string, bool), c tool.Call) []string {
			env := referenceEnv(host, login, c)
			if add := sessionEnv(c, true); len(add) > 0 {
				return env
			}
			return append(env, keepVars(host, sessionVar)...)
		}})
	reg("exec-legacy-vars-kept", "EXEC-22",
		"removes the APEX_CODE_ names from the inherited environment but not their PI_ legacy names",
		port{env: func(host []string, login func() (string, bool), c tool.Call) []string {
			env := referenceEnv(host, login, c)
			return append(env, keepVars(host, func(n string) bool { return sessionVar(n) && strings.HasPrefix(n, "PI_") })...)
		}})
	reg("exec-session-file-empty", "EXEC-23",
		"sets APEX_CODE_SESSION_FILE to the empty string when the session has no file",
		port{env: func(host []string, login func() (string, bool), c tool.Call) []string {
			env := referenceEnv(host, login, c)
			if s := c.Session; s != nil && s.File == "" && (c.Options.ExposeSessionEnvironment == nil || *c.Options.ExposeSessionEnvironment) {
				env = append(env, "APEX_CODE_SESSION_FILE=", "PI_SESSION_FILE=")
			}
			return env
		}})
	reg("exec-session-exposed-when-false", "EXEC-23",
		"reads exposeSessionEnvironment as a truthy value, so an explicit false is taken as absent: exposed",
		port{env: func(host []string, login func() (string, bool), c tool.Call) []string {
			c.Options.ExposeSessionEnvironment = nil
			return referenceEnv(host, login, c)
		}})
	reg("exec-no-legacy-names", "EXEC-24",
		"sets the session variables under their APEX_CODE_ names only, without the PI_ mirror",
		port{env: func(host []string, login func() (string, bool), c tool.Call) []string {
			env := dropVars(host, sessionVar)
			if login != nil {
				if path, ok := login(); ok {
					env = append(dropVars(env, func(n string) bool { return n == "PATH" }), "PATH="+path)
				}
			}
			return append(env, sessionEnv(c, false)...)
		}})
	reg("exec-pi-offline-dropped", "EXEC-24",
		"removes every PI_ variable from the inherited environment, PI_OFFLINE and the like included",
		port{env: func(host []string, login func() (string, bool), c tool.Call) []string {
			return dropVars(referenceEnv(host, login, c), func(n string) bool {
				return strings.HasPrefix(n, "PI_") && !sessionVar(n)
			})
		}})
	reg("exec-start-error-success", "EXEC-26",
		"treats a shell that cannot be started like one that exited without a code: a success with (no output)",
		port{startErrorSuccess: true})
}

// keepVars returns the entries of env whose name keep accepts.
func keepVars(env []string, keep func(string) bool) []string {
	return dropVars(env, func(n string) bool { return !keep(n) })
}

// stripANSI removes CSI and OSC escape sequences and carriage returns, as
// the usual regular expression of a port does.
func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\r':
		case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[':
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
