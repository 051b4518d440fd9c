package broken

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/call"
	"github.com/apexcheck/apexcheck/ref/loginpath"
	"github.com/apexcheck/apexcheck/ref/server"
	"github.com/apexcheck/apexcheck/ref/shellexec"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// The login PATH probe variants written from the clause (spec/path-probe.md):
// each changes one step of the reference's probe, or of how the tool uses
// it, the way a port gets it wrong, and is selected against the whole path
// area.
func init() {
	const area = `^path_`
	reg := func(name, clause, defect string, serve func(io.Reader, io.Writer) error) {
		Register(name, Variant{Defect: defect, Clause: clause, Scenarios: area, Serve: serve})
	}

	reg("path-echo-command", "PATH-1",
		"runs `$SHELL -lic 'echo $PATH'`, whose line feed leaves the last line empty",
		withShellWrapper(`exec "$REAL" -lic 'echo "$PATH"'`))
	reg("path-not-interactive", "PATH-1",
		"runs the login shell with -lc, without -i, so the interactive rc (~/.zshrc, config.fish) is never read",
		withShellWrapper(`exec "$REAL" -lc 'printf %s "$PATH"'`))
	reg("path-fallback-bash-first", "PATH-2",
		"tries /bin/bash before /bin/zsh when SHELL is unset",
		withProbe(loginpath.Options{Fallback: []string{"/bin/bash", "/bin/zsh", "/bin/sh"}}))
	reg("path-empty-shell-used", "PATH-2",
		"reads SHELL with os.environ.get(\"SHELL\", \"/bin/zsh\"), which returns an empty SHELL as it is: nothing can run and the fallback chain is skipped",
		withProbe(loginpath.Options{Env: editEnv(func(name, value string) (string, bool) {
			if name == "SHELL" && value == "" {
				return "/", true
			}
			return value, true
		})}))
	reg("path-bad-shell-falls-back", "PATH-3",
		"falls back to the /bin/zsh, /bin/bash, /bin/sh chain when SHELL names nothing usable, instead of failing",
		withProbe(loginpath.Options{Env: editEnv(func(name, value string) (string, bool) {
			if name == "SHELL" && value != "" && !usableShell(value) {
				return "", false
			}
			return value, true
		})}))
	reg("path-bound-sigterm", "PATH-6",
		"ends the exchange with SIGTERM to the shell's group (Python's terminate(), Node's kill()), which interactive shells ignore",
		withProbe(loginpath.Options{Reap: func(pid int) { syscall.Kill(-pid, syscall.SIGTERM) }}))
	reg("path-kill-shell-only", "PATH-8",
		"kills only the shell when the exchange ends, not its process group (Popen.kill())",
		withProbe(loginpath.Options{Reap: func(pid int) { syscall.Kill(pid, syscall.SIGKILL) }}))
	reg("path-sweep-skips-zombies", "PATH-25",
		"takes a process /proc shows as a zombie for dead, so one whose main thread alone exited (pthread_exit) survives the sweep",
		withProbe(loginpath.Options{Reap: sweepFor(false)}))
	reg("path-sweep-counts-zombies", "PATH-25",
		"counts every process /proc lists in the session as live, zombies too, so the exited login shell, not yet reaped, keeps the sweep rescanning until its 1 s limit and holds the answer back",
		withProbe(loginpath.Options{Reap: sweepFor(true)}))
	reg("path-sweep-by-cwd", "PATH-29",
		"after the session sweep, also kills every process whose working directory is the one the shell ran in, taking them for rc leftovers that escaped into sessions of their own (a `fuser -k`-style sweep): a process the host started in the project dies with them",
		withProbe(loginpath.Options{Reap: func(sid int) {
			loginpath.KillSession(sid)
			killByCwd()
		}}))
	reg("path-strip-then-last", "PATH-9",
		"takes stdout.strip().splitlines()[-1]: the trailing line feed and white space are stripped before the last line is taken",
		withProbe(loginpath.Options{Select: func(stdout []byte) []byte {
			s := bytes.TrimSpace(stdout)
			return s[bytes.LastIndexByte(s, '\n')+1:]
		}}))
	reg("path-status-ignored", "PATH-10",
		"takes the PATH the shell printed whatever its exit status (subprocess.run(...).stdout, never checking returncode)",
		withShellWrapper(`"$REAL" "$@"; exit 0`))
	reg("path-empty-accepted", "PATH-11",
		"accepts an empty candidate, so the shell gets PATH set to nothing",
		withProbe(loginpath.Options{Check: func(c []byte) error {
			if len(c) == 0 {
				return nil
			}
			return loginpath.Check(c)
		}}))
	reg("path-rejects-only-esc-cr", "PATH-12",
		"rejects only the escape and carriage return an rc is known to print, not every control character",
		withProbe(loginpath.Options{Check: blind(0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c,
			0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1c, 0x1d, 0x1e, 0x1f, 0x7f, 0xc2)}))
	reg("path-non-ascii-rejected", "PATH-27",
		"rejects every byte from 0x80 up (an isascii() or isprintable() check), so a directory named in UTF-8 loses the PATH",
		withProbe(loginpath.Options{Check: func(c []byte) error {
			for _, b := range c {
				if b >= 0x80 {
					return loginpath.ErrControl
				}
			}
			return loginpath.Check(c)
		}}))
	reg("path-limit-inclusive", "PATH-13",
		"rejects a candidate of exactly 32768 bytes (>= where > was meant)",
		withProbe(loginpath.Options{Check: func(c []byte) error {
			if len(c) >= loginpath.MaxLen {
				return loginpath.ErrTooLong
			}
			return loginpath.Check(c)
		}}))
	reg("path-fish2-repaired", "PATH-14",
		"repairs a PATH printed with spaces between its directories by joining them with colons",
		withProbe(loginpath.Options{Select: func(stdout []byte) []byte {
			c := loginpath.Select(stdout)
			if !bytes.Contains(c, []byte(":")) {
				c = bytes.ReplaceAll(c, []byte(" "), []byte(":"))
			}
			return c
		}}))
	reg("path-failure-default-path", "PATH-15",
		"gives shells a default PATH of /usr/local/bin:/usr/bin:/bin when the probe fails, instead of the host PATH",
		withLoginPATH(func(probe func() (string, bool)) func() (string, bool) {
			return func() (string, bool) {
				if p, ok := probe(); ok {
					return p, true
				}
				return "/usr/local/bin:/usr/bin:/bin", true
			}
		}))
	reg("path-after-checks", "PATH-17",
		"probes only once a run call has passed its checks, so a first call with an invalid timeout or a missing cwd does not probe",
		func(in io.Reader, out io.Writer) error {
			noProbe := server.ReferenceWith(func(cfg *tool.Config) { cfg.LoginPATH = nil })
			return Wrapped(func(h server.Handler) server.Handler {
				return ExecuteFunc{Handler: h, Exec: func(ctx context.Context, c tool.Call) protocol.Result {
					if p := call.Parse(c.Args); p.OK && p.Operation.Kind == call.Run && failsChecks(ctx, c, p.Operation) {
						return noProbe.Tool.Execute(ctx, c)
					}
					return h.Execute(ctx, c)
				}}
			})(in, out)
		})
	reg("path-failure-retried", "PATH-18",
		"caches the probe's PATH only when it succeeded (if self.path is None: probe()), so every call after a failure probes again",
		withLoginPATH(func(func() (string, bool)) func() (string, bool) {
			var mu sync.Mutex
			var path string
			var ok bool
			return func() (string, bool) {
				mu.Lock()
				defer mu.Unlock()
				if !ok {
					r := loginpath.Probe(loginpath.Options{})
					path, ok = r.PATH, r.OK
				}
				return path, ok
			}
		}))
	reg("path-concurrent-probes", "PATH-19",
		"caches the probe behind a flag without a lock: calls that arrive together each run a probe",
		withLoginPATH(func(func() (string, bool)) func() (string, bool) {
			var mu sync.Mutex
			var done bool
			var path string
			var ok bool
			return func() (string, bool) {
				mu.Lock()
				if done {
					mu.Unlock()
					return path, ok
				}
				mu.Unlock()
				r := loginpath.Probe(loginpath.Options{})
				mu.Lock()
				done, path, ok = true, r.PATH, r.OK
				mu.Unlock()
				return r.PATH, r.OK
			}
		}))
	reg("path-merged-with-host", "PATH-20",
		"prepends the login PATH to the host PATH (login:host) instead of replacing it",
		withLoginPATH(func(probe func() (string, bool)) func() (string, bool) {
			return func() (string, bool) {
				p, ok := probe()
				if ok {
					p += ":" + os.Getenv("PATH")
				}
				return p, ok
			}
		}))
	reg("path-bash-from-login-path", "PATH-21",
		"looks bash up in the probed login PATH, the PATH the command will get, rather than the host's",
		withPort(port{shellFromLoginPATH: true}))
}

// withLoginPATH serves the reference with its cached probe wrapped.
func withLoginPATH(wrap func(probe func() (string, bool)) func() (string, bool)) func(io.Reader, io.Writer) error {
	return func(in io.Reader, out io.Writer) error {
		return server.ReferenceWith(func(cfg *tool.Config) { cfg.LoginPATH = wrap(cfg.LoginPATH) }).Serve(in, out)
	}
}

// editEnv returns the implementation's environment with each entry edited:
// edit returns the new value and whether to keep the entry.
func editEnv(edit func(name, value string) (string, bool)) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		if v, keep := edit(name, value); keep {
			env = append(env, name+"="+v)
		}
	}
	return env
}

// usableShell is PATH-3's test, as a port writes it: an absolute path to
// an executable regular file.
func usableShell(path string) bool {
	if !filepath.IsAbs(path) {
		return false
	}
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && syscall.Access(path, 1) == nil
}

// withShellWrapper serves the reference with SHELL, when set and not
// empty, replaced by a script that runs it as body says ($REAL is the
// shell SHELL named). The script lives in a directory removed when the
// session ends.
func withShellWrapper(body string) func(io.Reader, io.Writer) error {
	return func(in io.Reader, out io.Writer) error {
		dir, err := os.MkdirTemp("", "broken-shell-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		script := filepath.Join(dir, "shell")
		env := editEnv(func(name, value string) (string, bool) {
			if name == "SHELL" && value != "" {
				return script, true
			}
			return value, true
		})
		real := os.Getenv("SHELL")
		text := "#!/bin/sh\nREAL=" + shellQuote(real) + "\n" + body + "\n"
		if err := os.WriteFile(script, []byte(text), 0o755); err != nil {
			return err
		}
		c := &loginpath.Cached{Options: loginpath.Options{Env: env}}
		return server.ReferenceWith(func(cfg *tool.Config) { cfg.LoginPATH = c.LoginPATH }).Serve(in, out)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// failsChecks reports whether a run call fails a check made before its
// shell starts (EXEC-13, BG-4).
func failsChecks(ctx context.Context, c tool.Call, op call.Operation) bool {
	if !op.Background {
		if _, err := shellexec.ResolveTimeout(op.Timeout); err != nil {
			return true
		}
		if ctx.Err() != nil {
			return true
		}
	}
	if _, err := shellexec.ResolveShell(c.Options.ShellPath, os.Getenv("PATH")); err != nil {
		return true
	}
	_, err := os.Stat(c.Cwd)
	return err != nil
}

// killByCwd sends SIGKILL to every process but this one whose working
// directory is this process's: the sweep of path-sweep-by-cwd. It acts only
// in a scenario's work directory (testscript's, which holds `.tmp`), which
// no process outside the scenario has for its working directory, so the
// defect stays inside the scenario on a shared machine; elsewhere (a cwd of
// / would match every daemon) it does nothing.
func killByCwd() {
	dir, err := os.Getwd()
	if err != nil || dir == "/" {
		return
	}
	if fi, err := os.Stat(filepath.Join(dir, ".tmp")); err != nil || !fi.IsDir() {
		return
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd"); err == nil && cwd == dir {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// sweepFor is a session sweep that kills the group, then rescans the
// session for up to 1 s, taking the processes sessionPids lists (zombies
// too, with withZombies) for live: the two PATH-25 variants' sweeps.
func sweepFor(withZombies bool) func(sid int) {
	return func(sid int) {
		syscall.Kill(-sid, syscall.SIGKILL)
		for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
			pids := sessionPids(sid, withZombies)
			if len(pids) == 0 {
				return
			}
			for _, pid := range pids {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}

// sessionPids lists the processes /proc shows in session sid, never this
// process; zombies are listed only when withZombies is set.
func sessionPids(sid int, withZombies bool) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 4 {
			continue
		}
		if f[0] == "Z" && !withZombies {
			continue
		}
		if s, _ := strconv.Atoi(f[3]); s == sid {
			pids = append(pids, pid)
		}
	}
	return pids
}
