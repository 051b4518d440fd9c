package broken

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/background"
	"github.com/apexcheck/apexcheck/ref/call"
	"github.com/apexcheck/apexcheck/ref/output"
	"github.com/apexcheck/apexcheck/ref/server"
	"github.com/apexcheck/apexcheck/ref/shellexec"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// The variants of issue "Verdicts you can trust": defects of the kinds an
// independent review slipped past the suite — JavaScript's truthiness and
// coercion traps in the parse and the header, number formatting, update
// pacing, the byte order mark, and a kill racing its own exit.
func init() {
	Register("call-coerces-command", Variant{
		Defect: "coerces a non-string `command` to text as JavaScript's String() does, so `false` and `0` run as commands (CALL-3)",
		Clause: "CALL-3",
		// {"command":false} runs `false` instead of naming no operation.
		Scenarios: `^call_falsy_values$`,
		Serve: rewritingArgs(func(m map[string]any) {
			switch v := m["command"].(type) {
			case bool:
				m["command"] = strconv.FormatBool(v)
			case float64:
				m["command"] = shellexec.FormatJSNumber(v)
			}
		}),
	})
	Register("call-falsy-handle-empty", Variant{
		Defect:    "tests the handle for emptiness by truthiness (`!input.handle`), so a `handle` of false or 0 is CALL-8's empty handle (CALL-3, CALL-8)",
		Clause:    "CALL-8",
		Scenarios: `^call_falsy_values$`,
		Serve: rewritingArgs(func(m map[string]any) {
			if falsyNonString(m["handle"]) {
				m["handle"] = ""
			}
		}),
	})
	Register("call-presence-ambiguous", Variant{
		Defect:    "decides ambiguity by key presence (`\"command\" in input && \"handle\" in input`), so a placeholder or wrong-typed field beside the other makes the call ambiguous (CALL-3, CALL-5)",
		Clause:    "CALL-5",
		Scenarios: `^call_(falsy_values|placeholders)$`,
		Serve: rewritingArgs(func(m map[string]any) {
			_, hasCommand := m["command"]
			_, hasHandle := m["handle"]
			if !hasCommand || !hasHandle {
				return
			}
			// Make both count, so that the reference answers CALL-5.
			for _, k := range []string{"command", "handle"} {
				if s, ok := m[k].(string); !ok || s == "" {
					m[k] = "present"
				}
			}
		}),
	})
	Register("trims-blank-text", Variant{
		Defect:    "trims `command` and `handle` before testing them for emptiness, so blank text names no operation in the parse and the header (CALL-12, DISP-5)",
		Clause:    "CALL-12",
		Scenarios: `^(call_whitespace_command|display_falsy_values)$`,
		Serve: rewritingCallsAndRenders(func(m map[string]any) {
			for _, k := range []string{"command", "handle"} {
				if s, ok := m[k].(string); ok && strings.TrimSpace(s) == "" {
					m[k] = ""
				}
			}
		}),
	})
	Register("display-falsy-str", Variant{
		Defect:    "reads a header field as `value || \"\"`, so a `command` or `handle` of false or 0 counts as absent instead of invalid (DISP-2)",
		Clause:    "DISP-2",
		Scenarios: `^display_falsy_values$`,
		Serve: filtered(renderArgs(func(m map[string]any) {
			for _, k := range []string{"command", "handle"} {
				if falsyNonString(m[k]) {
					m[k] = nil
				}
			}
		}), nil),
	})
	Register("display-go-float", Variant{
		Defect:    "writes the header's timeout with Go's %g (`1e-07`, `2.147483647e+06`) instead of JavaScript's Number.prototype.toString (DISP-5)",
		Clause:    "DISP-5",
		Scenarios: `^display_(timeout_numbers|run_header)$`,
		Serve:     filtered(nil, goFloatHeader),
	})
	Register("updates-per-chunk", Variant{
		Defect: "streams one update per chunk of output, without the 100 ms throttle (OUT-30)",
		Clause: "OUT-30",
		// 1ns is past as soon as it is set: every chunk is sent at once.
		Scenarios: `^output_updates_paced$`,
		Serve:     withConfig(func(c *tool.Config) { c.UpdateInterval = time.Nanosecond }),
	})
	Register("updates-held-back", Variant{
		Defect:    "holds every update after the first output update back until the command ends (OUT-30)",
		Clause:    "OUT-30",
		Scenarios: `^output_updates_live$`,
		Serve:     withConfig(func(c *tool.Config) { c.UpdateInterval = 24 * time.Hour }),
	})
	Register("keeps-bom", Variant{
		Defect:    "keeps a byte order mark that starts the stream, as Go's decoders do (OUT-16)",
		Clause:    "OUT-16",
		Scenarios: `^output_bom(_file)?$`,
		Serve: withOutput(func(o output.Options) tool.Output {
			return &bomKeeper{
				Output: output.NewAccumulator(o),
				whole:  output.NewAccumulator(output.Options{Dir: o.Dir, MaxLines: unreachable, MaxBytes: unreachable}),
			}
		}),
	})
	Register("bg-kill-answers-first", Variant{
		Clause: "BG-18",
		Defect: "answers a kill call without waiting to see the shell exit, so a retrieval racing the exit says running (BG-18)",
		// With a detached grandchild holding the pipes, the entry ends only
		// after the grace of EXEC-19, far behind the next retrieval.
		Scenarios: `^bg_kill_detached_grandchild$`,
		Serve: withBackground(func(tool.Background) tool.Background {
			return background.New(background.Options{KillWait: time.Nanosecond})
		}),
	})
	Register("bg-ends-at-eof", Variant{
		Clause:    "BG-27",
		Defect:    "ends a background entry only when every process that could write its output is gone, as a reader waiting for end-of-file does, so a detached grandchild keeps it running (BG-27, BG-18)",
		Scenarios: `^bg_kill_detached_grandchild$`,
		Serve: withBackground(func(b tool.Background) tool.Background {
			return &eofEnded{Background: b, ids: map[string]string{}}
		}),
	})
}

// falsyNonString reports whether v, a decoded JSON value, is false or 0:
// falsy to JavaScript, yet neither null nor "".
func falsyNonString(v any) bool {
	return v == false || v == float64(0)
}

// withConfig serves the reference with its configuration changed by edit.
func withConfig(edit func(*tool.Config)) func(io.Reader, io.Writer) error {
	return func(in io.Reader, out io.Writer) error {
		return server.ReferenceWith(edit).Serve(in, out)
	}
}

// filtered serves the reference with every request line passed through
// req and every response line through resp, when they are not nil. It is
// how a variant changes what the tool's Handler does not carry, the
// header of a render request.
func filtered(req, resp func([]byte) []byte) func(io.Reader, io.Writer) error {
	return func(in io.Reader, out io.Writer) error {
		if req != nil {
			in = lineFilter(in, req)
		}
		var wg sync.WaitGroup
		if resp != nil {
			pr, pw := io.Pipe()
			dst := out
			wg.Add(1)
			go func() {
				defer wg.Done()
				io.Copy(dst, lineFilter(pr, resp))
			}()
			defer wg.Wait()
			defer pw.Close()
			out = pw
		}
		return server.Reference().Serve(in, out)
	}
}

// lineFilter returns a reader of r's lines, each passed through edit.
func lineFilter(r io.Reader, edit func([]byte) []byte) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReader(r)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				line = append(edit(bytes.TrimSuffix(line, []byte("\n"))), '\n')
				if _, werr := pw.Write(line); werr != nil {
					return
				}
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

// editMessage decodes a protocol message, lets edit change its members,
// and encodes it again; lines that are not an object pass untouched.
func editMessage(line []byte, edit func(map[string]json.RawMessage)) []byte {
	var msg map[string]json.RawMessage
	if json.Unmarshal(line, &msg) != nil || msg == nil {
		return line
	}
	edit(msg)
	out, err := json.Marshal(msg)
	if err != nil {
		return line
	}
	return out
}

// messageType is the "type" member of a decoded message.
func messageType(msg map[string]json.RawMessage) string {
	var t string
	json.Unmarshal(msg["type"], &t)
	return t
}

// renderArgs is a request filter that rewrites the arguments of render
// requests with edit.
func renderArgs(edit func(map[string]any)) func([]byte) []byte {
	return func(line []byte) []byte {
		return editMessage(line, func(msg map[string]json.RawMessage) {
			if messageType(msg) == protocol.TypeRender && msg["arguments"] != nil {
				msg["arguments"] = rewriteArgs(msg["arguments"], edit)
			}
		})
	}
}

// rewritingCallsAndRenders serves the reference with the raw arguments of
// every call and render request edited by edit, as if the one parse both
// read had the defect.
func rewritingCallsAndRenders(edit func(map[string]any)) func(io.Reader, io.Writer) error {
	return filtered(func(line []byte) []byte {
		return editMessage(line, func(msg map[string]json.RawMessage) {
			switch messageType(msg) {
			case protocol.TypeCall, protocol.TypeRender:
				if msg["arguments"] != nil {
					msg["arguments"] = rewriteArgs(msg["arguments"], edit)
				}
			}
		})
	}, nil)
}

var timeoutSuffix = regexp.MustCompile(`\(timeout (.+)s\)$`)

// goFloatHeader is a response filter that rewrites the timeout of a render
// answer's header with Go's shortest %g.
func goFloatHeader(line []byte) []byte {
	return editMessage(line, func(msg map[string]json.RawMessage) {
		var header string
		if messageType(msg) != protocol.TypeRender || json.Unmarshal(msg["header"], &header) != nil {
			return
		}
		m := timeoutSuffix.FindStringSubmatchIndex(header)
		if m == nil {
			return
		}
		f, err := strconv.ParseFloat(header[m[2]:m[3]], 64)
		if err != nil {
			return
		}
		header = header[:m[2]] + strconv.FormatFloat(f, 'g', -1, 64) + header[m[3]:]
		msg["header"], _ = json.Marshal(header)
	})
}

// bomKeeper is the reference accumulator whose tail is computed from a
// text that keeps a byte order mark starting the stream. A second
// accumulator with unreachable limits keeps the whole text for it (test
// outputs are small), fed the mark twice so that it drops one.
type bomKeeper struct {
	tool.Output
	whole   *output.Accumulator
	mu      sync.Mutex
	head    []byte // the stream's first bytes, until three are known
	decided bool
}

var bomBytes = []byte("\uFEFF")

func (b *bomKeeper) Write(p []byte) (int, error) {
	b.mu.Lock()
	if b.decided {
		b.whole.Write(p)
	} else {
		b.head = append(b.head, p...)
		if len(b.head) >= len(bomBytes) {
			b.decide()
		}
	}
	b.mu.Unlock()
	return b.Output.Write(p)
}

// decide feeds the whole-text accumulator the stream's head, with a second
// mark in front when it starts with one.
func (b *bomKeeper) decide() {
	b.decided = true
	if bytes.HasPrefix(b.head, bomBytes) {
		b.whole.Write(bomBytes)
	}
	b.whole.Write(b.head)
	b.head = nil
}

func (b *bomKeeper) Finish() {
	b.mu.Lock()
	if !b.decided {
		b.decide()
	}
	b.mu.Unlock()
	b.whole.Finish()
	b.Output.Finish()
}

func (b *bomKeeper) Snapshot() output.Snapshot {
	s := b.Output.Snapshot()
	s.Result = output.TruncateTail(b.whole.Snapshot().Content, output.DefaultMaxLines, output.DefaultMaxBytes)
	return s
}

func (b *bomKeeper) Close() error {
	b.whole.Close()
	return b.Output.Close()
}

// entryVariable marks every process of one background entry, so that
// eofEnded can tell whether any of them, detached ones included, is alive:
// the processes that may still hold the entry's pipes open.
const entryVariable = "APEXCHECK_BROKEN_ENTRY"

// eofEnded reports an entry running, and kills it as running, while any
// process it started is alive, whatever the reference registry has seen.
type eofEnded struct {
	tool.Background
	mu  sync.Mutex
	ids map[string]string // handle → entryVariable value
}

func (e *eofEnded) Launch(spec tool.Spawn) (string, error) {
	var b [8]byte
	rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	spec.Env = append(append([]string(nil), spec.Env...), entryVariable+"="+id)
	h, err := e.Background.Launch(spec)
	if err == nil {
		e.mu.Lock()
		e.ids[h] = id
		e.mu.Unlock()
	}
	return h, err
}

var endedHeader = regexp.MustCompile(`^(\[background\] \S+: )(?:exited|killed) \(code -?[0-9]+\) after ([0-9]+\.[0-9])s$`)

func (e *eofEnded) Handle(op call.Operation) protocol.Result {
	res := e.Background.Handle(op)
	e.mu.Lock()
	id, ok := e.ids[op.Handle]
	e.mu.Unlock()
	if !ok || res.IsError || !entryAlive(id) {
		return res
	}
	if op.Kind == call.Kill {
		return protocol.Result{Text: "[background] " + op.Handle + ": kill signal sent"}
	}
	header, body, _ := strings.Cut(res.Text, "\n\n")
	if m := endedHeader.FindStringSubmatch(header); m != nil {
		res.Text = m[1] + "running " + m[2] + "s\n\n" + body
		if res.Details != nil && res.Details.Execution != nil {
			res.Details.Execution.ExitCode = nil
		}
	}
	return res
}

// entryAlive reports whether a process carrying the entry's mark is alive.
func entryAlive(id string) bool {
	want := []byte(entryVariable + "=" + id + "\x00")
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + d.Name() + "/environ")
		if err == nil && bytes.Contains(env, want) {
			return true
		}
	}
	return false
}
