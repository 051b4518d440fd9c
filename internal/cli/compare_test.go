package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompare runs the synthetic suite under both profiles, then compares
// the two reports: one page each, naming both runs and the failure.
func TestCompare(t *testing.T) {
	profiled(t)
	dir := t.TempDir()
	apex, core := filepath.Join(dir, "apex.jsonl"), filepath.Join(dir, "core.jsonl")
	for profile, file := range map[string]string{"apex": apex, "core": core} {
		if code, stdout, stderr := run(t, "--impl", ref, "--profile", profile, "--progress", "off", "--json", file); code == ExitUsage {
			t.Fatalf("%s run: exit %d\n%s\n%s", profile, code, stdout, stderr)
		}
	}
	md, page := filepath.Join(dir, "out", "m.md"), filepath.Join(dir, "out", "m.html")
	code, _, stderr := run(t, "compare", "--markdown", md, "--html", page, apex, core)
	if code != ExitConformant {
		t.Fatalf("compare: exit %d\n%s", code, stderr)
	}
	mdText, _ := os.ReadFile(md)
	for _, want := range []string{
		"The same matrix, with filters by area, profile and outcome, is [m.html](m.html).",
		"| r1 | apexcheck-reference |", "| apex | 2 | 1 | 0 | 0 |", "| no |",
		"| r2 | apexcheck-reference |", "| core | 1 | 0 | 0 | 0 | 1 of 1 | **yes** |",
		"| [EXEC-1](../spec/t.md) | MUST |  | [❌](#fail-r1-exec_fails) | · |",
		"| [CALL-1](../spec/t.md) | MUST | core | ✅ | ✅ |",
	} {
		if !strings.Contains(string(mdText), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, mdText)
		}
	}
	if html, _ := os.ReadFile(page); !strings.Contains(string(html), `id="fail-r1-exec_fails"`) {
		t.Errorf("HTML lacks the failure anchor")
	}
	// Without an output file the Markdown goes to stdout.
	if code, stdout, _ := run(t, "compare", core); code != ExitConformant || !strings.HasPrefix(stdout, "# Conformance matrix") {
		t.Errorf("compare to stdout: exit %d\n%s", code, stdout)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"type":"scenario","name":"x","outcome":"passed"}`+"\n"), 0o644)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"compare"}, "no report given"},
		{[]string{"compare", filepath.Join(dir, "missing.jsonl")}, "no such file"},
		{[]string{"compare", bad}, "the first line is not a header"},
		{[]string{"compare", core, core}, "both report apexcheck-reference"},
		{[]string{"compare", "--nope", core}, "flag provided but not defined"},
	} {
		if code, _, stderr := run(t, tt.args...); code != ExitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, code, stderr, ExitUsage, tt.want)
		}
	}
}
