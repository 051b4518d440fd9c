package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/apexcheck/apexcheck/conformance"
)

// progress reports the run's progress on stderr: on a terminal a live
// line rewritten in place ("\r[12/80] passed 10 failed 1 …"), in CI logs
// a plain line per finished scenario. Callers serialise its methods.
type progress struct {
	w      io.Writer
	mode   string // tty, plain or off
	total  int
	n      int
	totals conformance.Totals
	shown  bool // a live line is on the screen
}

func newProgress(mode string, w io.Writer, total int) *progress {
	if mode == "auto" {
		mode = "plain"
		if isTerminal(w) {
			mode = "tty"
		}
	}
	return &progress{w: w, mode: mode, total: total}
}

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (p *progress) add(r conformance.Result) {
	p.n++
	p.totals.Add(r.Outcome)
	switch p.mode {
	case "tty":
		fmt.Fprintf(p.w, "\r\x1b[K[%d/%d] passed %d failed %d errored %d skipped %d",
			p.n, p.total, p.totals.Passed, p.totals.Failed, p.totals.Errored, p.totals.Skipped)
		p.shown = true
	case "plain":
		fmt.Fprintf(p.w, "[%d/%d] %-7s %s (%.1fs)\n", p.n, p.total, r.Outcome, r.Scenario.Name, r.Duration.Seconds())
	}
}

// clear removes the live line before other output is printed, so the two
// do not garble each other on one terminal.
func (p *progress) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// done ends the live line.
func (p *progress) done() {
	if p.shown {
		fmt.Fprintln(p.w)
		p.shown = false
	}
}
