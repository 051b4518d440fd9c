package apexcheck_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/apexcheck/apexcheck/conformance"
	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/internal/roles"
)

// TestBoundVerdicts runs the bound command against the reference: a fake
// shell that prints only after the probe's bound makes the probe-PATH check
// inconclusive (the reference rightly kept the host PATH), retried up to
// Config.Attempts, while a check that fails on an answer that came sooner
// than the bound allows stays a failure.
func TestBoundVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the probe's 5 s bound twice")
	}
	scripts := fstest.MapFS{
		"x_machine_late.txtar": {Data: []byte(`# The fake shell prints after the bound: the host PATH is no failure.
# clauses: PATH-6
# requires: path-probe

fakeshell -at 5500ms -print /probe/bin:/usr/bin:/bin $WORK/fake
impl start SHELL=$WORK/fake PATH=/host/bin:/usr/bin:/bin
call -within 20s '{"command":"tr \"\\0\" \"\\n\" </proc/$$/environ | grep ^PATH="}'
bound -shell fake.log 5s text 'PATH=/probe/bin:/usr/bin:/bin\n'
`)},
		"x_early.txtar": {Data: []byte(`# An answer sooner than the bound allows: the failure stands.
# clauses: PATH-6

call '{"command":"echo hi"}'
bound 5s text 'not what came\n'
`)},
	}
	results, err := conformance.Run(conformance.Config{
		Impl:     []string{os.Args[0], roles.ServeArg},
		Scripts:  scripts,
		Dir:      ".",
		SelfExe:  os.Args[0],
		Run:      regexp.MustCompile(`^x_`),
		Attempts: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		outcome  suite.Outcome
		attempts int
		message  string
	}{
		"x_machine_late": {suite.Inconclusive, 2, "inconclusive in all 2 attempts; the last: the machine, not the implementation, missed the 5s bound"},
		"x_early":        {suite.Failed, 1, "text differs"},
	}
	for _, r := range results {
		t.Logf("%s %s: %s", r.Outcome, r.Scenario.Name, r.Message)
		w := want[r.Scenario.Name]
		if r.Outcome != w.outcome || r.Attempts != w.attempts || !strings.Contains(r.Message, w.message) {
			t.Errorf("%s: %s after %d attempts (%q), want %s after %d containing %q\nlog:\n%s",
				r.Scenario.Name, r.Outcome, r.Attempts, r.Message, w.outcome, w.attempts, w.message, r.Log)
		}
	}
	if len(results) != len(want) {
		t.Errorf("%d results, want %d", len(results), len(want))
	}
}
