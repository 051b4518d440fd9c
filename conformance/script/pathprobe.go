package script

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apexcheck/apexcheck/conformance/client"
	"github.com/apexcheck/apexcheck/fakeshell"
	"github.com/rogpeppe/go-internal/testscript"
)

// This file holds the runner support of the login PATH probe's scenarios
// (spec/path-probe.md): the fakeshell command, the [userns] condition, and
// the two special ways `impl start` can start the implementation, under a
// terminal (-pty, tty_linux.go) or with /bin changed (-bin). All of them
// need Config.SelfExe, the kit's own binary, which plays the fake shells
// and helpers (internal/roles).

// startOptions are the ways `impl start` can start the implementation
// other than plainly:
//
//	-pty fg|bg       with a new terminal as its controlling terminal, as the
//	                 terminal's foreground job or as a background job of an
//	                 interactive session (see startPTY)
//	-bin NAME=FILE   in a private mount namespace in which the directory
//	                 /bin resolves to, mounted read-only, shows FILE as NAME
//	                 (copied with its permission bits) ...
//	-bin NAME=       ... or does not show NAME at all (fakeshell.Overlay)
//	-tmpfs N         in a private mount namespace in which $TMPDIR is an
//	                 empty tmpfs of N bytes, so that its writes there past
//	                 N bytes fail with ENOSPC, as on a full disk
//	                 (fakeshell.Overlay.Tmp)
type startOptions struct {
	pty   string
	bin   map[string]string
	tmpfs int64 // bytes; 0: TMPDIR as it is
}

func (o *startOptions) set(ts *testscript.TestScript, flag, value string) {
	switch flag {
	case "-pty":
		if value != "fg" && value != "bg" {
			ts.Fatalf("impl start -pty %q: want fg or bg", value)
		}
		o.pty = value
	case "-bin":
		name, file, ok := strings.Cut(value, "=")
		if !ok || name == "" || strings.Contains(name, "/") {
			ts.Fatalf("impl start -bin %q: want NAME=FILE or NAME=", value)
		}
		if file != "" {
			file = ts.MkAbs(file)
		}
		if o.bin == nil {
			o.bin = map[string]string{}
		}
		o.bin[name] = file
	case "-tmpfs":
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n <= 0 {
			ts.Fatalf("impl start -tmpfs %q: want a positive number of bytes", value)
		}
		o.tmpfs = n
	}
}

func (o startOptions) zero() bool { return o.pty == "" && o.bin == nil && o.tmpfs == 0 }

// startSpecial starts the implementation as opt asks, with env.
func (s *state) startSpecial(opt startOptions, env []string) (*client.Client, error) {
	if s.cfg.SelfExe == "" {
		return nil, errors.New("impl start -pty, -bin and -tmpfs need the kit's own executable (Config.SelfExe)")
	}
	special := 0
	for _, set := range []bool{opt.pty != "", opt.bin != nil, opt.tmpfs != 0} {
		if set {
			special++
		}
	}
	if special > 1 {
		s.ts.Fatalf("impl start: -pty, -bin and -tmpfs cannot be combined")
	}
	if opt.pty != "" {
		return s.startPTY(opt.pty, env)
	}
	work := s.ts.Getenv("WORK")
	o := fakeshell.Overlay{Tmp: s.ts.Getenv("TMPDIR"), TmpSize: opt.tmpfs}
	if opt.tmpfs == 0 {
		// A bin overlay needs a scratch directory for its tmpfs; a full
		// TMPDIR is a tmpfs of its own.
		scratch, err := os.MkdirTemp(work, ".binoverlay-")
		if err != nil {
			return nil, err
		}
		o = fakeshell.Overlay{Scratch: scratch, Files: opt.bin}
	}
	cmd, err := o.Command(s.cfg.SelfExe, s.cfg.Impl, env)
	if err != nil {
		return nil, err
	}
	cmd.Dir = work
	return client.StartCmd(cmd, s.cfg.bound(), s.clientOptions())
}

// usernsChecks caches the [userns] answer per kit binary: it costs a
// process start and a mount.
var usernsChecks sync.Map // SelfExe -> error

// userns evaluates [userns]: whether the runner can start a program in a
// private mount namespace with an overlay over the directory /bin resolves
// to (as root, or in an unprivileged user namespace). When it cannot and
// APEXCHECK_REQUIRE_PROGRAMS is set, that is an error: CI must not skip
// the fallback-chain scenarios.
func (cfg *Config) userns() (bool, error) {
	return cfg.probeCondition("userns", &usernsChecks, "to set the overlay up", checkOverlay)
}

// probeCondition evaluates a condition that costs a process start, once
// per kit binary (cached in checks): check(SelfExe) says why it is false,
// or nil. When it is false and APEXCHECK_REQUIRE_PROGRAMS is set, that is
// an error, so that CI never skips what it could have run.
func (cfg *Config) probeCondition(name string, checks *sync.Map, need string, check func(self string) error) (bool, error) {
	err := fmt.Errorf("the runner has no kit executable (Config.SelfExe) %s", need)
	if cfg.SelfExe != "" {
		v, ok := checks.Load(cfg.SelfExe)
		if !ok {
			v, _ = checks.LoadOrStore(cfg.SelfExe, check(cfg.SelfExe))
		}
		err, _ = v.(error)
	}
	if err != nil && os.Getenv(RequireProgramsVariable) != "" {
		return false, fmt.Errorf("[%s] is unavailable and %s is set: %v", name, RequireProgramsVariable, err)
	}
	return err == nil, nil
}

func checkOverlay(self string) error {
	dir, err := os.MkdirTemp("", "apexcheck-userns-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	o := fakeshell.Overlay{Scratch: dir, Files: map[string]string{"apexcheck-userns-check": ""}, Check: true}
	cmd, err := o.Command(self, nil, os.Environ())
	if err != nil {
		return err
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// ptraceChecks caches the [ptrace] answer per kit binary.
var ptraceChecks sync.Map // SelfExe -> error

// ptrace evaluates [ptrace]: whether a fake shell's -trace works here (a
// child may trace its parent: no Yama scope above 1, no seccomp filter
// against ptrace). When it does not and APEXCHECK_REQUIRE_PROGRAMS is set,
// that is an error, as for [userns].
func (cfg *Config) ptrace() (bool, error) {
	return cfg.probeCondition("ptrace", &ptraceChecks, "to run a fake shell", checkTrace)
}

// checkTrace runs a fake shell that is traced for 100 ms and reads its log.
func checkTrace(self string) error {
	dir, err := os.MkdirTemp("", "apexcheck-ptrace-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	shell := filepath.Join(dir, "sh")
	if err := fakeshell.Install(self, shell, fakeshell.Behaviour{TraceMS: 100, Silent: true}); err != nil {
		return err
	}
	if out, err := exec.Command(shell).CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
	}
	invs, err := fakeshell.ReadLog(shell + ".log")
	if err != nil {
		return err
	}
	for _, inv := range invs {
		for _, e := range inv.Events {
			if e.Event == "trace" {
				if e.Error != "" {
					return errors.New(e.Error)
				}
				return nil
			}
		}
	}
	return errors.New("the fake shell logged no trace event")
}

// cmdFakeshell installs a fake login shell, or shows what one logged:
//
//	fakeshell [flags] FILE       install a fake login shell at FILE; it logs
//	                             every invocation to FILE.log (-log)
//	fakeshell show [-n N] LOG    print invocation N (default 1) of a log
//
// The flags choose the behaviour (fakeshell.Behaviour): -print S (the
// PATH; default its own $PATH), -pathlen N (a generated PATH of N bytes),
// -banner N (N bytes of generated text with no line feed, printed first),
// -before S and -after S (text around the PATH; S takes Go escapes),
// -stderr S (printed to stderr first), -stderr-after S (printed to stderr
// after the PATH), -silent, -fish2 (entries space-separated), -exit N,
// -sleep D, -until F (wait for a file), -at D (print D after the process
// started), -ignore-term, -hold D (a child holds stdout open), -detach D
// (a child in a session of its own holds stdout open), -trace D (a child in
// a session of its own traces the shell, which hides its death from its
// parent), -job D (a background job in a group of its own, as after
// `set -m`), -leaderless D (a child in the shell's group whose main thread
// exits while another of its threads runs on, so /proc shows it as a
// zombie), -leaderless-job D (the same child in a group of its own),
// -stdin (read a line), -tty grab|read|grab,read (take or read /dev/tty),
// -reject (reject -lic as tcsh does), -exec PROG (a recording shell: log,
// then exec PROG with the same arguments), -tag T, -log F.
//
// `show` prints one line per fact, for `stdout` to match: "tag T", one
// "arg A" per argument, "path P", "home H", "cwd C", "stdin S", "ctty none"
// or "ctty MAJ:MIN", "leader session" (it leads its session and group),
// "leader group" (its group only) or "leader none", one "event …" line per
// event (a job's says whether it has a group of its own and shares the
// shell's session; a leaderless child's whether it has a group of its own
// or shares the shell's, whether it shares the shell's session, and
// "zombie-leader" when it was seen running with its main thread gone), and
// "exit N" or "exit none" when it did not exit on its own.
func (cfg *Config) cmdFakeshell(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("fakeshell does not support negation")
	}
	if len(args) > 0 && args[0] == "show" {
		showFakeshell(ts, args[1:])
		return
	}
	var b fakeshell.Behaviour
	fs := newFlags(ts, "fakeshell")
	path := fs.String("print", "\x00unset", "the PATH to print")
	fs.IntVar(&b.PathLen, "pathlen", 0, "print a generated PATH of this many bytes")
	fs.IntVar(&b.Banner, "banner", 0, "print this many bytes of generated text, with no line feed, first")
	before := fs.String("before", "", "text before the PATH (Go escapes)")
	after := fs.String("after", "", "text after the PATH (Go escapes)")
	stderr := fs.String("stderr", "", "text printed to stderr first (Go escapes)")
	stderrAfter := fs.String("stderr-after", "", "text printed to stderr after the PATH (Go escapes)")
	fs.BoolVar(&b.Silent, "silent", false, "print nothing")
	fs.BoolVar(&b.Fish2, "fish2", false, "print the entries separated by spaces")
	fs.IntVar(&b.Exit, "exit", 0, "exit status")
	sleep := fs.Duration("sleep", 0, "wait before printing")
	at := fs.Duration("at", 0, "print this long after the process started")
	job := fs.Duration("job", 0, "start a background job in a group of its own, for this long")
	until := fs.String("until", "", "wait for this file before printing")
	fs.BoolVar(&b.IgnoreTERM, "ignore-term", false, "ignore SIGTERM, SIGHUP and SIGINT")
	holdFor := fs.Duration("hold", 0, "leave a child holding stdout open this long")
	leaderless := fs.Duration("leaderless", 0, "leave a child in the group whose main thread exits, running this long")
	leaderlessJob := fs.Duration("leaderless-job", 0, "leave a child in a group of its own whose main thread exits, running this long")
	detach := fs.Duration("detach", 0, "leave a child in a session of its own holding stdout open this long")
	traceFor := fs.Duration("trace", 0, "leave a child in a session of its own tracing the shell this long")
	fs.BoolVar(&b.ReadStdin, "stdin", false, "read a line from stdin")
	tty := fs.String("tty", "", "grab, read or grab,read: use /dev/tty")
	fs.BoolVar(&b.Reject, "reject", false, "reject -lic as tcsh does")
	fs.StringVar(&b.Exec, "exec", "", "record, then exec this program")
	fs.StringVar(&b.Tag, "tag", "", "name in the log (default the file name)")
	log := fs.String("log", "", "log file (default FILE.log)")
	parseFlags(ts, fs, args)
	if fs.NArg() != 1 {
		ts.Fatalf("usage: fakeshell [flags] FILE | fakeshell show [-n N] LOG")
	}
	if *path != "\x00unset" {
		p := unescape(ts, *path)
		b.PATH = &p
	}
	b.Before, b.After, b.Stderr = unescape(ts, *before), unescape(ts, *after), unescape(ts, *stderr)
	b.StderrAfter = unescape(ts, *stderrAfter)
	b.SleepMS, b.HoldMS = int(*sleep/time.Millisecond), int(*holdFor/time.Millisecond)
	b.AtMS, b.JobMS = int(*at/time.Millisecond), int(*job/time.Millisecond)
	b.LeaderlessMS, b.LeaderlessJobMS = int(*leaderless/time.Millisecond), int(*leaderlessJob/time.Millisecond)
	b.DetachMS, b.TraceMS = int(*detach/time.Millisecond), int(*traceFor/time.Millisecond)
	if *until != "" {
		b.Until = ts.MkAbs(*until)
	}
	for _, t := range strings.Split(*tty, ",") {
		switch t {
		case "grab":
			b.TTYGrab = true
		case "read":
			b.TTYRead = true
		case "":
		default:
			ts.Fatalf("fakeshell -tty %q: want grab, read or grab,read", *tty)
		}
	}
	if *log != "" {
		b.Log = ts.MkAbs(*log)
	}
	ts.Check(fakeshell.Install(cfg.SelfExe, ts.MkAbs(fs.Arg(0)), b))
}

// unescape reads Go escapes as `text` does.
func unescape(ts *testscript.TestScript, s string) string {
	out, err := strconv.Unquote(`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`)
	if err != nil {
		ts.Fatalf("%q is not a valid escaped string: %v", s, err)
	}
	return out
}

func showFakeshell(ts *testscript.TestScript, args []string) {
	fs := newFlags(ts, "fakeshell show")
	n := fs.Int("n", 1, "which invocation, from 1")
	parseFlags(ts, fs, args)
	if fs.NArg() != 1 {
		ts.Fatalf("usage: fakeshell show [-n N] LOG")
	}
	invs, err := fakeshell.ReadLog(ts.MkAbs(fs.Arg(0)))
	ts.Check(err)
	if *n < 1 || *n > len(invs) {
		ts.Fatalf("fakeshell show: %s logs %d invocation(s), no invocation %d", fs.Arg(0), len(invs), *n)
	}
	inv := invs[*n-1]
	st := inv.Start
	var b strings.Builder
	fmt.Fprintf(&b, "tag %s\n", st.Tag)
	for _, a := range st.Args {
		fmt.Fprintf(&b, "arg %s\n", a)
	}
	fmt.Fprintf(&b, "path %s\nhome %s\ncwd %s\nstdin %s\nctty %s\n", st.PATH, st.Home, st.Cwd, st.Stdin, st.CTTY)
	switch {
	case st.Sid == st.Pid && st.Pgid == st.Pid:
		b.WriteString("leader session\n")
	case st.Pgid == st.Pid:
		b.WriteString("leader group\n")
	default:
		b.WriteString("leader none\n")
	}
	for _, e := range inv.Events {
		fmt.Fprintf(&b, "event %s", e.Event)
		if e.Read != nil {
			fmt.Fprintf(&b, " read=%q", *e.Read)
		}
		if e.Error != "" {
			fmt.Fprintf(&b, " error=%q", e.Error)
		}
		if e.Grabbed {
			b.WriteString(" grabbed")
		}
		if e.Child != 0 {
			fmt.Fprintf(&b, " child=%d", e.Child)
		}
		if e.Event == "job" && e.Child != 0 {
			// Whether the job is what `set -m` makes: a group of its own
			// in the shell's session.
			if e.Pgid == e.Child {
				b.WriteString(" own-group")
			}
			if e.Sid == st.Sid {
				b.WriteString(" same-session")
			}
		}
		if e.Event == "leaderless" && e.Child != 0 {
			if e.Pgid == e.Child {
				b.WriteString(" own-group")
			}
			if e.Pgid == st.Pgid {
				b.WriteString(" same-group")
			}
			if e.Sid == st.Sid {
				b.WriteString(" same-session")
			}
			if e.Leaderless {
				b.WriteString(" zombie-leader")
			}
		}
		if e.Event == "detach" && e.Child != 0 && e.Sid == e.Child {
			b.WriteString(" own-session")
		}
		b.WriteString("\n")
	}
	if inv.End != nil && inv.End.Exit != nil {
		fmt.Fprintf(&b, "exit %d\n", *inv.End.Exit)
	} else {
		b.WriteString("exit none\n")
	}
	fmt.Fprint(ts.Stdout(), b.String())
}
