package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetupErrorInEveryReport: an adapter that dies on start is a setup
// error (exit 2) whose cause, the adapter's own stderr, is in the terminal
// output and in every report, since in CI the reports are often all
// anyone reads.
func TestSetupErrorInEveryReport(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "adapter.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho \"Error: Cannot find module '/x/pi-coding-agent'\" >&2\nexit 1\n"), 0o755)
	files := map[string]string{
		"json": filepath.Join(dir, "r.jsonl"), "junit": filepath.Join(dir, "r.xml"),
		"markdown": filepath.Join(dir, "r.md"), "badge": filepath.Join(dir, "badge.json"),
	}
	t.Setenv("GITHUB_ACTIONS", "true")
	var stdout, stderr bytes.Buffer
	code := Main([]string{"--impl", script, "--progress", "off", "--json", files["json"], "--junit", files["junit"],
		"--markdown", files["markdown"], "--badge", files["badge"]}, &stdout, &stderr)
	if code != ExitUsage {
		t.Fatalf("exit %d, want %d (setup error); stderr:\n%s", code, ExitUsage, stderr.String())
	}
	const cause = "Cannot find module '/x/pi-coding-agent'"
	if !strings.Contains(stderr.String(), cause) {
		t.Errorf("terminal output does not show the adapter's stderr:\n%s", stderr.String())
	}
	if !strings.Contains(stdout.String(), "::error title=apexcheck%3A the implementation could not be started") {
		t.Errorf("no GitHub annotation for the setup error:\n%s", stdout.String())
	}
	for kind, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%s report: %v", kind, err)
			continue
		}
		want := cause
		if kind == "badge" {
			want = "setup error"
		} else if kind == "json" || kind == "junit" {
			want = "Cannot find module" // quoted apostrophes differ by format
		}
		if !strings.Contains(string(data), want) {
			t.Errorf("%s report does not say %q:\n%s", kind, want, data)
		}
	}
}
