package broken

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/loginpath"
	"github.com/apexcheck/apexcheck/ref/server"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// Variants of when and how the tool does its work: a backend without
// background support, a probe made at start-up, a probe that keeps the
// shell's whole stdout.
func init() {
	Register("no-background-runs-launch", Variant{
		Clause: "BG-21",
		Defect: "has no background support and ignores `background`, so a launch runs in the foreground " +
			"instead of being refused",
		Scenarios: `^bg_no_support$`,
		Serve: func(in io.Reader, out io.Writer) error {
			s := server.ReferenceWith(func(c *tool.Config) { c.Background = nil })
			s.Capabilities = slices.DeleteFunc(slices.Clone(s.Capabilities), func(c string) bool {
				return c == protocol.CapBackground
			})
			inner := s.Tool
			s.Tool = ExecuteFunc{Handler: inner, Exec: func(ctx context.Context, c tool.Call) protocol.Result {
				c.Args = rewriteArgs(c.Args, func(m map[string]any) { delete(m, "background") })
				return inner.Execute(ctx, c)
			}}
			return s.Serve(in, out)
		},
	})
	Register("tool-per-call", Variant{
		Clause: "PROTO-17",
		Defect: "builds a tool instance for each call, as a stateless request handler does, so a background " +
			"command and its output live in an instance no later call reaches",
		Scenarios: `^bg_retrieve_running_exited$`,
		Serve: func(in io.Reader, out io.Writer) error {
			s := server.Reference()
			s.Tool = &perCall{Handler: s.Tool}
			return s.Serve(in, out)
		},
	})
	Register("out-file-after-result", Variant{
		Clause: "OUT-32",
		Defect: "answers once the grace has passed but leaves the output streams piped into the full-output " +
			"file (stdout.pipe(file), never unpiped), so what a detached grandchild writes later lands in it",
		Scenarios: `^output_detached_grandchild$`,
		Serve:     withPort(port{pumpsOutliveResult: true}),
	})
	Register("path-probe-at-start", Variant{
		Clause:    "PATH-16",
		Defect:    "probes the login PATH when the tool is built, so that the first call need not wait for it",
		Scenarios: `^path_lazy$`,
		Serve: withLoginPATH(func(probe func() (string, bool)) func() (string, bool) {
			probe()
			return probe
		}),
	})
	Register("path-probe-reads-all", Variant{
		Clause: "PATH-28",
		Defect: "collects the login shell's whole stdout and takes its last line (subprocess.run(...).stdout." +
			"split('\\n')[-1]), so a banner or a long line of 64 MiB stays in memory",
		Scenarios: `^path_stdout_memory$`,
		Serve: withLoginPATH(func(func() (string, bool)) func() (string, bool) {
			var once sync.Once
			var path string
			var ok bool
			return func() (string, bool) {
				once.Do(func() { path, ok = probeReadingAll() })
				return path, ok
			}
		}),
	})
}

// perCall is a handler that executes each call with a tool of its own,
// made for it; it disposes of them all when the session ends, so that
// their commands end with it.
type perCall struct {
	server.Handler
	mu    sync.Mutex
	tools []server.Handler
}

func (p *perCall) Execute(ctx context.Context, c tool.Call) protocol.Result {
	t := server.Reference().Tool
	p.mu.Lock()
	p.tools = append(p.tools, t)
	p.mu.Unlock()
	return t.Execute(ctx, c)
}

func (p *perCall) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, t := range p.tools {
		t.Close()
	}
	p.Handler.Close()
}

// probeReadingAll runs the login shell as the reference does (PATH-1,
// PATH-4, PATH-6) but collects its stdout whole, to its end, before it
// selects the last line.
func probeReadingAll() (string, bool) {
	shell := os.Getenv("SHELL")
	if shell == "" {
		return "", false
	}
	cmd := exec.Command(shell, loginpath.Flags, loginpath.Command)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil || cmd.Start() != nil {
		return "", false
	}
	kill := func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	bound := time.AfterFunc(loginpath.Bound, kill)
	out, rerr := io.ReadAll(stdout)
	werr := cmd.Wait()
	bound.Stop()
	kill()
	if rerr != nil || werr != nil {
		return "", false
	}
	last := out[bytes.LastIndexByte(out, '\n')+1:]
	if loginpath.Check(last) != nil {
		return "", false
	}
	return string(last), true
}
