package verdict

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/google/go-cmp/cmp"
)

func TestFailure(t *testing.T) {
	script := "# s\n# clauses: OUT-1 EXEC-2\n\ncall '{}'\ncp stdout got\nexec seq 3\ncmp stdout got\nstdout '^done$'\n"
	rep := &Report{Command: "node a.mjs", RerunFlags: []string{"--bound", "1m"},
		Scripts: fstest.MapFS{"out_x.txtar": {Data: []byte(script)}},
		Clauses: []suite.Clause{
			{ID: "OUT-1", Level: "MUST", Text: "Output is kept `whole. More` words. More words."},
			{ID: "EXEC-2", Level: "SHOULD", Text: strings.Repeat("word ", 40)},
		}}
	sc := suite.Scenario{Name: "out_x", Path: "out_x.txtar", Area: "out", Clauses: []string{"OUT-1", "EXEC-2"}}
	clauses := []ClauseRef{{ID: "OUT-1", Level: "MUST", Text: "Output is kept `whole. More` words."},
		{ID: "EXEC-2", Level: "SHOULD", Text: strings.TrimSpace(strings.Repeat("word ", 22)) + " …"}}
	rerun := "apexcheck --impl 'node a.mjs' --bound 1m --run '^out_x$' -v"
	tests := []struct {
		name string
		r    suite.Result
		want Failure
	}{
		{"a cmp diff in the log, the command run into the output before it",
			suite.Result{Scenario: sc, Outcome: suite.Failed,
				Message: "FAIL: /tmp/apexcheck-scenarios-1/out_x.txtar:7: stdout and got differ",
				Log: "> call '{}'\n[stdout]\n1\n3> cp stdout got\n> exec seq 3\n[stdout]\n1\n2\n3\n> cmp stdout got\n" +
					"diff stdout got\n--- stdout\n+++ got\n@@ -1,3 +1,2 @@\n 1\n-2\n 3\n\nFAIL: /tmp/apexcheck-scenarios-1/out_x.txtar:7: stdout and got differ\n"},
			Failure{Location: "testdata/scripts/out_x.txtar:7", Command: "cmp stdout got", Message: "stdout and got differ",
				Diff: "--- stdout\n+++ got\n@@ -1,3 +1,2 @@\n 1\n-2\n 3"}},
		{"a pattern that did not match shows the output it was matched against",
			suite.Result{Scenario: sc, Outcome: suite.Failed,
				Message: "FAIL: /tmp/d/out_x.txtar:8: no match for `^done$` found in stdout",
				Log: "> cmp stdout got\n> call '{}'\n[stdout]\nnot done\nstill not\n[stderr]\nwarning\n> ! field x\n> ! stdout 'x'\n> stdout '^done$'\n" +
					"FAIL: /tmp/d/out_x.txtar:8: no match for `^done$` found in stdout\n"},
			Failure{Location: "testdata/scripts/out_x.txtar:8", Command: "stdout '^done$'", Message: "no match for `^done$` found in stdout",
				Got: "not done\nstill not"}},
		{"the text command's diff is in the message",
			suite.Result{Scenario: sc, Outcome: suite.Failed,
				Message: "FAIL: /tmp/d/out_x.txtar:4: text differs (-want +got):\n@@ -1,1 +1,1 @@\n-a\n+b"},
			Failure{Location: "testdata/scripts/out_x.txtar:4", Command: "call '{}'", Message: "text differs (-want +got):",
				Diff: "@@ -1,1 +1,1 @@\n-a\n+b"}},
		{"an error carries the implementation's stderr",
			suite.Result{Scenario: sc, Outcome: suite.Errored,
				Message: "FAIL: /tmp/d/out_x.txtar:4: [errored] implementation closed stdout (exit status 2)\nimplementation stderr (tail):\npanic: boom\ngoroutine 1"},
			Failure{Location: "testdata/scripts/out_x.txtar:4", Command: "call '{}'",
				Message: "implementation closed stdout (exit status 2)", StderrTail: "panic: boom\ngoroutine 1"}},
		{"no line known",
			suite.Result{Scenario: sc, Outcome: suite.Errored, Message: "[errored] runner panic: x"},
			Failure{Location: "testdata/scripts/out_x.txtar", Message: "runner panic: x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.want.Name, tt.want.Outcome, tt.want.Clauses, tt.want.Rerun = "out_x", tt.r.Outcome, clauses, rerun
			if diff := cmp.Diff(tt.want, rep.Failure(tt.r)); diff != "" {
				t.Errorf("Failure (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFailureText(t *testing.T) {
	f := Failure{Name: "out_x", Outcome: suite.Errored, Location: "testdata/scripts/out_x.txtar:4", Command: "call '{}'",
		Clauses: []ClauseRef{{ID: "OUT-1", Level: "MUST", Text: "Output is kept whole."}, {ID: "EXEC-9"}},
		Message: "implementation closed stdout", Diff: "-a\n+b", StderrTail: "panic: boom", Rerun: "apexcheck --run '^out_x$' -v"}
	want := `at:     testdata/scripts/out_x.txtar:4: call '{}'
see:    apexcheck show out_x (the scenario as shipped)
errored: implementation closed stdout
proves: OUT-1 (MUST) Output is kept whole.
        EXEC-9
diff:
    -a
    +b
implementation stderr (tail):
    panic: boom
rerun:  apexcheck --run '^out_x$' -v
`
	if got := f.Text(); got != want {
		t.Errorf("Text (-want +got):\n%s", cmp.Diff(want, got))
	}
}
