package background

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apexcheck/apexcheck/ref/call"
	"github.com/apexcheck/apexcheck/ref/shellexec"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// hang bounds every wait in these tests. It is a guard against a hung
// test, never an assertion about how long something takes.
const hang = 30 * time.Second

// spawn is a launch in a fresh directory. HOME is a fresh directory too:
// the shell is a login shell, and the host's profile may do anything.
func spawn(t *testing.T, command string) tool.Spawn {
	t.Helper()
	env := append(os.Environ(), "HOME="+t.TempDir())
	return tool.Spawn{Command: command, Dir: t.TempDir(), Env: env,
		HostPATH: os.Getenv("PATH"), TempDir: t.TempDir()}
}

func launch(t *testing.T, r *Registry, command string) *entry {
	t.Helper()
	h, err := r.Launch(spawn(t, command))
	if err != nil {
		t.Fatalf("launch %q: %v", command, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.entries[h]
}

func waitDone(t *testing.T, e *entry) {
	t.Helper()
	select {
	case <-e.done:
	case <-time.After(hang):
		t.Fatalf("entry %s did not end", e.handle)
	}
}

func retrieve(r *Registry, e *entry) string {
	return r.Handle(call.Operation{Kind: call.Retrieve, Handle: e.handle}).Text
}

func TestRetrieveAfterExit(t *testing.T) {
	r := New(Options{})
	defer r.Close()
	e := launch(t, r, "echo out; echo err >&2; exit 3")
	waitDone(t, e)
	res := r.Handle(call.Operation{Kind: call.Retrieve, Handle: e.handle})
	if res.IsError {
		t.Errorf("retrieval is an error result: %q", res.Text)
	}
	header, body, _ := strings.Cut(res.Text, "\n\n")
	if want := "[background] " + e.handle + ": exited (code 3) after "; !strings.HasPrefix(header, want) {
		t.Errorf("header %q, want prefix %q", header, want)
	}
	// stdout and stderr may arrive in either order (EXEC-6).
	if body != "out\nerr\n" && body != "err\nout\n" {
		t.Errorf("body %q", body)
	}
	ex := res.Details.Execution
	if ex == nil || ex.ExitCode == nil || *ex.ExitCode != 3 || ex.Cwd == "" || ex.Executable != "" || ex.Argv != nil {
		t.Errorf("execution details %+v", ex)
	}
	// BG-12, BG-26: the ended entry holds only its final snapshot.
	r.mu.Lock()
	acc := e.acc
	r.mu.Unlock()
	if acc != nil {
		t.Error("ended entry still holds its accumulator")
	}
	if again := retrieve(r, e); again != res.Text {
		t.Errorf("second retrieval differs:\n%q\n%q", again, res.Text)
	}
}

func TestKillRunningThenRetrieve(t *testing.T) {
	r := New(Options{})
	defer r.Close()
	e := launch(t, r, "sleep 300")
	res := r.Handle(call.Operation{Kind: call.Kill, Handle: e.handle})
	if res.IsError || res.Text != "[background] "+e.handle+": kill signal sent" || res.Details != nil {
		t.Fatalf("kill answered %+v", res)
	}
	// BG-18: the very next retrieval reports the kill.
	if got := retrieve(r, e); !strings.HasPrefix(got, "[background] "+e.handle+": killed (code 137) after ") {
		t.Errorf("retrieval after kill: %q", got)
	}
	res = r.Handle(call.Operation{Kind: call.Kill, Handle: e.handle})
	if res.Text != "[background] "+e.handle+": already exited (code 137)" {
		t.Errorf("second kill: %q", res.Text)
	}
}

func TestKillExitedSignalsNothing(t *testing.T) {
	kills := 0
	r := New(Options{Kill: func(p *shellexec.Process) { kills++; p.KillGroup() }})
	defer r.Close()
	e := launch(t, r, "exit 5")
	waitDone(t, e)
	res := r.Handle(call.Operation{Kind: call.Kill, Handle: e.handle})
	if res.Text != "[background] "+e.handle+": already exited (code 5)" || kills != 0 {
		t.Errorf("kill of exited entry: %q, %d signal(s) sent", res.Text, kills)
	}
	if got := retrieve(r, e); !strings.Contains(got, ": exited (code 5) after ") {
		t.Errorf("retrieval: %q", got)
	}
}

func TestCloseKillsRunningGroups(t *testing.T) {
	r := New(Options{})
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	running := launch(t, r, "sleep 300 & echo $! > "+pidFile+"; wait")
	exited := launch(t, r, "true")
	waitDone(t, exited)
	child := waitPid(t, pidFile)
	r.Close()
	waitDone(t, running)
	if got := retrieve(r, running); !strings.Contains(got, ": killed (code 137) after ") {
		t.Errorf("running entry after Close: %q", got)
	}
	if got := retrieve(r, exited); !strings.Contains(got, ": exited (code 0) after ") {
		t.Errorf("exited entry after Close: %q", got)
	}
	// The child was in the shell's group: it is gone too. It is not our
	// child, so once dead it is reaped by init; poll for that.
	deadline := time.Now().Add(hang)
	for alive(child) {
		if time.Now().After(deadline) {
			t.Fatalf("child %d survived Close", child)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := r.Launch(spawn(t, "true")); !errors.Is(err, ErrClosed) {
		t.Errorf("launch after Close: %v, want ErrClosed", err)
	}
}

func TestLaunchChecks(t *testing.T) {
	r := New(Options{})
	defer r.Close()
	s := spawn(t, "true")
	s.Dir = filepath.Join(s.Dir, "missing")
	_, err := r.Launch(s)
	if want := "Working directory does not exist: " + s.Dir + "\nCannot execute bash commands."; err == nil || err.Error() != want {
		t.Errorf("missing cwd: %v", err)
	}
	s.ShellPath = "/no/such/shell"
	if _, err := r.Launch(s); !errors.Is(err, shellexec.ErrShellNotFound) {
		t.Errorf("missing shell (checked first): %v", err)
	}
	if n := len(r.Handles()); n != 0 {
		t.Errorf("%d handles after failed launches", n)
	}
}

func TestUnknownHandle(t *testing.T) {
	r := New(Options{})
	defer r.Close()
	a := launch(t, r, "true")
	b := launch(t, r, "true")
	for _, kind := range []call.Kind{call.Retrieve, call.Kill} {
		res := r.Handle(call.Operation{Kind: kind, Handle: "nope"})
		want := "Unknown background handle: nope. Known handles: " + a.handle + ", " + b.handle
		if !res.IsError || res.Text != want || res.Details != nil {
			t.Errorf("%s of unknown handle: %+v", kind, res)
		}
	}
	if cmd, ok := r.CommandFor(a.handle); !ok || cmd != "true" {
		t.Errorf("CommandFor = %q, %v", cmd, ok)
	}
	if _, ok := r.CommandFor("nope"); ok {
		t.Error("CommandFor knows an unknown handle")
	}
}

func waitPid(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(hang)
	for {
		data, err := os.ReadFile(path)
		if s := strings.TrimSpace(string(data)); err == nil && strings.HasSuffix(string(data), "\n") {
			var pid int
			for _, c := range s {
				pid = pid*10 + int(c-'0')
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] != 'Z'
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
