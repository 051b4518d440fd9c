//go:build unix

package loginpath

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// writeShell writes an executable /bin/sh script standing in for a login
// shell and returns its path.
func writeShell(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "shell")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// envWith is the test's environment with SHELL (and more) replaced.
func envWith(kv ...string) []string {
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "SHELL=") {
			env = append(env, e)
		}
	}
	return append(env, kv...)
}

func TestProbeOutcomes(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    string
		wantErr error
	}{
		{"bare PATH", `printf %s /p:/q`, "/p:/q", nil},
		{"banner before", `echo Welcome; echo "Last login: never"; printf %s /p:/q`, "/p:/q", nil},
		{"arguments", `printf %s "$1|$2|$#"`, `-lic|printf %s "$PATH"|2`, nil},
		{"stdin is the null device", `printf %s "$(readlink /proc/$$/fd/0)"`, "/dev/null", nil},
		{"reading stdin gets end-of-file", `read line; printf %s "/p:$?:$line"`, "/p:1:", nil},
		{"stderr is not stdout", `echo "noise: no job control" >&2; printf %s /p`, "/p", nil},
		{"the probe environment", `printf %s "$PROBE_VAR"`, "from-env", nil},
		{"exactly the length limit", `head -c ` + strconv.Itoa(MaxLen) + ` /dev/zero | tr '\0' /`, strings.Repeat("/", MaxLen), nil},
		{"non-zero exit after a PATH", `printf %s /p:/q; exit 3`, "", ErrExit},
		{"killed by a signal after a PATH", `printf %s /p:/q; kill -9 $$`, "", ErrExit},
		{"no output", `exit 0`, "", ErrEmpty},
		{"trailer line after", `printf '%s\nlogout\n' /p:/q`, "", ErrEmpty},
		{"escape code before, no line feed", `printf '\033]0;title\007%s' /p:/q`, "", ErrControl},
		{"one byte over the limit", `head -c ` + strconv.Itoa(MaxLen+1) + ` /dev/zero | tr '\0' /`, "", ErrTooLong},
		{"long banner, then a PATH", `head -c 200000 /dev/zero | tr '\0' x; echo; printf %s /p`, "/p", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shell := writeShell(t, tt.body)
			r := Probe(Options{Env: envWith("SHELL="+shell, "PROBE_VAR=from-env")})
			if r.Shell != shell {
				t.Errorf("Shell = %q, want %q", r.Shell, shell)
			}
			if tt.wantErr != nil {
				if r.OK || !errors.Is(r.Err, tt.wantErr) {
					t.Errorf("Probe = %q, %v, %v; want failure %v", r.PATH, r.OK, r.Err, tt.wantErr)
				}
				return
			}
			if !r.OK || r.PATH != tt.want {
				t.Errorf("Probe = %q, %v, %v; want %q", r.PATH, r.OK, r.Err, tt.want)
			}
		})
	}
}

// TestProbeSession checks the shell leads a new session and has no
// controlling terminal (PATH-4), from its own /proc/self/stat.
func TestProbeSession(t *testing.T) {
	shell := writeShell(t, `set -- $(cat /proc/$$/stat); printf %s "$1 $5 $6 $7"`)
	r := Probe(Options{Env: envWith("SHELL=" + shell)})
	if !r.OK {
		t.Fatalf("probe failed: %v", r.Err)
	}
	f := strings.Fields(r.PATH) // pid pgrp session tty_nr
	if len(f) != 4 || f[0] != f[1] || f[0] != f[2] || f[3] != "0" {
		t.Errorf("pid, pgrp, session, tty_nr = %q; want one leader of both and no terminal", r.PATH)
	}
}

// groupGone waits for every live process of group pgid to end (zombies do
// not count: they are dead, only unreaped).
func groupGone(t *testing.T, pgid int) {
	t.Helper()
	for range 500 {
		if len(groupMembers(pgid)) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("processes of the probe's group %d survive: %v", pgid, groupMembers(pgid))
}

func groupMembers(pgid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var pids []int
	for _, s := range stats {
		data, err := os.ReadFile(s)
		if err != nil {
			continue
		}
		rest := string(data[strings.LastIndexByte(string(data), ')')+2:])
		f := strings.Fields(rest) // state ppid pgrp ...
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(s)))
			pids = append(pids, pid)
		}
	}
	return pids
}

func readPid(t *testing.T, file string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// TestProbeBoundKillsGroup: a shell that ignores SIGTERM, with a child,
// outlives the bound; the probe fails and nothing of its group survives.
func TestProbeBoundKillsGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	shell := writeShell(t, `echo $$ > `+pidFile+`; trap '' TERM HUP INT; sleep 300 & sleep 300; printf %s /late`)
	r := Probe(Options{Env: envWith("SHELL=" + shell), Bound: 300 * time.Millisecond})
	if r.OK || !errors.Is(r.Err, ErrTimeout) {
		t.Fatalf("Probe = %q, %v, %v; want a timeout", r.PATH, r.OK, r.Err)
	}
	groupGone(t, readPid(t, pidFile))
}

// TestProbeHeldStdout: a descendant holding stdout open does not keep the
// exchange going once the shell has exited (PATH-6). The bound is long, so
// waiting for end-of-file would end in a timeout, not a PATH.
func TestProbeHeldStdout(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	shell := writeShell(t, `echo $$ > `+pidFile+`; sleep 300 & printf %s /p:/q`)
	r := Probe(Options{Env: envWith("SHELL=" + shell), Bound: time.Minute})
	if !r.OK || r.PATH != "/p:/q" {
		t.Fatalf("Probe = %q, %v, %v; want /p:/q", r.PATH, r.OK, r.Err)
	}
	groupGone(t, readPid(t, pidFile))
}

func TestChooseShell(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "exe")
	plain := filepath.Join(dir, "plain")
	os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(plain, []byte("#!/bin/sh\n"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink(exe, link)
	missing := filepath.Join(dir, "missing")
	fallback := []string{missing, dir, plain, exe}
	tests := []struct {
		name    string
		env     []string
		want    string
		wantErr error
	}{
		{"unset: first usable fallback", nil, exe, nil},
		{"empty: as unset", []string{"SHELL="}, exe, nil},
		{"set and usable", []string{"SHELL=" + link}, link, nil},
		{"the last of repeated SHELLs", []string{"SHELL=" + missing, "SHELL=" + exe}, exe, nil},
		{"missing: no fallback", []string{"SHELL=" + missing}, "", ErrUnusableShell},
		{"directory", []string{"SHELL=" + dir}, "", ErrUnusableShell},
		{"not executable", []string{"SHELL=" + plain}, "", ErrUnusableShell},
		{"character device", []string{"SHELL=/dev/null"}, "", ErrUnusableShell},
		{"bare name", []string{"SHELL=sh"}, "", ErrUnusableShell},
		{"relative path", []string{"SHELL=./exe"}, "", ErrUnusableShell},
		{"with arguments", []string{"SHELL=" + exe + " -l"}, "", ErrUnusableShell},
		{"trailing slash", []string{"SHELL=" + exe + "/"}, "", ErrUnusableShell},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ChooseShell(tt.env, fallback)
			if got != tt.want || (tt.wantErr == nil) != (err == nil) || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("ChooseShell = %q, %v; want %q, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
	if _, err := ChooseShell(nil, []string{missing, plain}); !errors.Is(err, ErrNoShell) {
		t.Errorf("no usable fallback: err = %v, want ErrNoShell", err)
	}
}

// TestCachedSingleFlight: concurrent first calls share one probe, and a
// failure is cached like a success (PATH-13, PATH-15).
func TestCachedSingleFlight(t *testing.T) {
	for _, tt := range []struct {
		name, tail string
		ok         bool
	}{{"success", "exit 0", true}, {"failure", "exit 1", false}} {
		t.Run(tt.name, func(t *testing.T) {
			count := filepath.Join(t.TempDir(), "count")
			shell := writeShell(t, `echo run >> `+count+`; printf %s /once; `+tt.tail)
			c := &Cached{Options: Options{Env: envWith("SHELL=" + shell)}}
			var wg sync.WaitGroup
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if path, ok := c.LoginPATH(); ok != tt.ok || ok && path != "/once" {
						t.Errorf("LoginPATH = %q, %v", path, ok)
					}
				}()
			}
			wg.Wait()
			c.LoginPATH()
			data, _ := os.ReadFile(count)
			if n := strings.Count(string(data), "run"); n != 1 {
				t.Errorf("the shell ran %d times, want 1", n)
			}
		})
	}
}

// TestProbeStartFailure: an executable that cannot be exec'd is a failure.
func TestProbeStartFailure(t *testing.T) {
	p := filepath.Join(t.TempDir(), "garbage")
	os.WriteFile(p, []byte("\x7fELF not really"), 0o755)
	r := Probe(Options{Env: envWith("SHELL=" + p)})
	if r.OK || !errors.Is(r.Err, ErrStart) {
		t.Errorf("Probe = %v, %v; want ErrStart", r.OK, r.Err)
	}
}

// TestProbeStderrDiscarded: nothing the shell writes to stderr reaches the
// candidate, before or after the PATH, with or without a line feed
// (PATH-4); merged into stdout, each would change or empty it.
func TestProbeStderrDiscarded(t *testing.T) {
	for _, body := range []string{
		`printf 'no job control' >&2; printf %s /p:/q`,
		`printf %s /p:/q; printf '\nlogout\n' >&2`,
		`printf %s /p:/q; printf 'logout' >&2`,
	} {
		shell := writeShell(t, body)
		r := Probe(Options{Env: envWith("SHELL=" + shell)})
		if !r.OK || r.PATH != "/p:/q" {
			t.Errorf("%s: Probe = %q, %v, %v; want /p:/q", body, r.PATH, r.OK, r.Err)
		}
	}
}
