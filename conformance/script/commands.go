package script

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/apexcheck/apexcheck/conformance/client"
	"github.com/apexcheck/apexcheck/conformance/internal/linediff"
	"github.com/apexcheck/apexcheck/protocol"
	"github.com/rogpeppe/go-internal/testscript"
)

// Commands returns the custom commands scenarios use, for testscript's
// Params.Cmds. Each is documented in spec/INTERPRETING.md; in brief:
//
//	impl start [-unset NAME]... [NAME=VALUE]...   start the implementation
//	      [-pty fg|bg] [-bin NAME=[FILE]]...       under a terminal, or with /bin changed (pathprobe.go),
//	      [-tmpfs BYTES]                           or with TMPDIR a tmpfs of BYTES (pathprobe.go)
//	impl shutdown | close | kill                  stop it three ways
//	impl status                                   print how it ended ("exited with status 0", ...) or "still running"
//	call [flags] JSON                             one tool call; stdout is its text
//	     [-rss-grown-under MIB]                   failing as soon as the memory grew by MIB since rss mark (output.go)
//	     [-within D -since-exit LOG]              the bound counting from the fake shell's exit (bound.go)
//	await [-within D] NAME                        wait for an async call
//	await -within D -since-exit LOG NAME          ... the bound counting from the fake shell's exit (bound.go)
//	abort [-id NAME] NAME                         abort a call (NAME of a call, else a raw id)
//	send [-id ID] LINE                            send a raw request line; its answer becomes the last response
//	send -pad N LINE                              the line followed by N spaces, to send a long line
//	send -dup LINE                                send a raw line reusing the id of a call in flight; its error answer becomes the last response
//	field PATH [JSON]                             assert (or print) a field of the last response
//	text [-file F] [STRING]                       assert the last result's exact text
//	contains [-if-result] STRING                  the last result's text contains STRING (portable.go)
//	textsize [-max N] [-min N]                    the last result's text is within N bytes (portable.go)
//	updates                                       print the last call's updates
//	render JSON                                   print a call's display header
//	permission [-rules F] JSON                    print every permission function's answer
//	permission -async -id NAME [-args F] ...      send a permission request without waiting (await NAME)
//	order NAME NAME...                            the named requests were answered in this order
//	permcorpus [-local] [-class C] [-cites ID] F  run permission corpus entries, report each disagreement (permcorpus.go)
//	no-survivors [-within D]                      no process the implementation started is alive
//	waitfile [-within D] FILE [REGEXP]            wait for a file (and a line in it)
//	capture NAME REGEXP                           set $NAME from the last result's text
//	poll [-within D] JSON REGEXP                  repeat a call until its text matches
//	fullfile [-var NAME] [-perm MODE] [DEST]      check (and copy) the last result's full-output file
//	rss mark | rss -grown-under MIB               the implementation's peak memory does not grow
//	tty type|unread TEXT | foreground | stopped   the terminal of `impl start -pty` (tty_linux.go)
//	pacing INTERVAL                               the last call's updates were at most one per INTERVAL (pacing.go)
//	waitupdate [-within D] NAME REGEXP            wait for an update of an async call (pacing.go)
//	clock NAME                                    set $NAME to the runner's monotonic time in seconds (clock.go)
//	elapsed [-ppm N] S A B C D SLACK              S seconds is within stamps A→B and C→D, ± SLACK (clock.go)
//	fakeshell [flags] FILE | show [-n N] LOG      install a fake login shell, show its log (needs SelfExe)
//	bound [-shell LOG] [-after D] BOUND CMD ...   CMD's failure stands only on evidence the implementation missed BOUND, else inconclusive (bound.go)
func Commands() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"impl":         cmdImpl,
		"call":         cmdCall,
		"await":        cmdAwait,
		"abort":        cmdAbort,
		"send":         cmdSend,
		"field":        cmdField,
		"text":         cmdText,
		"contains":     cmdContains,
		"textsize":     cmdTextsize,
		"updates":      cmdUpdates,
		"render":       cmdRender,
		"permission":   cmdPermission,
		"order":        cmdOrder,
		"permcorpus":   cmdPermcorpus,
		"no-survivors": cmdNoSurvivors,
		"waitfile":     cmdWaitfile,
		"capture":      cmdCapture,
		"poll":         cmdPoll,
		"fullfile":     cmdFullfile,
		"rss":          cmdRss,
		"tty":          cmdTTY,
		"pacing":       cmdPacing,
		"waitupdate":   cmdWaitupdate,
		"clock":        cmdClock,
		"elapsed":      cmdElapsed,
		"bound":        cmdBound,
	}
}

func newFlags(ts *testscript.TestScript, name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

func parseFlags(ts *testscript.TestScript, fs *flag.FlagSet, args []string) {
	if err := fs.Parse(args); err != nil {
		ts.Fatalf("usage: %s: %v", fs.Name(), err)
	}
}

func cmdImpl(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	if neg {
		ts.Fatalf("impl does not support negation")
	}
	if len(args) == 0 {
		ts.Fatalf("usage: impl start|shutdown|close|kill|status")
	}
	bound := s.cfg.bound()
	switch args[0] {
	case "start":
		unset := map[string]bool{}
		var overrides []string
		var opt startOptions
		for i := 1; i < len(args); i++ {
			switch {
			case args[i] == "-unset" && i+1 < len(args):
				unset[args[i+1]] = true
				i++
			case (args[i] == "-pty" || args[i] == "-bin" || args[i] == "-tmpfs") && i+1 < len(args):
				opt.set(ts, args[i], args[i+1])
				i++
			case strings.Contains(args[i], "="):
				overrides = append(overrides, args[i])
			default:
				ts.Fatalf("usage: impl start [-unset NAME]... [-pty fg|bg] [-bin NAME=[FILE]]... [-tmpfs BYTES] [NAME=VALUE]...")
			}
		}
		s.startWith(opt, overrides, unset)
	case "shutdown":
		s.abortedAll = true // PROTO-9 aborts every call in flight
		s.check(s.ensureClient().Shutdown(bound))
	case "close":
		s.abortedAll = true // PROTO-10
		s.check(s.ensureClient().CloseStdin(bound))
	case "kill":
		s.ensureClient().Kill()
	case "status":
		// How the process ended, or "still running", for PROTO-19.
		fmt.Fprintln(ts.Stdout(), s.ensureClient().ExitStatus())
	default:
		ts.Fatalf("impl: unknown subcommand %q", args[0])
	}
}

// callFlags are the flags of `call`.
type callFlags struct {
	id, cwd, prefix, shell, session string
	async, updates, evidence        bool
	aborted                         bool
	noexpose                        bool
	within                          time.Duration
	repeat                          string
	times                           int
	rssUnder                        int64
	sinceExit                       string
}

func cmdCall(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	var f callFlags
	fs := newFlags(ts, "call")
	fs.StringVar(&f.id, "id", "", "name the call (for await and abort)")
	fs.BoolVar(&f.async, "async", false, "do not wait for the result")
	fs.StringVar(&f.cwd, "cwd", "", "working directory (default $WORK)")
	fs.StringVar(&f.prefix, "prefix", "", "commandPrefix tool option")
	fs.StringVar(&f.shell, "shell", "", "shellPath tool option")
	fs.BoolVar(&f.noexpose, "noexpose", false, "exposeSessionEnvironment: false")
	fs.StringVar(&f.session, "session", "", "file holding the session context as JSON")
	fs.BoolVar(&f.updates, "updates", false, "ask for streamed updates")
	fs.BoolVar(&f.evidence, "evidence", false, "ask for the evidence record")
	fs.BoolVar(&f.aborted, "aborted", false, "hand the tool an already-aborted signal")
	fs.DurationVar(&f.within, "within", 0, "bound on the wait for the result")
	fs.StringVar(&f.repeat, "repeat", "", "text that replaces @REPEAT@ in JSON, -times times over")
	fs.IntVar(&f.times, "times", 1, "how many times -repeat's text is repeated")
	fs.Int64Var(&f.rssUnder, "rss-grown-under", 0, "fail as soon as the implementation's own peak memory has grown by MIB since rss mark")
	fs.StringVar(&f.sinceExit, "since-exit", "", "fake shell log: -within counts from its last shell's exit")
	parseFlags(ts, fs, args)
	if fs.NArg() != 1 {
		ts.Fatalf("usage: call [flags] JSON")
	}
	arg := fs.Arg(0)
	if f.repeat != "" {
		// A command of hundreds of kilobytes cannot be written in a
		// script line; it is built here, escaped for a JSON string.
		if !strings.Contains(arg, "@REPEAT@") || f.times < 1 {
			ts.Fatalf("call: -repeat needs @REPEAT@ in JSON and -times of 1 or more")
		}
		quoted, _ := json.Marshal(strings.Repeat(f.repeat, f.times))
		arg = strings.Replace(arg, "@REPEAT@", string(quoted[1:len(quoted)-1]), 1)
	}
	raw := []byte(arg)
	req := protocol.Request{Type: protocol.TypeCall, ID: f.id, Arguments: raw,
		Cwd: f.cwd, Updates: f.updates, Evidence: f.evidence, Aborted: f.aborted}
	if req.Cwd == "" {
		req.Cwd = ts.Getenv("WORK")
	} else {
		req.Cwd = ts.MkAbs(req.Cwd)
	}
	if !json.Valid(raw) {
		// Malformed shapes are sent as they are; a string that is not JSON
		// at all is sent as a JSON string.
		quoted, _ := json.Marshal(string(raw))
		req.Arguments = quoted
	}
	if f.prefix != "" || f.shell != "" || f.noexpose {
		req.Options = &protocol.ToolOptions{CommandPrefix: f.prefix, ShellPath: f.shell}
		if f.noexpose {
			no := false
			req.Options.ExposeSessionEnvironment = &no
		}
	}
	if f.session != "" {
		var sess protocol.Session
		if err := json.Unmarshal([]byte(ts.ReadFile(f.session)), &sess); err != nil {
			ts.Fatalf("call: session file %s: %v", f.session, err)
		}
		req.Session = &sess
	}
	if f.sinceExit != "" && (f.within <= 0 || f.async || f.rssUnder != 0) {
		ts.Fatalf("call: -since-exit needs -within, a synchronous call and no -rss-grown-under")
	}
	if f.rssUnder < 0 || f.rssUnder > 0 && (f.async || s.rssMark == 0) {
		ts.Fatalf("call: -rss-grown-under needs a positive MIB, a synchronous call and an rss mark before it")
	}
	c := s.ensureClient()
	p, err := c.Send(req)
	s.check(err)
	if f.id != "" {
		s.calls[f.id] = p
	}
	if f.async {
		if neg {
			ts.Fatalf("call -async: negate the await, not the call")
		}
		if f.id == "" {
			ts.Fatalf("call -async needs -id")
		}
		return
	}
	if f.sinceExit != "" {
		s.awaitSinceExit(neg, p, ts.MkAbs(f.sinceExit), f.within)
		return
	}
	if f.rssUnder > 0 {
		// The watch spends part of the call's bound; the wait that follows
		// gets only what is left of it.
		sent := time.Now()
		s.watchRSS(p, s.callBound(f.within), f.rssUnder)
		s.finishCallSince(neg, p, f.within, sent)
		return
	}
	s.finishCall(neg, p, f.within)
}

func cmdAwait(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	fs := newFlags(ts, "await")
	within := fs.Duration("within", 0, "bound on the wait")
	sinceExit := fs.String("since-exit", "", "fake shell log: -within counts from its last shell's exit")
	parseFlags(ts, fs, args)
	if fs.NArg() != 1 || *sinceExit != "" && *within <= 0 {
		ts.Fatalf("usage: await [-within D [-since-exit LOG]] NAME")
	}
	p := s.calls[fs.Arg(0)]
	if p == nil {
		ts.Fatalf("await: no call named %q", fs.Arg(0))
	}
	if p.Request.Type == protocol.TypePermission {
		if neg {
			ts.Fatalf("await: a permission answer is not negated")
		}
		var resp protocol.Response
		var err error
		if *within == 0 {
			resp, err = s.client.Await(p, s.cfg.bound())
		} else {
			resp, err = s.client.AwaitWithin(p, *within)
		}
		s.check(err)
		s.lastNote = p.CaseNote()
		if resp.Type != protocol.TypePermission {
			s.errored("permission answered with type %q%s", resp.Type, s.lastNote)
		}
		s.last = &resp
		s.printPermission(resp)
		return
	}
	if *sinceExit != "" {
		s.awaitSinceExit(neg, p, ts.MkAbs(*sinceExit), *within)
		return
	}
	s.finishCall(neg, p, *within)
}

// finishCall waits for a call's result, records it and checks its error
// flag against neg.
//
// A scenario's own -within bound is a behaviour it checks (the call ends
// although a grandchild holds its pipes, a timeout ends the command): a
// call that misses it fails the scenario, charged to the clauses it
// proves. Without -within the bound is the runner's --bound, the
// conversation's safety net, and a miss is an errored hang. Either way
// the implementation is stopped: a call still running cannot be judged
// further.
func (s *state) finishCall(neg bool, p *client.Pending, within time.Duration) {
	s.finishCallSince(neg, p, within, time.Now())
}

// evidenceNote is what the machine showed of the implementation when a
// scenario's bound passed, for the failure's message: the scenario's
// bound is a behaviour and stands, and the note lets a reader see what
// the implementation was doing.
func evidenceNote(miss *client.NoAnswerError) string {
	if miss.Evidence == "" {
		return ""
	}
	return "\nwhen the bound passed: " + miss.Evidence
}

// callBound is the bound on a call's wait: the scenario's own -within, else
// the runner's --bound.
func (s *state) callBound(within time.Duration) time.Duration {
	if within != 0 {
		return within
	}
	return s.cfg.bound()
}

// finishCallSince is finishCall for a wait that began at start: the call's
// bound counts from then.
func (s *state) finishCallSince(neg bool, p *client.Pending, within time.Duration, start time.Time) {
	own := within != 0
	within = s.callBound(within)
	await := s.client.Await
	if own {
		await = s.client.AwaitWithin
	}
	resp, err := await(p, max(within-time.Since(start), time.Millisecond))
	var miss *client.NoAnswerError
	if own && errors.As(err, &miss) {
		s.ts.Fatalf("no result for call %q within %v, the scenario's bound: the call did not end in time (the implementation was stopped)%s%s",
			miss.ID, within, p.CaseNote(), evidenceNote(miss))
	}
	s.check(err)
	s.ts.Logf("result after %.2fs", time.Since(start).Seconds())
	note := p.CaseNote()
	if resp.Type == protocol.TypeError && resp.Error != nil {
		s.errored("call answered with a protocol error: %s: %s", resp.Error.Code, resp.Error.Message)
	}
	if resp.Type == protocol.TypeResult && resp.Cancelled && resp.Result == nil {
		// The tool gave no result for its aborted call (PROTO-24): not a
		// success, and no text to check. Only an aborted call may end so.
		if !s.wasAborted(p) {
			s.errored("call answered cancelled with no result, but it was never aborted (PROTO-24)%s", note)
		}
		s.last, s.lastCall = &resp, p
		s.ts.Logf("the call ended by its abort with no result (cancelled, PROTO-24)")
		if !neg {
			s.ts.Fatalf("call ended by its abort with no result (cancelled), want a success%s", note)
		}
		return
	}
	if resp.Type != protocol.TypeResult || resp.Result == nil {
		s.errored("call answered with type %q and no result%s", resp.Type, note)
	}
	s.last, s.lastCall = &resp, p
	io.WriteString(s.ts.Stdout(), resp.Result.Text)
	switch {
	case resp.Result.IsError && !neg:
		s.ts.Fatalf("call returned an error result%s:\n%s", note, resp.Result.Text)
	case !resp.Result.IsError && neg:
		s.ts.Fatalf("call succeeded, want an error result%s; text:\n%s", note, resp.Result.Text)
	}
}

func cmdAbort(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	fs := newFlags(ts, "abort")
	id := fs.String("id", "", "name the abort request (for order)")
	parseFlags(ts, fs, args)
	if fs.NArg() != 1 {
		ts.Fatalf("usage: abort [-id NAME] NAME")
	}
	target := fs.Arg(0)
	if p := s.calls[target]; p != nil {
		target = p.ID
	}
	p, err := s.ensureClient().Send(protocol.Request{Type: protocol.TypeAbort, ID: *id, Target: target})
	s.check(err)
	s.aborted[target] = true
	if *id != "" {
		s.calls[*id] = p
	}
	resp, err := s.client.Await(p, s.cfg.bound())
	s.check(err)
	if resp.Type != protocol.TypeAbort {
		s.errored("abort answered with type %q", resp.Type)
	}
}

// cmdSend sends one raw line and waits for the answer carrying ID (the
// member named exactly "id" of LINE when it is a JSON object with a string
// id, else "", unless -id says otherwise, even -id ""). The answer becomes
// the last response, for field. It is how scenarios check an implementation's answers to
// malformed requests (PROTO-15).
func cmdSend(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	fs := newFlags(ts, "send")
	id := fs.String("id", "", "the id the answer carries")
	dup := fs.Bool("dup", false, "the line reuses the id of a call in flight (PROTO-5)")
	pad := fs.Int("pad", 0, "append `N` spaces to the line (JSON allows them), to send a long line")
	parseFlags(ts, fs, args)
	if fs.NArg() != 1 || *pad < 0 {
		ts.Fatalf("usage: send [-id ID] [-dup] [-pad N] LINE")
	}
	line := append([]byte(fs.Arg(0)), bytes.Repeat([]byte{' '}, *pad)...)
	// The line's own id, by its exact name (PROTO-20: an "ID" is not an
	// id), unless -id is given, even as ''.
	want := *id
	idGiven := false
	fs.Visit(func(f *flag.Flag) { idGiven = idGiven || f.Name == "id" })
	if !idGiven {
		want = lineID(line)
	}
	send := s.ensureClient().SendRaw
	if *dup {
		send = s.client.SendDuplicate
	}
	p, err := send(line, want)
	s.check(err)
	resp, err := s.client.Await(p, s.cfg.bound())
	s.check(err)
	s.last = &resp
}

// lineID is the member named exactly "id" of line when line is a JSON
// object and that member a string, else "": what an implementation reading
// the line as JSON.parse does answers under (PROTO-20).
func lineID(line []byte) string {
	m, err := protocol.Members(line)
	if err != nil {
		return ""
	}
	var id string
	if json.Unmarshal(m["id"], &id) != nil {
		return ""
	}
	return id
}

// cmdField asserts a field of the last response. PATH is dot-separated
// (array elements by index); JSON is compared as a JSON value. With no
// JSON, the field's value is printed to stdout. Negated, it asserts the
// field is absent (or, with JSON, differs).
func cmdField(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	if len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: field PATH [JSON]")
	}
	if s.last == nil {
		ts.Fatalf("field: no response yet")
	}
	// The message as the implementation sent it: a struct round trip would
	// turn an absent member into a present null (PROTO-8's exitCode).
	var root any
	var err error
	if s.last.Raw != nil {
		err = json.Unmarshal(s.last.Raw, &root)
	} else {
		root, err = toGeneric(s.last)
	}
	ts.Check(err)
	value, ok := lookup(root, args[0])
	if len(args) == 1 {
		switch {
		case neg && ok:
			ts.Fatalf("field %s is present: %s", args[0], mustJSON(value))
		case !neg && !ok:
			ts.Fatalf("field %s is absent", args[0])
		case ok:
			fmt.Fprintln(ts.Stdout(), mustJSON(value))
		}
		return
	}
	var want any
	if err := json.Unmarshal([]byte(args[1]), &want); err != nil {
		ts.Fatalf("field: want %q is not JSON: %v", args[1], err)
	}
	equal := ok && mustJSON(value) == mustJSON(want)
	switch {
	case !neg && !ok:
		ts.Fatalf("field %s is absent, want %s", args[0], mustJSON(want))
	case !neg && !equal:
		ts.Fatalf("field %s = %s, want %s", args[0], mustJSON(value), mustJSON(want))
	case neg && equal:
		ts.Fatalf("field %s = %s, want anything else", args[0], mustJSON(value))
	}
}

// cmdText asserts the last result's text exactly: against an argument
// in which Go escapes (\n, \t, \\, \xNN, \u…) stand for their characters,
// since testscript arguments cannot hold a newline, or against a file whose one final newline is not part of the
// text (txtar files always end in one). With -env, $VAR in the file is
// expanded from the scenario's environment.
func cmdText(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	fs := newFlags(ts, "text")
	file := fs.String("file", "", "file holding the expected text")
	expand := fs.Bool("env", false, "expand $VAR and ${VAR} in the file, as cmpenv does")
	parseFlags(ts, fs, args)
	var want string
	switch {
	case *file != "" && fs.NArg() == 0:
		want = strings.TrimSuffix(ts.ReadFile(*file), "\n")
		if *expand {
			want = os.Expand(want, ts.Getenv)
		}
	case *file == "" && fs.NArg() == 1:
		var err error
		if want, err = strconv.Unquote(`"` + strings.ReplaceAll(fs.Arg(0), `"`, `\"`) + `"`); err != nil {
			ts.Fatalf("text: %q is not a valid escaped string: %v", fs.Arg(0), err)
		}
	default:
		ts.Fatalf("usage: text -file F | text STRING")
	}
	if s.last == nil || s.last.Result == nil {
		ts.Fatalf("text: no result yet")
	}
	got := s.last.Result.Text
	if (got == want) == neg {
		if neg {
			ts.Fatalf("text is %q, want anything else", got)
		}
		// A line diff, not both texts whole: a 2000-line output that
		// differs in one line must show that line.
		ts.Fatalf("text differs (-want +got):\n%s", linediff.Diff(want, got, 3))
	}
}

// cmdUpdates prints the last call's updates, one JSON object per line.
func cmdUpdates(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	if s.lastCall == nil {
		ts.Fatalf("updates: no call yet")
	}
	// Take stdout even when there is nothing to print, so that `stdout`
	// checks this command's output and not an earlier one's.
	w := ts.Stdout()
	for _, u := range s.lastCall.Updates() {
		fmt.Fprintln(w, mustJSON(u))
	}
}

func cmdRender(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	if len(args) != 1 {
		ts.Fatalf("usage: render JSON")
	}
	resp := s.request(protocol.Request{Type: protocol.TypeRender, Arguments: rawArgs(args[0])}, protocol.TypeRender)
	fmt.Fprintln(ts.Stdout(), resp.Header)
}

func cmdPermission(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	fs := newFlags(ts, "permission")
	rulesFile := fs.String("rules", "", "file holding the rules as a JSON array")
	repeat := fs.String("repeat", "", "text that replaces @REPEAT@ in JSON, -times times over")
	times := fs.Int("times", 1, "how many times -repeat's text is repeated")
	argsFile := fs.String("args", "", "file holding the arguments as JSON, instead of the JSON argument")
	id := fs.String("id", "", "name the request (for await and order)")
	async := fs.Bool("async", false, "do not wait for the answer (needs -id; await it)")
	parseFlags(ts, fs, args)
	var raw []byte
	switch {
	case *argsFile == "" && fs.NArg() == 1:
		arg := fs.Arg(0)
		if *repeat != "" {
			// A command of a megabyte cannot sit in a scenario file; it is
			// built here, JSON-escaped, where the scenario marks its place.
			if !strings.Contains(arg, "@REPEAT@") || *times < 1 {
				ts.Fatalf("permission: -repeat needs @REPEAT@ in JSON and -times of 1 or more")
			}
			quoted, _ := json.Marshal(strings.Repeat(*repeat, *times))
			arg = strings.Replace(arg, "@REPEAT@", string(quoted[1:len(quoted)-1]), 1)
		}
		raw = rawArgs(arg)
	case *argsFile != "" && fs.NArg() == 0 && *repeat == "":
		raw = []byte(strings.TrimSpace(ts.ReadFile(*argsFile)))
	default:
		ts.Fatalf("usage: permission [-rules F] [-async -id NAME] [-repeat TEXT -times N] JSON | -args FILE")
	}
	req := protocol.Request{Type: protocol.TypePermission, ID: *id, Arguments: raw, Rules: []protocol.Rule{}}
	if *rulesFile != "" {
		if err := json.Unmarshal([]byte(ts.ReadFile(*rulesFile)), &req.Rules); err != nil {
			ts.Fatalf("permission: rules file %s: %v", *rulesFile, err)
		}
	}
	if *async {
		if neg || *id == "" {
			ts.Fatalf("permission -async needs -id, and is not negated")
		}
		p, err := s.ensureClient().Send(req)
		s.check(err)
		s.calls[*id] = p
		return
	}
	s.printPermission(s.request(req, protocol.TypePermission))
}

// printPermission checks a permission answer and prints it, keys sorted.
func (s *state) printPermission(resp protocol.Response) {
	if resp.Permission == nil {
		s.errored("permission answer carries no permission object%s", s.lastNote)
	}
	fmt.Fprintln(s.ts.Stdout(), mustJSON(resp.Permission))
}

// cmdOrder asserts that the named requests were answered, and in the
// order given: the order in which their final responses were read from
// the implementation's stdout, which no clock or load can blur. It waits
// for each answer (within --bound).
func cmdOrder(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	if len(args) < 2 || neg {
		ts.Fatalf("usage: order NAME NAME...")
	}
	var prev *client.Pending
	var prevName string
	for _, name := range args {
		p := s.calls[name]
		if p == nil {
			ts.Fatalf("order: no request named %q", name)
		}
		_, err := s.client.Await(p, s.cfg.bound())
		s.check(err)
		if prev != nil && p.Seq() < prev.Seq() {
			ts.Fatalf("order: %s was answered before %s (answers %d and %d)", name, prevName, p.Seq(), prev.Seq())
		}
		ts.Logf("%s: answer %d", name, p.Seq())
		prev, prevName = p, name
	}
}

// request sends a non-call request and records its response.
func (s *state) request(req protocol.Request, want string) protocol.Response {
	p, err := s.ensureClient().Send(req)
	s.check(err)
	resp, err := s.client.Await(p, s.cfg.bound())
	s.check(err)
	s.lastNote = p.CaseNote()
	if resp.Type == protocol.TypeError && resp.Error != nil {
		s.errored("%s answered with a protocol error: %s: %s", req.Type, resp.Error.Code, resp.Error.Message)
	}
	if resp.Type != want {
		s.errored("%s answered with type %q%s", req.Type, resp.Type, s.lastNote)
	}
	s.last = &resp
	return resp
}

func rawArgs(arg string) json.RawMessage {
	if json.Valid([]byte(arg)) {
		return json.RawMessage(arg)
	}
	quoted, _ := json.Marshal(arg)
	return quoted
}

// cmdNoSurvivors asserts that no process carrying the scenario's marker is
// alive, other than the implementation itself while it runs: its process
// and the processes that were its own when it answered hello (an MCP
// server behind the bridge, say), before any command ran. It waits up to
// the bound for them to go: killed processes take a moment to be reaped.
func cmdNoSurvivors(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	fs := newFlags(ts, "no-survivors")
	within := fs.Duration("within", 10*time.Second, "how long processes may take to die")
	parseFlags(ts, fs, args)
	exclude := 0
	var own client.Snapshot
	if s.client != nil && !s.client.Exited() {
		exclude, own = s.client.Pid(), s.own
	}
	deadline := time.Now().Add(*within)
	for {
		var pids []int
		for _, pid := range client.Survivors(s.marker, exclude) {
			if !own.Has(pid) {
				pids = append(pids, pid)
			}
		}
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%d process(es) survive: %s", len(pids), describePids(pids))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func describePids(pids []int) string {
	var parts []string
	for _, pid := range pids {
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		parts = append(parts, fmt.Sprintf("%d (%s)", pid, strings.TrimSpace(string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))))
	}
	return strings.Join(parts, ", ")
}

// cmdWaitfile waits for a file to exist and, with REGEXP, to hold a
// matching line: the event a scenario waits on instead of sleeping.
func cmdWaitfile(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	fs := newFlags(ts, "waitfile")
	within := fs.Duration("within", 0, "bound on the wait")
	parseFlags(ts, fs, args)
	if fs.NArg() < 1 || fs.NArg() > 2 {
		ts.Fatalf("usage: waitfile [-within D] FILE [REGEXP]")
	}
	bound := *within
	if bound == 0 {
		bound = s.cfg.bound()
	}
	path := ts.MkAbs(fs.Arg(0))
	var re *regexpMatcher
	if fs.NArg() == 2 {
		re = newRegexpMatcher(ts, fs.Arg(1))
	}
	deadline := time.Now().Add(bound)
	for {
		data, err := os.ReadFile(path)
		if err == nil && (re == nil || re.match(data)) {
			return
		}
		if time.Now().After(deadline) {
			if err != nil {
				ts.Fatalf("waitfile: %s did not appear within %v", fs.Arg(0), bound)
			}
			ts.Fatalf("waitfile: %s holds no line matching %q within %v", fs.Arg(0), fs.Arg(1), bound)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
