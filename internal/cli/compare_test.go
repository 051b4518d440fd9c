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
	ledger := filepath.Join(dir, "expected.json")
	for profile, file := range map[string]string{"apex": apex, "core": core} {
		args := []string{"--impl", ref, "--profile", profile, "--progress", "off", "--json", file}
		if profile == "apex" {
			args = append(args, "--write-expect", ledger)
		}
		if code, stdout, stderr := run(t, args...); code == ExitUsage {
			t.Fatalf("%s run: exit %d\n%s\n%s", profile, code, stdout, stderr)
		}
	}
	md, page := filepath.Join(dir, "out", "m.md"), filepath.Join(dir, "out", "m.html")
	code, _, stderr := run(t, "compare", "--markdown", md, "--html", page, "--ledger", ledger, apex, core)
	if code != ExitConformant {
		t.Fatalf("compare: exit %d\n%s", code, stderr)
	}
	mdText, _ := os.ReadFile(md)
	for _, want := range []string{
		"The same matrix, with filters by area, profile and outcome, is [m.html](m.html).",
		"| apexcheck-reference | 0.1.0 | no | 1 of 2 | 0 of 2 |", "| 2 | [1 + 0](#failures-apexcheck-reference-apex) (0 / 1) | 0 |",
		"| apexcheck-reference | 0.1.0 | **yes** | 1 of 1 | 0 of 1 |",
		"| clause | level | apexcheck-reference |",
		"| [EXEC-1](../spec/t.md) | MUST | [❌†](#fail-apexcheck-reference-apex-exec_fails) |",
		"| [CALL-1](../spec/t.md) | MUST | ✅ |",
		"Ledger `" + ledger + "`, 1 entries.",
		"`exec_fails` failed (EXEC-1): Not reviewed: the ledger's entry is a draft: TODO: review:",
	} {
		if !strings.Contains(string(mdText), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, mdText)
		}
	}
	if html, _ := os.ReadFile(page); !strings.Contains(string(html), `id="fail-apexcheck-reference-apex-exec_fails"`) {
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
		{[]string{"compare", "--nope", core}, "unknown flag -nope"},
		{[]string{"compare", "--ledger", ledger, core}, `reviews "apexcheck-reference 0.1.0" under profile apex, but no report given is of it`},
		{[]string{"compare", "--ledger", filepath.Join(dir, "missing.json"), core}, "no such file"},
		{[]string{"compare", "--ledger", bad, core}, "expectation ledger"},
	} {
		if code, _, stderr := run(t, tt.args...); code != ExitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, code, stderr, ExitUsage, tt.want)
		}
	}
}
