package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/apexcheck/apexcheck/conformance/suite"
)

// TestProgressNamesRunning checks that the live line names the scenarios
// running, longest-running first with their elapsed time, and bounds its
// width with "+N more".
func TestProgressNamesRunning(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{w: &buf, mode: "tty", total: 9, running: map[string]time.Time{}}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	p.now = func() time.Time { return now }
	sc := func(n string) suite.Scenario { return suite.Scenario{Name: n} }
	p.start(sc("exec_timeout"))
	now = now.Add(2 * time.Second)
	p.start(sc("path_probe"))
	now = now.Add(3 * time.Second)
	p.finish(suite.Result{Scenario: sc("call_ok"), Outcome: suite.Passed}, nil)
	last := buf.String()[strings.LastIndex(buf.String(), "\r\x1b[K")+4:]
	if want := "[1/9] passed 1 failed 0 errored 0 skipped 0 | exec_timeout 5s, path_probe 3s"; last != want {
		t.Errorf("live line %q, want %q", last, want)
	}
	for _, n := range []string{"a_long_scenario_name_1", "a_long_scenario_name_2", "a_long_scenario_name_3"} {
		p.start(sc(n))
	}
	p.mu.Lock()
	p.draw()
	p.mu.Unlock()
	last = buf.String()[strings.LastIndex(buf.String(), "\r\x1b[K")+4:]
	if len(last) > liveWidth || !strings.Contains(last, "exec_timeout 5s, path_probe 3s, ") || !strings.HasSuffix(last, " more") {
		t.Errorf("live line %q (%d bytes), want at most %d ending in +N more", last, len(last), liveWidth)
	}
	p.done()
}
