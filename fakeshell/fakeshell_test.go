package fakeshell

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary play the roles it installs.
func TestMain(m *testing.M) {
	switch os.Getenv(RoleVariable) {
	case Role:
		os.Exit(Main())
	case OverlayRole:
		os.Exit(OverlayMain())
	}
	os.Exit(m.Run())
}

func ptr(s string) *string { return &s }

// run installs a fake shell with b and runs it as the probe would.
func run(t *testing.T, b Behaviour) (stdout string, code int, inv []Invocation) {
	t.Helper()
	dir := t.TempDir()
	shell := filepath.Join(dir, "zsh")
	if err := Install(os.Args[0], shell, b); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(shell, "-lic", `printf %s "$PATH"`)
	cmd.Env = append(os.Environ(), "PATH=/host/bin:/usr/bin:/bin")
	cmd.Dir = dir
	// As the probe starts it: a session of its own, no terminal.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var out strings.Builder
	cmd.Stdout = &out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	inv, err = ReadLog(shell + ".log")
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), code, inv
}

func TestBehaviours(t *testing.T) {
	tests := []struct {
		name     string
		b        Behaviour
		stdout   string
		code     int
		events   string
		noEndLog bool
	}{
		{"own PATH", Behaviour{}, "/host/bin:/usr/bin:/bin", 0, "", false},
		{"given PATH", Behaviour{PATH: ptr("/p:/q")}, "/p:/q", 0, "", false},
		{"banner and trailer", Behaviour{PATH: ptr("/p"), Before: "Welcome\n", After: "\nBYE"}, "Welcome\n/p\nBYE", 0, "", false},
		{"escape code, no line feed", Behaviour{PATH: ptr("/p"), Before: "\x1b]7;file:///\a"}, "\x1b]7;file:///\a/p", 0, "", false},
		{"silent", Behaviour{PATH: ptr("/p"), Silent: true}, "", 0, "", false},
		{"exit code after a PATH", Behaviour{PATH: ptr("/p"), Exit: 3}, "/p", 3, "", false},
		{"fish 2", Behaviour{PATH: ptr("/a:/b:/c"), Fish2: true}, "/a /b /c", 0, "", false},
		{"generated PATH", Behaviour{PathLen: 100}, generatedPATH(100), 0, "", false},
		{"generated banner", Behaviour{PATH: ptr("/p"), Banner: 20, Before: "\n"}, "banner banner banner\n/p", 0, "", false},
		{"reject", Behaviour{Reject: true}, "", 1, "", false},
		{"stdin", Behaviour{PATH: ptr("/p"), ReadStdin: true}, "/p", 0, "stdin", false},
		{"tty without a terminal", Behaviour{PATH: ptr("/p"), TTYRead: true}, "/p", 0, "tty", false},
		{"hold", Behaviour{PATH: ptr("/p"), HoldMS: 1}, "/p", 0, "hold", false},
		{"job", Behaviour{PATH: ptr("/p"), JobMS: 1}, "/p", 0, "job", false},
		{"stderr after is not stdout", Behaviour{PATH: ptr("/p"), StderrAfter: "logout"}, "/p", 0, "", false},
		// A login sh resets PATH from /etc/profile on Debian; the record
		// keeps the PATH it was started with.
		{"recording", Behaviour{Exec: "/bin/sh"}, "*", 0, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, code, inv := run(t, tt.b)
			if stdout != tt.stdout && tt.stdout != "*" || code != tt.code {
				t.Errorf("stdout %q, exit %d; want %q, %d", stdout, code, tt.stdout, tt.code)
			}
			if len(inv) != 1 {
				t.Fatalf("%d invocations logged, want 1", len(inv))
			}
			s := inv[0].Start
			if strings.Join(s.Args, "|") != `-lic|printf %s "$PATH"` || s.PATH != "/host/bin:/usr/bin:/bin" || s.Tag != "zsh" {
				t.Errorf("start record %+v", s)
			}
			var events []string
			for _, e := range inv[0].Events {
				events = append(events, e.Event)
			}
			if got := strings.Join(events, ","); got != tt.events {
				t.Errorf("events %q, want %q", got, tt.events)
			}
			if (inv[0].End == nil) != tt.noEndLog || inv[0].End != nil && *inv[0].End.Exit != tt.code {
				t.Errorf("end record %+v", inv[0].End)
			}
		})
	}
}

// TestTTYWithoutTerminal: a shell with no controlling terminal records why
// /dev/tty could not be used, and goes on.
func TestTTYWithoutTerminal(t *testing.T) {
	_, _, inv := run(t, Behaviour{PATH: ptr("/p"), TTYGrab: true, TTYRead: true})
	s := inv[0].Start
	if s.CTTY != "none" || s.Sid != s.Pid || s.Pgid != s.Pid || s.Stdin != "/dev/null" {
		t.Errorf("start record %+v: want a session leader with no terminal and stdin /dev/null", s)
	}
	if ev := inv[0].Events[0]; ev.Error == "" || ev.Grabbed || ev.Read != nil {
		t.Errorf("tty event %+v: want an error, no grab and no read", ev)
	}
}

// TestJob: the background job is what `set -m` makes, a process group of
// its own in the shell's session, and the record says so.
func TestJob(t *testing.T) {
	_, _, inv := run(t, Behaviour{PATH: ptr("/p"), JobMS: 60000})
	ev := inv[0].Events[0]
	if ev.Child == 0 {
		t.Fatalf("job event %+v: no child", ev)
	}
	defer syscall.Kill(ev.Child, syscall.SIGKILL)
	if ev.Pgid != ev.Child || ev.Sid != inv[0].Start.Sid {
		t.Errorf("job event %+v: want group %d and session %d", ev, ev.Child, inv[0].Start.Sid)
	}
}

// TestAt: the PATH comes no sooner than asked, and
// stderr comes around it as asked.
func TestAt(t *testing.T) {
	dir := t.TempDir()
	shell := filepath.Join(dir, "zsh")
	b := Behaviour{PATH: ptr("/p"), AtMS: 400, Stderr: "before", StderrAfter: "after"}
	if err := Install(os.Args[0], shell, b); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(shell, "-lic", `printf %s "$PATH"`)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	// /proc counts in hundredths of a second.
	if d := time.Since(start); d < 390*time.Millisecond {
		t.Errorf("answered after %v, want 400ms", d)
	}
	if stdout.String() != "/p" || stderr.String() != "beforeafter" {
		t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	// The end record carries when it wrote and the machine's witness,
	// how late its own timers woke (bound -beyond): never negative, and
	// never more than the whole wait.
	inv, err := ReadLog(shell + ".log")
	if err != nil || len(inv) != 1 || inv[0].End == nil {
		t.Fatalf("log: %v, %+v", err, inv)
	}
	end := inv[0].End
	if end.Wrote == nil || *end.Wrote < 0.39 || end.Late == nil || *end.Late < 0 || *end.Late > *end.Wrote {
		t.Errorf("end record wrote %v, late %v: want wrote at 0.4 s or later and late between 0 and wrote", end.Wrote, end.Late)
	}
}

// TestWaitUntil: the wait lasts at least as long as asked, and the
// lateness it reports is of the steps it took, so no more than the
// overshoot of the whole wait.
func TestWaitUntil(t *testing.T) {
	start := time.Now()
	late := waitUntil(150 * time.Millisecond)
	took := time.Since(start)
	if took < 150*time.Millisecond {
		t.Errorf("waited %v, want 150ms", took)
	}
	if late < 0 || late > took {
		t.Errorf("late %v after a wait of %v", late, took)
	}
	if late := waitUntil(-time.Second); late != 0 {
		t.Errorf("a wait already over reported %v late", late)
	}
}

func TestGeneratedPATH(t *testing.T) {
	for _, n := range []int{1, 2, 27, 28, 29, 32768, 32769} {
		p := generatedPATH(n)
		if len(p) != n || strings.HasSuffix(p, ":") || strings.ContainsAny(p, "\n\x00") {
			t.Errorf("generatedPATH(%d) = %q (len %d)", n, p, len(p))
		}
	}
}

func TestOverlay(t *testing.T) {
	dir := t.TempDir()
	scratch := filepath.Join(dir, "scratch")
	os.Mkdir(scratch, 0o755)
	added := filepath.Join(dir, "added")
	os.WriteFile(added, []byte("#!/bin/sh\necho added\n"), 0o755)
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, []byte("#!/bin/sh\necho plain\n"), 0o644)
	check := Overlay{Scratch: scratch, Files: map[string]string{"apexcheck-none": ""}, Check: true}
	cmd, err := check.Command(os.Args[0], nil, os.Environ())
	if err != nil {
		t.Skip(err)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("no mount namespace with an overlay here: %v: %s", err, out)
	}
	o := Overlay{Scratch: scratch, Files: map[string]string{"apexcheck-added": added, "apexcheck-plain": plain, "true": ""}}
	// Copies keep their permission bits, and the directory is read-only
	// (to root too).
	script := `[ ! -e /bin/true ] && [ ! -e /usr/bin/true ] && [ -f /bin/apexcheck-plain ] && [ ! -x /bin/apexcheck-plain ] &&
		! touch /bin/apexcheck-added 2>/dev/null && ! touch /bin/apexcheck-new 2>/dev/null && /bin/apexcheck-added`
	cmd, _ = o.Command(os.Args[0], []string{"/bin/sh", "-c", script}, os.Environ())
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "added\n" {
		t.Errorf("in the overlay: %v: %q", err, out)
	}
	if _, err := os.Stat("/bin/apexcheck-added"); err == nil {
		t.Errorf("the overlay leaked out of its namespace")
	}
	if entries, _ := os.ReadDir(scratch); len(entries) != 0 {
		t.Errorf("scratch directory is not empty outside the namespace: %v", entries)
	}
}
