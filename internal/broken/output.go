package broken

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/call"
	"github.com/apexcheck/apexcheck/ref/output"
	"github.com/apexcheck/apexcheck/ref/server"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// The output variants replace the reference's output accumulator with one
// that breaks a single rule of spec/output.md and keeps the rest: the real
// accumulator still decodes, counts and writes the full-output file.
func init() {
	Register("trailing-newline-line", Variant{
		Defect: "counts a trailing line feed as the start of one more (empty) line, as pi 0.73.1 did, " +
			"so 2000 lines ending in a line feed are truncated and a kept tail ends in a line feed (OUT-3)",
		Clause:    "OUT-3",
		Scenarios: `^output_(within_limits|line_limit)$`,
		Serve:     withOutput(func(o output.Options) tool.Output { return newRecut(o, splitTail) }),
	})
	Register("keeps-head", Variant{
		Defect:    "keeps the head of a truncated output instead of its tail (OUT-1, OUT-5, OUT-6)",
		Clause:    "OUT-1",
		Scenarios: `^output_(line_limit|byte_limit|long_line)$`,
		Serve:     withOutput(func(o output.Options) tool.Output { return newRecut(o, headOf) }),
	})
	Register("no-full-output-file", Variant{
		Defect:    "keeps no full-output file: a truncated result names none and the file is gone (OUT-20, OUT-24)",
		Clause:    "OUT-24",
		Scenarios: `^output_(line_limit|invalid_utf8|file)$`,
		Serve: withOutput(func(o output.Options) tool.Output {
			return &hiddenFile{Output: output.NewAccumulator(o)}
		}),
	})
	Register("world-readable-file", Variant{
		Defect:    "leaves the full-output file readable by everyone (0644, Node's default under umask 022) (OUT-22)",
		Clause:    "OUT-22",
		Scenarios: `^output_file$`,
		Serve: withOutput(func(o output.Options) tool.Output {
			return &chmodFile{Output: output.NewAccumulator(o)}
		}),
	})
	Register("holds-whole-output", Variant{
		Defect:    "keeps the whole output stream in memory until the command ends (OUT-25)",
		Clause:    "OUT-25",
		Scenarios: `^output_(core_)?memory$`,
		Serve: withOutput(func(o output.Options) tool.Output {
			return &hoarder{Output: output.NewAccumulator(o)}
		}),
	})
}

// withOutput serves the reference with newOutput as its output concern.
func withOutput(newOutput func(output.Options) tool.Output) func(io.Reader, io.Writer) error {
	return func(in io.Reader, out io.Writer) error {
		return server.ReferenceWith(func(c *tool.Config) { c.NewOutput = newOutput }).Serve(in, out)
	}
}

// recut is the reference accumulator with the tail computed by another
// rule. A second accumulator with limits too large to reach keeps the whole
// decoded text for it (test outputs are small).
type recut struct {
	tool.Output
	whole *output.Accumulator
	cut   func(text string, maxLines, maxBytes int) output.Result
}

// unreachable is a limit no test output reaches, so that an accumulator
// never truncates and never opens a file.
const unreachable = 1 << 40

func newRecut(o output.Options, cut func(string, int, int) output.Result) *recut {
	return &recut{
		Output: output.NewAccumulator(o),
		whole:  output.NewAccumulator(output.Options{Dir: o.Dir, MaxLines: unreachable, MaxBytes: unreachable}),
		cut:    cut,
	}
}

func (r *recut) Write(p []byte) (int, error) {
	r.whole.Write(p)
	return r.Output.Write(p)
}

func (r *recut) Finish() {
	r.whole.Finish()
	r.Output.Finish()
}

func (r *recut) Snapshot() output.Snapshot {
	s := r.Output.Snapshot()
	s.Result = r.cut(r.whole.Snapshot().Content, output.DefaultMaxLines, output.DefaultMaxBytes)
	return s
}

func (r *recut) Close() error {
	r.whole.Close()
	return r.Output.Close()
}

// splitTail is pi 0.73.1's truncateTail: the lines are the pieces between
// line feeds, so "a\n" is two lines, "a" and "", and a kept tail ends in
// the trailing line feed.
func splitTail(text string, maxLines, maxBytes int) output.Result {
	lines := strings.Split(text, "\n")
	r := output.Result{TotalLines: len(lines), TotalBytes: int64(len(text)), MaxLines: maxLines, MaxBytes: maxBytes}
	if text == "" {
		r.TotalLines = 0
	}
	if r.TotalLines <= maxLines && len(text) <= maxBytes {
		r.Content, r.OutputLines, r.OutputBytes = text, r.TotalLines, len(text)
		return r
	}
	r.Truncated, r.TruncatedBy = true, output.ByLines
	var kept []string
	size := 0
	for i := len(lines) - 1; i >= 0 && len(kept) < maxLines; i-- {
		cost := len(lines[i])
		if len(kept) > 0 {
			cost++
		}
		if size+cost > maxBytes {
			r.TruncatedBy = output.ByBytes
			if len(kept) == 0 {
				part := lines[i][len(lines[i])-maxBytes:]
				for len(part) > 0 && part[0]&0xC0 == 0x80 {
					part = part[1:]
				}
				kept, size, r.LastLinePartial = []string{part}, len(part), true
			}
			break
		}
		kept = append([]string{lines[i]}, kept...)
		size += cost
	}
	r.Content = strings.Join(kept, "\n")
	r.OutputLines, r.OutputBytes = len(kept), len(r.Content)
	return r
}

// headOf keeps the first lines within the limits instead of the last, and
// the start of a first line that does not fit.
func headOf(text string, maxLines, maxBytes int) output.Result {
	full := output.TruncateTail(text, maxLines, maxBytes)
	if !full.Truncated {
		return full
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	r := full
	r.LastLinePartial, r.TruncatedBy = false, output.ByLines
	var kept []string
	size := 0
	for _, line := range lines {
		if len(kept) == maxLines {
			break
		}
		cost := len(line)
		if len(kept) > 0 {
			cost++
		}
		if size+cost > maxBytes {
			r.TruncatedBy = output.ByBytes
			if len(kept) == 0 {
				part := line[:maxBytes]
				for len(part) > 0 && part[len(part)-1]&0xC0 == 0x80 {
					part = part[:len(part)-1]
				}
				kept, size, r.LastLinePartial = []string{part}, len(part), true
			}
			break
		}
		kept = append(kept, line)
		size += cost
	}
	r.Content = strings.Join(kept, "\n")
	r.OutputLines, r.OutputBytes = len(kept), len(r.Content)
	return r
}

// hiddenFile reports no full-output file and removes the one the
// accumulator wrote.
type hiddenFile struct {
	tool.Output
	mu   sync.Mutex
	path string
}

func (h *hiddenFile) Snapshot() output.Snapshot {
	s := h.Output.Snapshot()
	h.mu.Lock()
	defer h.mu.Unlock()
	if s.FullOutputPath != "" {
		h.path, s.FullOutputPath = s.FullOutputPath, ""
	}
	return s
}

func (h *hiddenFile) Close() error {
	err := h.Output.Close()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.path != "" {
		os.Remove(h.path)
	}
	return err
}

// chmodFile makes the full-output file readable by everyone.
type chmodFile struct{ tool.Output }

func (c *chmodFile) Snapshot() output.Snapshot {
	s := c.Output.Snapshot()
	if s.FullOutputPath != "" {
		os.Chmod(s.FullOutputPath, 0o644)
	}
	return s
}

// hoarder keeps a copy of every byte written until it is closed.
type hoarder struct {
	tool.Output
	mu  sync.Mutex
	all []byte
}

func (h *hoarder) Write(p []byte) (int, error) {
	h.mu.Lock()
	h.all = append(h.all, p...)
	h.mu.Unlock()
	return h.Output.Write(p)
}

func (h *hoarder) Close() error {
	h.mu.Lock()
	h.all = nil
	h.mu.Unlock()
	return h.Output.Close()
}

// outputArea selects every scenario of spec/output.md.
const outputArea = `^output_`

// The realistic output variants are the mistakes of a port of the seed's
// output handling to another language: another decoder, another way of
// counting, a footer or a file handled as another runtime does by default.
// Each is written from its clause, and selects the whole output area.
func init() {
	Register("out-decimal-limit", Variant{
		Defect:    "reads the byte limit \"50KB\" as 50000 bytes, not 51200 (OUT-1's 50 KiB)",
		Clause:    "OUT-1",
		Scenarios: outputArea,
		Serve: withOutput(func(o output.Options) tool.Output {
			o.MaxBytes = 50000
			return output.NewAccumulator(o)
		}),
	})
	Register("out-utf16-units", Variant{
		Defect:    "counts bytes as JavaScript string lengths, UTF-16 code units, so multibyte text counts less and is cut later",
		Clause:    "OUT-2",
		Scenarios: outputArea,
		Serve:     withAltText(nil, func(text string) output.Result { return walkTail(text, tailRules{size: utf16Len}) }),
	})
	Register("out-trims-final-newline", Variant{
		Defect:    "trims the final line feed of output that was not cut (`output.trimEnd()` / `rstrip(\"\\n\")`), so a text within the limits is not kept as it is",
		Clause:    "OUT-4",
		Scenarios: outputArea,
		Serve: withAltText(nil, func(text string) output.Result {
			r := output.TruncateTail(text, output.DefaultMaxLines, output.DefaultMaxBytes)
			if !r.Truncated {
				r.Content = strings.TrimRight(r.Content, "\n")
				r.OutputBytes = len(r.Content)
			}
			return r
		}),
	})
	Register("out-skips-long-line", Variant{
		Defect:    "skips a line too long for the byte limit and goes on taking the shorter lines before it, instead of stopping the walk there",
		Clause:    "OUT-5",
		Scenarios: outputArea,
		Serve:     withAltText(nil, func(text string) output.Result { return walkTail(text, tailRules{skipLong: true}) }),
	})
	Register("out-partial-characters", Variant{
		Defect:    "keeps the last 51200 characters of a partial line, as Python's line[-max_bytes:] slices a str, so the kept part of multibyte text passes the byte limit",
		Clause:    "OUT-6",
		Scenarios: outputArea,
		Serve:     withAltText(nil, func(text string) output.Result { return walkTail(text, tailRules{partialRunes: true}) }),
	})
	Register("out-truncated-by-totals", Variant{
		Defect:    "reports truncatedBy from the totals (\"bytes\" whenever the text has more bytes than the limit) instead of from the walk",
		Clause:    "OUT-7",
		Scenarios: outputArea,
		Serve: withAltText(nil, func(text string) output.Result {
			r := output.TruncateTail(text, output.DefaultMaxLines, output.DefaultMaxBytes)
			if r.Truncated {
				r.TruncatedBy = output.ByLines
				if r.TotalBytes > int64(r.MaxBytes) {
					r.TruncatedBy = output.ByBytes
				}
			}
			return r
		}),
	})
	Register("out-facts-after-cut", Variant{
		Defect:    "computes the truncation facts from the text after cutting it, so totalLines and totalBytes are those of the tail, not of the whole text",
		Clause:    "OUT-8",
		Scenarios: outputArea,
		Serve: withAltText(nil, func(text string) output.Result {
			r := output.TruncateTail(text, output.DefaultMaxLines, output.DefaultMaxBytes)
			r.TotalLines, r.TotalBytes = r.OutputLines, int64(r.OutputBytes)
			return r
		}),
	})
	Register("out-size-rounded", Variant{
		Defect:    "writes sizes with Math.round, no decimal (`50KB`, `2MB`), instead of one decimal always written",
		Clause:    "OUT-9",
		Scenarios: outputArea,
		Serve: editingResultText(func(_ call.Parsed, r *protocol.Result) {
			r.Text = sizePattern.ReplaceAllStringFunc(r.Text, func(s string) string {
				m := sizePattern.FindStringSubmatch(s)
				f, _ := strconv.ParseFloat(m[1], 64)
				return strconv.Itoa(int(f+0.5)) + m[2]
			})
		}),
	})
	Register("out-footer-one-newline", Variant{
		Defect:    "separates the footer from the output by one line feed, not a blank line",
		Clause:    "OUT-10",
		Scenarios: outputArea,
		Serve: editingResultText(func(p call.Parsed, r *protocol.Result) {
			if foreground(p) {
				r.Text = strings.Replace(r.Text, "\n\n[Showing ", "\n[Showing ", 1)
			}
		}),
	})
	Register("out-partial-line-number", Variant{
		Defect:    "numbers the cut line of a partial-line footer by the lines shown (always 1), not by the text's lines",
		Clause:    "OUT-11",
		Scenarios: outputArea,
		Serve: editingResultText(func(p call.Parsed, r *protocol.Result) {
			r.Text = partialLine.ReplaceAllString(r.Text, "${1}1${2}")
		}),
	})
	Register("out-lines-from-zero", Variant{
		Defect:    "computes the first shown line as totalLines − outputLines, numbering from 0, so 2001 lines show `lines 1-2001`",
		Clause:    "OUT-12",
		Scenarios: outputArea,
		Serve: editingResultText(func(p call.Parsed, r *protocol.Result) {
			r.Text = linesRange.ReplaceAllStringFunc(r.Text, func(s string) string {
				m := linesRange.FindStringSubmatch(s)
				n, _ := strconv.Atoi(m[1])
				return "[Showing lines " + strconv.Itoa(n-1) + "-"
			})
		}),
	})
	Register("out-bytes-footer-as-lines", Variant{
		Defect:    "has one footer for both limits: a text cut by bytes shows the by-lines footer, without `(50.0KB limit)`",
		Clause:    "OUT-13",
		Scenarios: outputArea,
		Serve: editingResultText(func(p call.Parsed, r *protocol.Result) {
			r.Text = strings.Replace(r.Text, " (50.0KB limit). ", ". ", 1)
		}),
	})
	Register("out-background-foreground-footer", Variant{
		Defect:    "formats a background retrieval's footer as a foreground result's, so output cut by bytes shows `(50.0KB limit)`",
		Clause:    "OUT-14",
		Scenarios: outputArea,
		Serve: editingResultText(func(p call.Parsed, r *protocol.Result) {
			if !p.OK || p.Operation.Kind != call.Retrieve || r.Details == nil || r.Details.Truncation == nil {
				return
			}
			if t := r.Details.Truncation; t.TruncatedBy == output.ByBytes && !t.LastLinePartial {
				r.Text = retrievalFooter.ReplaceAllString(r.Text, "$1 (50.0KB limit)$2")
			}
		}),
	})
	Register("out-collapsing-decoder", Variant{
		Defect:    "decodes with Go's bytes.ToValidUTF8, one U+FFFD for each run of invalid bytes, instead of one per maximal subpart",
		Clause:    "OUT-15",
		Scenarios: outputArea,
		Serve: withAltText(func(raw []byte, finished bool) string {
			return string(bytes.TrimPrefix(bytes.ToValidUTF8(raw, []byte("\uFFFD")), bomBytes))
		}, nil),
	})
	Register("out-decodes-per-chunk", Variant{
		Defect:    "decodes each chunk on its own (`chunk.toString(\"utf8\")` per data event), so a character split across reads becomes U+FFFD",
		Clause:    "OUT-15",
		Scenarios: outputArea,
		Serve: withOutput(func(o output.Options) tool.Output {
			a := newAltOutput(o, nil, nil)
			a.perChunk = true
			return a
		}),
	})
	Register("out-strips-escapes", Variant{
		Defect:    "sanitises the output: strips ANSI escape sequences and carriage returns, as a port that \"cleans\" terminal output does",
		Clause:    "OUT-17",
		Scenarios: outputArea,
		Serve: withAltText(nil, func(text string) output.Result {
			text = strings.ReplaceAll(ansiEscape.ReplaceAllString(text, ""), "\r", "")
			return output.TruncateTail(text, output.DefaultMaxLines, output.DefaultMaxBytes)
		}),
	})
	Register("out-window-totals", Variant{
		Defect:    "counts a snapshot's totals in the rolling window it keeps (the last 100 KiB, from a line start) instead of in all the text read",
		Clause:    "OUT-18",
		Scenarios: outputArea,
		Serve: withAltText(nil, func(text string) output.Result {
			const window = 2 * output.DefaultMaxBytes
			if len(text) > 2*window {
				text = text[len(text)-window:]
				if i := strings.IndexByte(text, '\n'); i >= 0 {
					text = text[i+1:]
				}
			}
			return output.TruncateTail(text, output.DefaultMaxLines, output.DefaultMaxBytes)
		}),
	})
	Register("out-eager-file", Variant{
		Defect:    "creates the full-output file when the command starts, as a port opening its temp file up front does, so output within the limits leaves one behind",
		Clause:    "OUT-19",
		Scenarios: outputArea,
		Serve: withOutput(func(o output.Options) tool.Output {
			dir := o.Dir
			if dir == "" {
				dir = os.TempDir()
			}
			if f, err := os.OpenFile(filepath.Join(dir, output.DefaultPrefix+"-"+randomHex()+".log"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err == nil {
				f.Close()
			}
			return output.NewAccumulator(o)
		}),
	})
	Register("out-file-decoded", Variant{
		Defect:    "writes the decoded text to the full-output file (a Node stream given strings), not the raw bytes: invalid bytes become U+FFFD and a byte order mark is lost",
		Clause:    "OUT-20",
		Scenarios: outputArea,
		Serve: withOutput(func(o output.Options) tool.Output {
			a := newAltOutput(o, nil, nil)
			a.onClose = func(path, text string) { os.WriteFile(path, []byte(text), 0o600) }
			return a
		}),
	})
	Register("out-timestamp-name", Variant{
		Defect:    "names the full-output file by the time (`apex-code-bash-<Date.now()>.log`) instead of 16 random hexadecimal digits",
		Clause:    "OUT-21",
		Scenarios: outputArea,
		Serve: withOutput(func(o output.Options) tool.Output {
			return &renamedFile{Output: output.NewAccumulator(o)}
		}),
	})
	Register("out-file-removed", Variant{
		Defect:    "removes the full-output file when the call ends, as a temporary file deleted on close (Python's NamedTemporaryFile) is",
		Clause:    "OUT-23",
		Scenarios: outputArea,
		Serve: withOutput(func(o output.Options) tool.Output {
			return &removedFile{Output: output.NewAccumulator(o)}
		}),
	})
	Register("out-last-line-after-newline", Variant{
		Defect:    "measures the cut line as the bytes after the last line feed, as upstream's getLastLineBytes does, so a long line ending in a line feed is `line is 0B`",
		Clause:    "OUT-26",
		Scenarios: outputArea,
		Serve: withOutput(func(o output.Options) tool.Output {
			return &lastLineAfterNewline{Output: output.NewAccumulator(o)}
		}),
	})
	Register("out-updates-every-call", Variant{
		Defect:    "sends the empty first update for every call that listens, before looking at what the call does, so retrievals and launches stream one too",
		Clause:    "OUT-27",
		Scenarios: outputArea,
		Serve: Wrapped(func(h server.Handler) server.Handler {
			return ExecuteFunc{Handler: h, Exec: func(ctx context.Context, c tool.Call) protocol.Result {
				if c.OnUpdate != nil && !foreground(call.Parse(c.Args)) {
					c.OnUpdate(protocol.Result{Text: ""})
				}
				return h.Execute(ctx, c)
			}}
		}),
	})
	Register("out-no-first-update", Variant{
		Defect:    "sends updates only when output arrives: no empty update before the command's first output",
		Clause:    "OUT-28",
		Scenarios: outputArea,
		Serve:     editingUpdates(func(n int, r protocol.Result) (protocol.Result, bool) { return r, n > 0 }),
	})
	Register("out-update-formatted", Variant{
		Defect:    "formats an update like a result: the `(no output)` placeholder when there is no text, and the footer when truncated",
		Clause:    "OUT-29",
		Scenarios: outputArea,
		Serve: editingUpdates(func(n int, r protocol.Result) (protocol.Result, bool) {
			if n == 0 {
				return r, true
			}
			if r.Text == "" {
				r.Text = tool.NoOutput
			}
			if d := r.Details; d != nil && d.Truncation != nil {
				s := output.Snapshot{Result: wireResult(d.Truncation), FullOutputPath: d.FullOutputPath}
				r.Text += "\n\n" + s.Footer()
			}
			return r, true
		}),
	})
	Register("out-drops-final-update", Variant{
		Defect:    "cancels the pending update when the command ends instead of sending it, so output of the last 100 ms never reaches an update",
		Clause:    "OUT-31",
		Scenarios: outputArea,
		Serve: Wrapped(func(h server.Handler) server.Handler {
			return ExecuteFunc{Handler: h, Exec: func(ctx context.Context, c tool.Call) protocol.Result {
				if c.OnUpdate == nil {
					return h.Execute(ctx, c)
				}
				send := c.OnUpdate
				var mu sync.Mutex
				var held *protocol.Result
				c.OnUpdate = func(r protocol.Result) {
					mu.Lock()
					defer mu.Unlock()
					if held != nil {
						send(*held)
					}
					held = &r
				}
				res := h.Execute(ctx, c)
				mu.Lock()
				if held != nil && held.Text == "" && held.Details == nil {
					send(*held) // the first update, sent before any output
				}
				held = nil
				mu.Unlock()
				return res
			}}
		}),
	})
	Register("out-file-lags-updates", Variant{
		Defect: "writes the full-output file through an asynchronous stream (Node's fs.WriteStream) and " +
			"sends an update without waiting for it, so the file an update names lags the text it shows by the last chunk",
		Clause:    "OUT-36",
		Scenarios: outputArea,
		Serve: withOutput(func(o output.Options) tool.Output {
			return &laggingFile{Output: output.NewAccumulator(o)}
		}),
	})
	Register("out-background-file-mode", Variant{
		Defect: "creates a background command's full-output file by a second code path, with the default " +
			"mode (0644 under umask 022), while the foreground's is 0600",
		Clause:    "OUT-22",
		Scenarios: outputArea,
		Serve: editingResultText(func(p call.Parsed, r *protocol.Result) {
			if p.OK && p.Operation.Kind == call.Retrieve && r.Details != nil && r.Details.FullOutputPath != "" {
				os.Chmod(r.Details.FullOutputPath, 0o644)
			}
		}),
	})
	Register("out-names-missing-file", Variant{
		Defect:    "names the full-output file before opening it and reports that name whatever became of the open, as upstream does",
		Clause:    "OUT-33",
		Scenarios: outputArea,
		Serve: editingResultText(func(p call.Parsed, r *protocol.Result) {
			if !strings.Contains(r.Text, output.NoFullOutput) {
				return
			}
			path := filepath.Join(os.TempDir(), output.DefaultPrefix+"-"+randomHex()+".log")
			r.Text = strings.ReplaceAll(r.Text, output.NoFullOutput, "Full output: "+path)
			if r.Details != nil && r.Details.Truncation != nil {
				r.Details.FullOutputPath = path
			}
		}),
	})
}

// foreground reports whether a parse is a foreground run.
func foreground(p call.Parsed) bool {
	return p.OK && p.Operation.Kind == call.Run && !p.Operation.Background
}

var (
	sizePattern     = regexp.MustCompile(`([0-9]+\.[0-9])(KB|MB)`)
	partialLine     = regexp.MustCompile(`(\[Showing last \S+ of line )[0-9]+( \(line is )`)
	linesRange      = regexp.MustCompile(`\[Showing lines ([0-9]+)-`)
	retrievalFooter = regexp.MustCompile(`(\[Showing lines [0-9]+-[0-9]+ of [0-9]+)(\. Full output)`)
	ansiEscape      = regexp.MustCompile("\x1b\\[[0-9;?]*[A-Za-z]")
)

// editingResultText serves the reference with each call's result edited,
// knowing the call's parse.
func editingResultText(edit func(call.Parsed, *protocol.Result)) func(io.Reader, io.Writer) error {
	return Wrapped(func(h server.Handler) server.Handler {
		return ExecuteFunc{Handler: h, Exec: func(ctx context.Context, c tool.Call) protocol.Result {
			r := h.Execute(ctx, c)
			edit(call.Parse(c.Args), &r)
			return r
		}}
	})
}

// editingUpdates serves the reference with each update of a call passed
// through edit with its index; an update edit refuses is not sent.
func editingUpdates(edit func(n int, r protocol.Result) (protocol.Result, bool)) func(io.Reader, io.Writer) error {
	return Wrapped(func(h server.Handler) server.Handler {
		return ExecuteFunc{Handler: h, Exec: func(ctx context.Context, c tool.Call) protocol.Result {
			if send := c.OnUpdate; send != nil {
				var mu sync.Mutex
				n := 0
				c.OnUpdate = func(r protocol.Result) {
					mu.Lock()
					i := n
					n++
					mu.Unlock()
					if r, ok := edit(i, r); ok {
						send(r)
					}
				}
			}
			return h.Execute(ctx, c)
		}}
	})
}

// wireResult is the tail result a wire truncation describes (without the
// content, which the footer does not need).
func wireResult(t *protocol.Truncation) output.Result {
	return output.Result{Truncated: t.Truncated, TruncatedBy: t.TruncatedBy, TotalLines: t.TotalLines,
		TotalBytes: t.TotalBytes, OutputLines: t.OutputLines, OutputBytes: t.OutputBytes,
		LastLinePartial: t.LastLinePartial, MaxLines: t.MaxLines, MaxBytes: t.MaxBytes}
}

func randomHex() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }

// tailRules are the ways walkTail departs from OUT-5 and OUT-6.
type tailRules struct {
	size         func(string) int // the length of a piece of text; nil means bytes
	skipLong     bool             // a line that does not fit is skipped, not the end of the walk
	partialRunes bool             // a partial line keeps maxBytes characters, not bytes
}

// walkTail is OUT-3 to OUT-7's tail with the default limits, bent by rules.
func walkTail(text string, rules tailRules) output.Result {
	maxLines, maxBytes := output.DefaultMaxLines, output.DefaultMaxBytes
	size := rules.size
	if size == nil {
		size = func(s string) int { return len(s) }
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" {
		lines = nil
	}
	r := output.Result{TotalLines: len(lines), TotalBytes: int64(size(text)), MaxLines: maxLines, MaxBytes: maxBytes}
	if r.TotalLines <= maxLines && size(text) <= maxBytes {
		r.Content, r.OutputLines, r.OutputBytes = text, r.TotalLines, size(text)
		return r
	}
	r.Truncated, r.TruncatedBy = true, output.ByLines
	var kept []string
	total := 0
	for i := len(lines) - 1; i >= 0 && len(kept) < maxLines; i-- {
		cost := size(lines[i])
		if len(kept) > 0 {
			cost++
		}
		if total+cost > maxBytes {
			r.TruncatedBy = output.ByBytes
			if len(kept) == 0 && !rules.skipLong {
				line := lines[i]
				var part string
				if rules.partialRunes {
					runes := []rune(line)
					part = string(runes[max(0, len(runes)-maxBytes):])
				} else {
					part = line[len(line)-maxBytes:]
					for len(part) > 0 && !utf8.RuneStart(part[0]) {
						part = part[1:]
					}
				}
				kept, total, r.LastLinePartial = []string{part}, size(part), true
				break
			}
			if rules.skipLong {
				continue
			}
			break
		}
		kept = append([]string{lines[i]}, kept...)
		total += cost
	}
	r.Content = strings.Join(kept, "\n")
	r.OutputLines, r.OutputBytes = len(kept), size(r.Content)
	return r
}

// altCap bounds the raw output an altOutput keeps: past it the variant
// gives up its defect and answers as the reference does, so that the
// memory scenarios (OUT-25) see the reference's memory and a variant is
// caught for its own defect, not for the copy it keeps to model it. The
// outputs where these defects show are smaller (OUT-34's is 2 MiB).
const altCap = 3 << 20

// altOutput is the reference accumulator (file, memory, everything else)
// whose text or tail is computed another way, from the raw stream it
// keeps.
type altOutput struct {
	tool.Output
	decode  func(raw []byte, finished bool) string // nil: the reference's decoder
	cut     func(text string) output.Result        // nil: the reference's tail
	onClose func(path, text string)
	// perChunk decodes each write as a complete stream of its own.
	perChunk bool

	mu       sync.Mutex
	raw      []byte
	chunks   []int // the length of each write, for perChunk
	over     bool
	finished bool
	path     string
}

func newAltOutput(o output.Options, decode func([]byte, bool) string, cut func(string) output.Result) *altOutput {
	return &altOutput{Output: output.NewAccumulator(o), decode: decode, cut: cut}
}

// withAltText serves the reference with its foreground output decoded by
// decode and cut by cut (nil for the reference's way).
func withAltText(decode func([]byte, bool) string, cut func(string) output.Result) func(io.Reader, io.Writer) error {
	return withOutput(func(o output.Options) tool.Output { return newAltOutput(o, decode, cut) })
}

func (a *altOutput) Write(p []byte) (int, error) {
	a.mu.Lock()
	if !a.finished && !a.over {
		if len(a.raw)+len(p) > altCap {
			a.over, a.raw, a.chunks = true, nil, nil
		} else {
			a.raw = append(a.raw, p...)
			a.chunks = append(a.chunks, len(p))
		}
	}
	a.mu.Unlock()
	return a.Output.Write(p)
}

func (a *altOutput) Finish() {
	a.mu.Lock()
	a.finished = true
	a.mu.Unlock()
	a.Output.Finish()
}

// text is the whole text the variant decodes.
func (a *altOutput) text() string {
	switch {
	case a.perChunk:
		return perChunkText(a.raw, a.chunks)
	case a.decode != nil:
		return a.decode(a.raw, a.finished)
	}
	return referenceText(a.raw, a.finished)
}

func (a *altOutput) Snapshot() output.Snapshot {
	s := a.Output.Snapshot()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.path = s.FullOutputPath
	if a.over {
		return s
	}
	text := a.text()
	if a.cut != nil {
		s.Result = a.cut(text)
	} else if a.decode != nil || a.perChunk {
		s.Result = output.TruncateTail(text, output.DefaultMaxLines, output.DefaultMaxBytes)
	}
	return s
}

func (a *altOutput) Close() error {
	err := a.Output.Close()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.onClose != nil && a.path != "" && !a.over {
		a.onClose(a.path, a.text())
	}
	return err
}

// referenceText decodes raw as the reference does.
func referenceText(raw []byte, finished bool) string {
	acc := output.NewAccumulator(output.Options{MaxLines: unreachable, MaxBytes: unreachable})
	acc.Write(raw)
	if finished {
		acc.Finish()
	}
	return acc.Snapshot().Content
}

// perChunkText decodes each chunk as a complete stream of its own (with a
// byte order mark dropped only at the start of the first).
func perChunkText(raw []byte, chunks []int) string {
	var b strings.Builder
	for i, n := range chunks {
		chunk := raw[:n]
		raw = raw[n:]
		b.WriteString(referenceTextNoBOM(chunk, i == 0))
	}
	return b.String()
}

// referenceTextNoBOM decodes one chunk completely; a byte order mark
// starting it is dropped only when it starts the stream.
func referenceTextNoBOM(chunk []byte, first bool) string {
	if !first && bytes.HasPrefix(chunk, bomBytes) {
		return "\uFEFF" + referenceText(chunk[len(bomBytes):], true)
	}
	return referenceText(chunk, true)
}

// renamedFile renames the full-output file to a name made from the clock
// the first time a snapshot names it, and reports that name.
type renamedFile struct {
	tool.Output
	mu       sync.Mutex
	from, to string
}

func (r *renamedFile) Snapshot() output.Snapshot {
	s := r.Output.Snapshot()
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.FullOutputPath == "" {
		return s
	}
	if r.from == "" {
		to := filepath.Join(filepath.Dir(s.FullOutputPath), output.DefaultPrefix+"-"+strconv.FormatInt(time.Now().UnixMilli(), 10)+".log")
		if os.Rename(s.FullOutputPath, to) == nil {
			r.from, r.to = s.FullOutputPath, to
		}
	}
	if s.FullOutputPath == r.from {
		s.FullOutputPath = r.to
	}
	return s
}

// removedFile removes the full-output file when the stream is closed.
type removedFile struct {
	tool.Output
	mu   sync.Mutex
	path string
}

func (r *removedFile) Snapshot() output.Snapshot {
	s := r.Output.Snapshot()
	r.mu.Lock()
	r.path = s.FullOutputPath
	r.mu.Unlock()
	return s
}

func (r *removedFile) Close() error {
	err := r.Output.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.path != "" {
		os.Remove(r.path)
	}
	return err
}

// lastLineAfterNewline reports the last line's size as 0 when the stream
// ends with a line feed.
type lastLineAfterNewline struct {
	tool.Output
	mu   sync.Mutex
	last byte
}

func (l *lastLineAfterNewline) Write(p []byte) (int, error) {
	if len(p) > 0 {
		l.mu.Lock()
		l.last = p[len(p)-1]
		l.mu.Unlock()
	}
	return l.Output.Write(p)
}

func (l *lastLineAfterNewline) Snapshot() output.Snapshot {
	s := l.Output.Snapshot()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last == '\n' {
		s.LastLineBytes = 0
	}
	return s
}

// laggingFile cuts the last chunk off the full-output file whenever a
// snapshot is taken while the command runs, as if that chunk's write were
// still queued, and writes the whole stream into it when closed.
type laggingFile struct {
	tool.Output
	mu       sync.Mutex
	raw      []byte
	last     int
	over     bool
	finished bool
	path     string
}

func (l *laggingFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	if !l.finished && !l.over {
		if len(l.raw)+len(p) > altCap {
			l.over, l.raw = true, nil
		} else {
			l.raw, l.last = append(l.raw, p...), len(p)
		}
	}
	l.mu.Unlock()
	return l.Output.Write(p)
}

func (l *laggingFile) Finish() {
	l.mu.Lock()
	l.finished = true
	l.mu.Unlock()
	l.Output.Finish()
}

func (l *laggingFile) Snapshot() output.Snapshot {
	s := l.Output.Snapshot()
	l.mu.Lock()
	defer l.mu.Unlock()
	if s.FullOutputPath != "" && !l.over {
		l.path = s.FullOutputPath
		if !l.finished {
			os.Truncate(l.path, int64(len(l.raw)-l.last))
		}
	}
	return s
}

func (l *laggingFile) Close() error {
	err := l.Output.Close()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.path != "" && !l.over {
		os.WriteFile(l.path, l.raw, 0o600)
	}
	return err
}
