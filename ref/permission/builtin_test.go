package permission

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// evaluationEntries are the commands.json entries of PERM-44 to PERM-46
// that bash really runs `touch ran` for although no word holds an
// expansion: the evidence the clauses rest on. Each is checked against bash
// itself where bash 5 is installed.
func evaluationEntries(t *testing.T) []commandEntry {
	var out []commandEntry
	for _, e := range load[commandEntry](t, "commands.json") {
		if e.Want == "unknown" && strings.Contains(e.Command, "touch ran") &&
			(e.Class == ReasonEvaluation || e.Class == ReasonLookup || strings.HasPrefix(e.Reason, "PERM-46")) {
			out = append(out, e)
		}
	}
	return out
}

func bash5(t *testing.T) string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH")
	}
	out, err := exec.Command(bash, "--norc", "--noprofile", "-c", "echo ${BASH_VERSINFO[0]}").Output()
	if err != nil || strings.TrimSpace(string(out)) < "5" {
		t.Skipf("bash 5 needed, have %q", strings.TrimSpace(string(out)))
	}
	return bash
}

// runsTouch runs command in bash in a fresh directory, stdin at end of
// file as EXEC-5 has it, and reports whether the file ran appeared.
func runsTouch(t *testing.T, bash, command string) bool {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "--norc", "--noprofile", "-c", command)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir}
	cmd.Run() // the exit status is beside the point: only the file is
	_, err := os.Stat(filepath.Join(dir, "ran"))
	return err == nil
}

// TestEvaluationRunsInBash proves that each refused command of PERM-44 to
// PERM-46 is a real hidden execution in bash, and that the harmless
// neighbours the corpus keeps as segments are not.
func TestEvaluationRunsInBash(t *testing.T) {
	bash := bash5(t)
	entries := evaluationEntries(t)
	if len(entries) < 20 {
		t.Fatalf("only %d evaluation entries in commands.json", len(entries))
	}
	for _, e := range entries {
		if strings.Contains(e.Reason, "stricter than bash") {
			if runsTouch(t, bash, e.Command) {
				t.Errorf("%q: the corpus calls it stricter than bash, yet bash runs touch", e.Command)
			}
			continue
		}
		if strings.Contains(e.Command, "/usr/bin/touch") {
			if _, err := os.Stat("/usr/bin/touch"); err != nil {
				continue
			}
		}
		if !runsTouch(t, bash, e.Command) {
			t.Errorf("%q: bash does not run touch; the entry proves nothing", e.Command)
		}
	}
	for _, e := range load[commandEntry](t, "commands.json") {
		if e.Want == "segments" && strings.Contains(e.Command, "touch ran") && runsTouch(t, bash, e.Command) {
			t.Errorf("%q classifies as segments, yet bash runs touch", e.Command)
		}
	}
}

// TestWordValue checks the segmenter's quote removal, which reads a word's
// source text, against mvdan.cc/sh's own expander on the parsed word, for
// the words PERM-28 admits.
func TestWordValue(t *testing.T) {
	words := []string{
		`-v`, `'-v'`, `"-v"`, `\-v`, `''-v`, `"""-"v`, `a\ b`, `'a\b'`, `"a\b"`, `"a\"b"`, `"a\\b"`,
		`"\x"`, `\é`, `"é\é"`, `x'y'"z"`, `'a[$(id)]'`, `"a[x]"`,
	}
	for _, src := range words {
		f, err := syntax.NewParser().Parse(strings.NewReader("echo "+src), "")
		if err != nil {
			t.Fatalf("parse %q: %v", src, err)
		}
		w := f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1]
		fields, err := expand.Fields(nil, w)
		if err != nil || len(fields) != 1 {
			t.Fatalf("expand %q: %q, %v", src, fields, err)
		}
		if got, want := wordValue(src), fields[0]; got != want {
			t.Errorf("wordValue(%s) = %q, mvdan.cc/sh says %q", src, got, want)
		}
	}
}
