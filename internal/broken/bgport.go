package broken

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/background"
	"github.com/apexcheck/apexcheck/ref/call"
	"github.com/apexcheck/apexcheck/ref/server"
	"github.com/apexcheck/apexcheck/ref/shellexec"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// The background variants of spec/background.md written from the clause:
// each is the reference's registry with one step done the way a port to
// Python, Node or Rust gets it wrong. Each is selected against the whole
// background area.
func init() {
	const area = `^bg_`
	reg := func(name, clause, defect string, serve func(in io.Reader, out io.Writer) error) {
		Register(name, Variant{Defect: defect, Clause: clause, Scenarios: area, Serve: serve})
	}

	reg("bg-launch-text-compact", "BG-1",
		"writes the retrieve and kill hints with JSON.stringify, {\"handle\":\"H\"} without the spaces of the seed's text",
		editResults(func(c tool.Call, op call.Operation, r *protocol.Result) {
			if op.Kind == call.Run && op.Background && !r.IsError {
				r.Text = strings.NewReplacer(`{ "handle": "`, `{"handle":"`, `", "kill": true }`, `","kill":true}`, `" }`, `"}`).Replace(r.Text)
			}
		}))
	reg("bg-launch-waits-for-output", "BG-1",
		"answers a launch only once the command has printed something or ended, to show the model it started",
		wrapTool(func(h server.Handler, ctx context.Context, c tool.Call, op call.Operation) (protocol.Result, bool) {
			if op.Kind != call.Run || !op.Background {
				return protocol.Result{}, false
			}
			r := h.Execute(ctx, c)
			if handle := launchedHandle(r); handle != "" {
				for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
					got := h.Execute(ctx, tool.Call{Args: []byte(`{"handle":"` + handle + `"}`), Cwd: c.Cwd})
					if !strings.Contains(got.Text, ": running ") || !strings.HasSuffix(got.Text, "\n\n"+tool.NoOutput) {
						break
					}
				}
			}
			return r, true
		}))
	reg("bg-handle-hex", "BG-2",
		"names entries with Python's uuid4().hex: 32 hexadecimal digits without the hyphens",
		renameHandles(func(h string) string { return strings.ReplaceAll(h, "-", "") }))
	reg("bg-handle-upper", "BG-2",
		"names entries with an upper-case UUID (.NET's Guid.ToString(\"D\").ToUpper(), a Rust {:X} format)",
		renameHandles(strings.ToUpper))
	reg("bg-handle-no-version", "BG-2",
		"makes handles from 16 random bytes formatted as a UUID, without setting the version and variant bits",
		renameHandles(func(h string) string {
			// The version nibble becomes 0 and the variant nibble c:
			// what random bytes give one time in sixteen and one in four.
			b := []byte(h)
			b[14], b[19] = '0', 'c'
			return string(b)
		}))
	// BG-3 says a launch's environment includes the probed login PATH, by
	// reference to PATH-20, which states it for "foreground commands and
	// background launches alike": the defect breaks PATH-20 first, and BG-3
	// keeps its own variants below.
	Register("bg-launch-host-path", Variant{Clause: "PATH-20", Scenarios: `^(bg|path)_`,
		Defect: "gives background launches the host PATH: the login PATH is injected only where the foreground command is built",
		Serve: withBackground(func(b tool.Background) tool.Background {
			return launchEdit{b, func(s *tool.Spawn) {
				s.Env = append(dropVars(s.Env, func(n string) bool { return n == "PATH" }), "PATH="+s.HostPATH)
			}}
		})})
	reg("bg-launch-no-session-env", "BG-3",
		"leaves the session variables out of a background launch's environment",
		withBackground(func(b tool.Background) tool.Background {
			return launchEdit{b, func(s *tool.Spawn) { s.Env = dropVars(s.Env, sessionVar) }}
		}))
	reg("bg-launch-no-prefix", "BG-3",
		"applies commandPrefix only to foreground commands",
		rewritingCall(func(c *tool.Call, op call.Operation) {
			if op.Kind == call.Run && op.Background {
				c.Options.CommandPrefix = ""
			}
		}))
	reg("bg-launch-agent-stdin", "BG-3",
		"gives a background command the implementation's own stdin, as Node's spawn with stdio \"inherit\" does",
		rewritingCall(func(c *tool.Call, op call.Operation) {
			if op.Kind == call.Run && op.Background {
				c.Args = rewriteArgs(c.Args, func(m map[string]any) {
					m["command"] = "exec </proc/$PPID/fd/0\n" + op.Command
				})
			}
		}))
	reg("bg-missing-cwd-launched", "BG-4",
		"launches in a missing working directory and reports the failure only in the entry, as Node's spawn does, whose ENOENT arrives after the handle was returned",
		withBackground(func(b tool.Background) tool.Background {
			return launchEdit{b, func(s *tool.Spawn) {
				if _, err := os.Stat(s.Dir); err != nil {
					s.Command = "echo " + strconv.Quote("spawn ENOENT: "+s.Dir) + " >&2; exit 127"
					s.Dir = "/"
				}
			}}
		}))
	reg("bg-timeout-validated", "BG-5",
		"validates timeout for launches as for foreground calls, rejecting -1, 0 and 1e400",
		wrapTool(func(h server.Handler, ctx context.Context, c tool.Call, op call.Operation) (protocol.Result, bool) {
			if op.Kind == call.Run && op.Background {
				if _, err := shellexec.ResolveTimeout(op.Timeout); err != nil {
					return protocol.Result{IsError: true, Text: err.Error()}, true
				}
			}
			return protocol.Result{}, false
		}))
	reg("bg-timeout-enforced", "BG-5",
		"kills a launched command when its timeout passes, as for a foreground one",
		wrapTool(func(h server.Handler, ctx context.Context, c tool.Call, op call.Operation) (protocol.Result, bool) {
			if op.Kind != call.Run || !op.Background {
				return protocol.Result{}, false
			}
			r := h.Execute(ctx, c)
			if d, err := shellexec.ResolveTimeout(op.Timeout); err == nil && op.Timeout != nil {
				if handle := launchedHandle(r); handle != "" {
					time.AfterFunc(d, func() {
						h.Execute(context.Background(), tool.Call{Args: []byte(`{"handle":"` + handle + `","kill":true}`), Cwd: c.Cwd})
					})
				}
			}
			return r, true
		}))
	reg("bg-launch-ignores-abort", "BG-6",
		"never looks at the abort signal of a launch, so a call cancelled before it ran still starts its command",
		rewritingCtx(func(ctx context.Context, op call.Operation) context.Context {
			if op.Kind == call.Run && op.Background {
				return context.Background()
			}
			return ctx
		}))
	reg("bg-launch-sends-update", "BG-7",
		"sends the empty first update every run sends before it branches to the background launch",
		rewritingCall(func(c *tool.Call, op call.Operation) {
			if op.Kind == call.Run && op.Background && c.OnUpdate != nil {
				c.OnUpdate(protocol.Result{Text: ""})
			}
		}))
	reg("bg-output-uncut", "BG-8",
		"keeps a background command's output in one growing string and shows all of it, uncut",
		editResults(func(c tool.Call, op call.Operation, r *protocol.Result) {
			if op.Kind != call.Retrieve || r.Details == nil || r.Details.FullOutputPath == "" {
				return
			}
			full, err := os.ReadFile(r.Details.FullOutputPath)
			if err != nil {
				return
			}
			header, _, _ := strings.Cut(r.Text, "\n\n")
			r.Text = header + "\n\n" + strings.ToValidUTF8(string(full), "\uFFFD")
			r.Details.Truncation, r.Details.FullOutputPath = nil, ""
		}))
	reg("bg-retrieve-error-nonzero", "BG-9",
		"marks a retrieval of an entry that exited non-zero as an error result, reusing the foreground's rule",
		editResults(func(c tool.Call, op call.Operation, r *protocol.Result) {
			if op.Kind == call.Retrieve && r.Details != nil && r.Details.Execution != nil &&
				r.Details.Execution.ExitCode != nil && *r.Details.Execution.ExitCode != 0 {
				r.IsError = true
			}
		}))
	reg("bg-seconds-floor", "BG-10",
		"writes the seconds as Python's \"%.1f\" % (int(ms / 100) / 10): truncated to the tenth below",
		retime(func(ms int64) string { return strconv.FormatInt(ms/1000, 10) + "." + strconv.FormatInt(ms/100%10, 10) }))
	reg("bg-seconds-whole", "BG-10",
		"measures with a clock of whole seconds (time() or Date.now()/1000|0) and writes .0",
		retime(func(ms int64) string { return strconv.FormatInt(ms/1000, 10) + ".0" }))
	reg("bg-seconds-centiseconds", "BG-10",
		"writes two digits after the point (toFixed(2))",
		retime(func(ms int64) string { return strconv.FormatFloat(float64(ms)/1000, 'f', 2, 64) }))
	reg("bg-ended-header-drops-output", "BG-12",
		"clears an entry's output buffer once the command ended, keeping only its status",
		editResults(func(c tool.Call, op call.Operation, r *protocol.Result) {
			if op.Kind == call.Retrieve && !strings.Contains(firstLineOf(r.Text), ": running ") && !r.IsError {
				header, _, _ := strings.Cut(r.Text, "\n\n")
				r.Text = header + "\n\n" + tool.NoOutput
				if r.Details != nil {
					r.Details.Truncation, r.Details.FullOutputPath = nil, ""
				}
			}
		}))
	reg("bg-footer-foreground-form", "BG-13",
		"footers a retrieval cut by bytes as a foreground result is footed, with the (50.0KB limit) form",
		editResults(func(c tool.Call, op call.Operation, r *protocol.Result) {
			if op.Kind == call.Retrieve && r.Details != nil && r.Details.Truncation != nil && r.Details.Truncation.TruncatedBy == "bytes" && !r.Details.Truncation.LastLinePartial {
				r.Text = strings.Replace(r.Text, ". Full output: ", " (50.0KB limit). Full output: ", 1)
			}
		}))
	reg("bg-running-exit-code-zero", "BG-14",
		"reports exitCode 0 while the entry runs: a Go struct field of type int, where null was meant",
		editResults(func(c tool.Call, op call.Operation, r *protocol.Result) {
			if op.Kind == call.Retrieve && r.Details != nil && r.Details.Execution != nil && r.Details.Execution.ExitCode == nil {
				zero := 0
				r.Details.Execution.ExitCode = &zero
			}
		}))
	reg("bg-retrieve-full-facts", "BG-14",
		"gives a retrieval the execution facts of a foreground run, executable and argv included",
		editResults(func(c tool.Call, op call.Operation, r *protocol.Result) {
			if op.Kind == call.Retrieve && r.Details != nil && r.Details.Execution != nil {
				r.Details.Execution.Executable = "/bin/bash"
				r.Details.Execution.Argv = []string{"-lc", "?"}
			}
		}))
	reg("bg-killed-code-null", "BG-15",
		"reports a killed entry's code as null, as the seed's registry does: (code null) and exitCode null",
		editResults(func(c tool.Call, op call.Operation, r *protocol.Result) {
			if op.Kind == call.Retrieve || op.Kind == call.Kill {
				first := firstLineOf(r.Text)
				if strings.Contains(first, ": killed (code 137)") || strings.Contains(first, "already exited (code 137)") {
					r.Text = strings.Replace(r.Text, "(code 137)", "(code null)", 1)
					if r.Details != nil && r.Details.Execution != nil {
						r.Details.Execution.ExitCode = nil
					}
				}
			}
		}))
	reg("bg-kill-sigterm", "BG-16",
		"kills with SIGTERM (Node's child.kill() default, Python's terminate()), which a command may ignore",
		withBackground(func(tool.Background) tool.Background {
			return background.New(background.Options{Kill: func(p *shellexec.Process) {
				syscall.Kill(-p.Pid(), syscall.SIGTERM)
			}})
		}))
	reg("bg-kill-ended-resends", "BG-17",
		"does not look at the entry's state on a kill: an ended entry is killed again and answers kill signal sent",
		editResults(func(c tool.Call, op call.Operation, r *protocol.Result) {
			if op.Kind == call.Kill && strings.Contains(r.Text, ": already exited (code ") {
				r.Text = "[background] " + op.Handle + ": kill signal sent"
			}
		}))
	reg("bg-kill-answers-before-exit", "BG-18",
		"answers a kill as soon as the signal is sent, so a retrieval right after it can still find the entry running",
		withBackground(func(tool.Background) tool.Background {
			return background.New(background.Options{KillWait: time.Nanosecond})
		}))
	reg("bg-known-handles-unordered", "BG-19",
		"lists the known handles of an unknown-handle error in a map's order, not launch order",
		editResults(func(c tool.Call, op call.Operation, r *protocol.Result) {
			const known = ". Known handles: "
			if i := strings.Index(r.Text, known); r.IsError && i >= 0 {
				hs := strings.Split(r.Text[i+len(known):], ", ")
				for a, b := 0, len(hs)-1; a < b; a, b = a+1, b-1 {
					hs[a], hs[b] = hs[b], hs[a]
				}
				r.Text = r.Text[:i+len(known)] + strings.Join(hs, ", ")
			}
		}))
	reg("bg-rejected-kill-acts", "BG-20",
		"acts on a kill before checking the call for stray fields: the entry is killed, then the call is rejected",
		Wrapped(func(h server.Handler) server.Handler {
			return ExecuteFunc{Handler: h, Exec: func(ctx context.Context, c tool.Call) protocol.Result {
				var m map[string]any
				if json.Unmarshal(c.Args, &m) != nil {
					return h.Execute(ctx, c)
				}
				// Only a call the parse rejects for a stray field.
				if _, timeout := m["timeout"].(float64); m["kill"] == true && m["command"] == nil && (timeout || m["background"] == true) {
					if handle, ok := m["handle"].(string); ok && handle != "" {
						kill := c
						kill.Args = []byte(`{"handle":` + strconv.Quote(handle) + `,"kill":true}`)
						h.Execute(ctx, kill)
					}
				}
				return h.Execute(ctx, c)
			}}
		}))
	reg("bg-launch-permission-free", "BG-22",
		"asks no permission for a launch, as for a retrieval: the background branch runs before the gate",
		permissionArgs(func(m map[string]any) {
			if m["background"] == true {
				for k := range m {
					delete(m, k)
				}
				m["handle"] = "00000000-0000-4000-8000-000000000000"
			}
		}))
	reg("bg-handle-call-as-command", "BG-23",
		"matches retrieve and kill calls against command rules, taking the handle as the command",
		permissionArgs(func(m map[string]any) {
			if h, ok := m["handle"].(string); ok {
				delete(m, "handle")
				delete(m, "kill")
				m["command"] = h
			}
		}))
	reg("bg-forgets-ended", "BG-24",
		"removes an entry from the registry once a retrieval has reported it ended",
		forgetting())
}

// launchEdit changes what a launch starts before the registry starts it.
type launchEdit struct {
	tool.Background
	edit func(*tool.Spawn)
}

func (l launchEdit) Launch(s tool.Spawn) (string, error) {
	l.edit(&s)
	return l.Background.Launch(s)
}

// wrapTool serves the reference with calls offered first to f, which
// answers them itself when it returns true.
func wrapTool(f func(h server.Handler, ctx context.Context, c tool.Call, op call.Operation) (protocol.Result, bool)) func(io.Reader, io.Writer) error {
	return func(in io.Reader, out io.Writer) error {
		return Wrapped(func(h server.Handler) server.Handler {
			return ExecuteFunc{Handler: h, Exec: func(ctx context.Context, c tool.Call) protocol.Result {
				if p := call.Parse(c.Args); p.OK {
					if r, ok := f(h, ctx, c, p.Operation); ok {
						return r
					}
				}
				return h.Execute(ctx, c)
			}}
		})(in, out)
	}
}

// editResults serves the reference with each result of a call the parse
// accepts edited by edit.
func editResults(edit func(c tool.Call, op call.Operation, r *protocol.Result)) func(io.Reader, io.Writer) error {
	return wrapTool(func(h server.Handler, ctx context.Context, c tool.Call, op call.Operation) (protocol.Result, bool) {
		r := h.Execute(ctx, c)
		edit(c, op, &r)
		return r, true
	})
}

// rewritingCall serves the reference with each call the parse accepts
// edited before the tool sees it.
func rewritingCall(edit func(c *tool.Call, op call.Operation)) func(io.Reader, io.Writer) error {
	return wrapTool(func(h server.Handler, ctx context.Context, c tool.Call, op call.Operation) (protocol.Result, bool) {
		edit(&c, op)
		return h.Execute(ctx, c), true
	})
}

// rewritingCtx serves the reference with each call's abort signal replaced.
func rewritingCtx(f func(ctx context.Context, op call.Operation) context.Context) func(io.Reader, io.Writer) error {
	return wrapTool(func(h server.Handler, ctx context.Context, c tool.Call, op call.Operation) (protocol.Result, bool) {
		return h.Execute(f(ctx, op), c), true
	})
}

// permissionHandler answers permission requests for edited arguments.
type permissionHandler struct {
	server.Handler
	edit func(map[string]any)
}

func (p permissionHandler) Permission(rules []protocol.Rule, args []byte) protocol.PermissionAnswer {
	return p.Handler.Permission(rules, rewriteArgs(args, p.edit))
}

// permissionArgs serves the reference with the arguments of every
// permission request edited before the permission functions see them.
func permissionArgs(edit func(map[string]any)) func(io.Reader, io.Writer) error {
	return func(in io.Reader, out io.Writer) error {
		return Wrapped(func(h server.Handler) server.Handler { return permissionHandler{h, edit} })(in, out)
	}
}

// launchedHandle returns the handle a launch result names, or "".
func launchedHandle(r protocol.Result) string {
	const lead = "[background] launched with handle "
	if r.IsError || !strings.HasPrefix(r.Text, lead) {
		return ""
	}
	h, _, _ := strings.Cut(strings.TrimPrefix(r.Text, lead), "\n")
	return h
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// renameHandles serves the reference with every handle shown as rename
// makes it, and every handle a call names mapped back.
func renameHandles(rename func(string) string) func(io.Reader, io.Writer) error {
	var mu sync.Mutex
	back := map[string]string{} // shown → real
	shown := map[string]string{}
	return wrapTool(func(h server.Handler, ctx context.Context, c tool.Call, op call.Operation) (protocol.Result, bool) {
		mu.Lock()
		c.Args = rewriteArgs(c.Args, func(m map[string]any) {
			if s, ok := m["handle"].(string); ok {
				if real, ok := back[s]; ok {
					m["handle"] = real
				}
			}
		})
		mu.Unlock()
		r := h.Execute(ctx, c)
		mu.Lock()
		defer mu.Unlock()
		if handle := launchedHandle(r); handle != "" {
			s := rename(handle)
			back[s], shown[handle] = handle, s
		}
		for real, s := range shown {
			r.Text = strings.ReplaceAll(r.Text, real, s)
		}
		return r, true
	})
}

// secondsRE finds the number of seconds in a retrieval's header.
var secondsRE = regexp.MustCompile(`^(\[background\] \S+: (?:running |(?:exited|killed) \(code [^)]*\) after ))([0-9]+\.[0-9])s`)

// retime serves the reference with the seconds of every header rewritten
// by format from the time since the launch, measured by the wrapper from
// just before the launch; an ended entry's time stops at the first
// retrieval that finds it ended, as the reference's does at the end.
func retime(format func(ms int64) string) func(io.Reader, io.Writer) error {
	var mu sync.Mutex
	launched := map[string]time.Time{}
	ended := map[string]int64{}
	return wrapTool(func(h server.Handler, ctx context.Context, c tool.Call, op call.Operation) (protocol.Result, bool) {
		start := time.Now()
		r := h.Execute(ctx, c)
		mu.Lock()
		defer mu.Unlock()
		if handle := launchedHandle(r); handle != "" {
			launched[handle] = start
		}
		if op.Kind == call.Retrieve && !r.IsError {
			if t, ok := launched[op.Handle]; ok {
				if m := secondsRE.FindStringSubmatchIndex(r.Text); m != nil {
					ms := time.Since(t).Milliseconds()
					if !strings.Contains(r.Text[m[2]:m[3]], "running") {
						if e, ok := ended[op.Handle]; ok {
							ms = e
						} else {
							ended[op.Handle] = ms
						}
					}
					r.Text = r.Text[:m[4]] + format(ms) + r.Text[m[5]:]
				}
			}
		}
		return r, true
	})
}

// forgetting serves the reference with entries dropped once a retrieval
// has found them ended: later calls naming them are unknown handles.
func forgetting() func(io.Reader, io.Writer) error {
	var mu sync.Mutex
	gone := map[string]bool{}
	return wrapTool(func(h server.Handler, ctx context.Context, c tool.Call, op call.Operation) (protocol.Result, bool) {
		mu.Lock()
		forgotten := op.Kind != call.Run && gone[op.Handle]
		mu.Unlock()
		if forgotten {
			return protocol.Result{IsError: true, Text: "Unknown background handle: " + op.Handle + ". No background commands have been launched."}, true
		}
		r := h.Execute(ctx, c)
		if op.Kind == call.Retrieve && !r.IsError && !strings.Contains(firstLineOf(r.Text), ": running ") {
			mu.Lock()
			gone[op.Handle] = true
			mu.Unlock()
		}
		return r, true
	})
}
