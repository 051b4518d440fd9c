package broken

import (
	"io"
	"os"
	"strings"
	"sync"

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
		Scenarios: `^output_(within_limits|line_limit)$`,
		Serve:     withOutput(func(o output.Options) tool.Output { return newRecut(o, splitTail) }),
	})
	Register("keeps-head", Variant{
		Defect:    "keeps the head of a truncated output instead of its tail (OUT-1, OUT-5, OUT-6)",
		Scenarios: `^output_(line_limit|byte_limit|long_line)$`,
		Serve:     withOutput(func(o output.Options) tool.Output { return newRecut(o, headOf) }),
	})
	Register("no-full-output-file", Variant{
		Defect:    "keeps no full-output file: a truncated result names none and the file is gone (OUT-20, OUT-24)",
		Scenarios: `^output_(line_limit|invalid_utf8|file)$`,
		Serve: withOutput(func(o output.Options) tool.Output {
			return &hiddenFile{Output: output.NewAccumulator(o)}
		}),
	})
	Register("world-readable-file", Variant{
		Defect:    "leaves the full-output file readable by everyone (0644, Node's default under umask 022) (OUT-22)",
		Scenarios: `^output_file$`,
		Serve: withOutput(func(o output.Options) tool.Output {
			return &chmodFile{Output: output.NewAccumulator(o)}
		}),
	})
	Register("holds-whole-output", Variant{
		Defect:    "keeps the whole output stream in memory until the command ends (OUT-25)",
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
