package cli

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/apexcheck/apexcheck/conformance/suite"
)

// progress reports the run's progress on stderr. On a terminal it is a
// live line rewritten in place, naming the scenarios running and how long
// each has run, so a slow or stuck one shows itself:
//
//	[12/80] passed 10 failed 1 errored 0 skipped 1 | exec_timeout 4s, path_probe 1s
//
// In CI logs it is a plain line per finished scenario, unless -v already
// prints each outcome on stdout (a pipe often carries both; each outcome is
// printed once). Its methods are safe for concurrent use.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	mode    string // tty, plain or off
	total   int
	n       int
	totals  suite.Totals
	running map[string]time.Time
	shown   bool // a live line is on the screen
	stop    chan struct{}
	stopped chan struct{}
	now     func() time.Time
}

// liveWidth bounds the live line, so that it never wraps on a usual
// terminal (a wrapped line cannot be rewritten in place).
const liveWidth = 100

// tick is how often the live line's elapsed times are redrawn.
const tick = time.Second

func newProgress(mode string, w io.Writer, total int, verbose bool) *progress {
	if mode == "auto" {
		mode = "plain"
		if isTerminal(w) {
			mode = "tty"
		}
	}
	if mode == "plain" && verbose {
		mode = "off"
	}
	p := &progress{w: w, mode: mode, total: total, running: map[string]time.Time{}, now: time.Now}
	if mode == "tty" {
		p.stop, p.stopped = make(chan struct{}), make(chan struct{})
		go p.redraw()
	}
	return p
}

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w io.Writer) bool {
	if u, ok := w.(interface{ Unwrap() io.Writer }); ok {
		w = u.Unwrap()
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// redraw refreshes the live line while scenarios run, so their elapsed
// times advance between results.
func (p *progress) redraw() {
	defer close(p.stopped)
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			if len(p.running) > 0 {
				p.draw()
			}
			p.mu.Unlock()
		}
	}
}

// start records a scenario that started.
func (p *progress) start(s suite.Scenario) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running[s.Name] = p.now()
	if p.mode == "tty" {
		p.draw()
	}
}

// finish records a scenario that finished. print, when not nil, prints
// its outcome first, with the live line off the screen: holding the lock
// throughout keeps the redrawing from writing into it.
func (p *progress) finish(r suite.Result, print func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	if print != nil {
		print()
	}
	delete(p.running, r.Scenario.Name)
	p.n++
	p.totals.Add(r.Outcome)
	switch p.mode {
	case "tty":
		p.draw()
	case "plain":
		fmt.Fprintf(p.w, "[%d/%d] %-7s %s (%.1fs)\n", p.n, p.total, r.Outcome, r.Scenario.Name, r.Duration.Seconds())
	}
}

// draw writes the live line. The caller holds p.mu.
func (p *progress) draw() {
	line := fmt.Sprintf("[%d/%d] passed %d failed %d errored %d skipped %d",
		p.n, p.total, p.totals.Passed, p.totals.Failed, p.totals.Errored, p.totals.Skipped)
	if run := p.runningText(liveWidth - len(line) - 3); run != "" {
		line += " | " + run
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s", line)
	p.shown = true
}

// runningText names the running scenarios, longest-running first, with
// their elapsed time, in at most width bytes ("+N more" for the rest).
func (p *progress) runningText(width int) string {
	names := make([]string, 0, len(p.running))
	for n := range p.running {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		ti, tj := p.running[names[i]], p.running[names[j]]
		return ti.Before(tj) || ti.Equal(tj) && names[i] < names[j]
	})
	now := p.now()
	var parts []string
	used := 0
	for i, n := range names {
		part := fmt.Sprintf("%s %ds", n, int(now.Sub(p.running[n]).Seconds()))
		more := ""
		if rest := len(names) - i - 1; rest > 0 {
			more = fmt.Sprintf(", +%d more", rest)
		}
		if used+len(part)+2+len(more) > width && i > 0 {
			parts = append(parts, fmt.Sprintf("+%d more", len(names)-i))
			break
		}
		parts = append(parts, part)
		used += len(part) + 2
	}
	return strings.Join(parts, ", ")
}

// clear removes the live line before other output is printed, so the two
// do not garble each other on one terminal. The caller holds p.mu.
func (p *progress) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// done stops the redrawing and ends the live line.
func (p *progress) done() {
	if p.stop != nil {
		close(p.stop)
		<-p.stopped
		p.stop = nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprintln(p.w)
		p.shown = false
	}
}
