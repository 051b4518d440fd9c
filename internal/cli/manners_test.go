package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/apexcheck/apexcheck/conformance"
	"github.com/apexcheck/apexcheck/conformance/client"
	"github.com/apexcheck/apexcheck/conformance/script"
)

// TestShowAndExplainScenario: the scenario is the spec, read from the
// binary. show prints it byte for byte as embedded, by name or path;
// explain takes a scenario name as well as a clause ID.
func TestShowAndExplainScenario(t *testing.T) {
	mixed(t)
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // exact, when set
		want   []string
	}{
		{"show by name", []string{"show", "exec_fails"}, ExitConformant, failing, nil},
		{"show by path", []string{"show", "testdata/scripts/exec_fails.txtar"}, ExitConformant, failing, nil},
		{"show by file name", []string{"show", "exec_fails.txtar"}, ExitConformant, failing, nil},
		{"show unknown", []string{"show", "exec_fail"}, ExitUsage, "", []string{"apexcheck show: no scenario exec_fail; did you mean exec_fails (apexcheck list names them all)"}},
		{"show nothing", []string{"show"}, ExitUsage, "", []string{"want one scenario name"}},
		{"explain scenario", []string{"explain", "exec_fails"}, ExitConformant, "", []string{
			"exec_fails (testdata/scripts/exec_fails.txtar)\nA deliberate failure.\nclauses: EXEC-1\n\nproves:\n  EXEC-1 (MUST) spec/t.md\n    Output is exact.\n",
			"the whole scenario: apexcheck show exec_fails\n"}},
		{"explain clause", []string{"explain", "exec-1"}, ExitConformant, "", []string{"EXEC-1 (MUST; derived: test) spec/t.md"}},
		{"explain unknown clause", []string{"explain", "EXEC-9"}, ExitUsage, "", []string{"no clause EXEC-9"}},
		{"explain unknown scenario", []string{"explain", "nope"}, ExitUsage, "", []string{"nope is not a clause ID (such as EXEC-10), and no scenario nope"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, tt.args...)
			if code != tt.code || tt.stdout != "" && stdout != tt.stdout {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", code, tt.code, stdout, tt.stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout+stderr, w) {
					t.Errorf("output lacks %q:\n%s%s", w, stdout, stderr)
				}
			}
		})
	}
}

// TestListJSON: list --json is the table's content as JSON, for scripts.
func TestListJSON(t *testing.T) {
	mixed(t)
	code, stdout, stderr := run(t, "list", "--json", "--run", "^exec_")
	if code != ExitConformant {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var got []listEntry
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("decode %s: %v", stdout, err)
	}
	if len(got) != 3 {
		t.Fatalf("%d scenarios, want the 3 of exec:\n%s", len(got), stdout)
	}
	needs := got[2]
	if needs.Name != "exec_needs" || needs.File != "testdata/scripts/exec_needs.txtar" || needs.Area != "exec" ||
		strings.Join(needs.Clauses, ",") != "EXEC-2" || strings.Join(needs.Requires, ",") != "no-such-capability" ||
		needs.Summary != "Needs a capability nobody declares." || len(needs.Profiles) != 1 {
		t.Errorf("entry %+v", needs)
	}
	if got[0].Requires == nil || !strings.Contains(stdout, `"requires": []`) {
		t.Errorf("an empty list is not []:\n%s", stdout)
	}
}

// TestCLIManners: the small things a user meets first.
func TestCLIManners(t *testing.T) {
	mixed(t)
	_, version, _ := run(t, "version")
	dir := t.TempDir()
	t.Chdir(dir)
	tests := []struct {
		name string
		args []string
		code int
		want string // in stdout or stderr
	}{
		{"--version", []string{"--version"}, ExitConformant, version},
		{"-version", []string{"-version"}, ExitConformant, version},
		{"--lang in another case", []string{"init", "--lang", "Python", "--dir", filepath.Join(dir, "py")}, ExitConformant, "adapter.py"},
		{"--lang in capitals", []string{"init", "--lang", "GO", "--dir", filepath.Join(dir, "go")}, ExitConformant, "main.go"},
		// A relative path that does not exist is reported where the user
		// looked for it, not inside a scenario's temporary directory.
		{"missing relative --impl", []string{"--impl", "sh ./nope.sh", "--progress", "off"}, ExitUsage, filepath.Join(dir, "nope.sh")},
		{"missing ../ --impl", []string{"--impl", "sh ../nope.sh", "--progress", "off"}, ExitUsage, filepath.Join(filepath.Dir(dir), "nope.sh")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, tt.args...)
			if code != tt.code || !strings.Contains(stdout+stderr, tt.want) {
				t.Errorf("exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", code, tt.code, tt.want, stdout, stderr)
			}
			if strings.Contains(stdout+stderr, "apexcheck-handshake-") {
				t.Errorf("names the kit's temporary directory:\n%s%s", stdout, stderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "py", "adapter.py")); err != nil {
		t.Error(err)
	}
}

// TestVerboseExplanation: -v shows a failed scenario's explanation, its
// opening comment, before the log, and every failure says how to see the
// whole scenario without a clone.
func TestVerboseExplanation(t *testing.T) {
	useSuite(t, map[string]string{"exec_fails": "# A deliberate failure.\n# clauses: EXEC-1\n# The second line of the explanation,\n# and its third.\n\n# A section.\ncall '{\"command\":\"echo hi\"}'\n# The failing section.\ntext 'nope\\n'\n"})
	code, stdout, _ := run(t, "--impl", ref, "--progress", "off", "-v")
	want := "    scenario (apexcheck show exec_fails):\n        A deliberate failure.\n        clauses: EXEC-1\n        The second line of the explanation,\n        and its third.\n    log:\n"
	if code != ExitNotConformant || !strings.Contains(stdout, want) {
		t.Errorf("exit %d; -v output lacks\n%s\n%s", code, want, stdout)
	}
	if !strings.Contains(stdout, "    see:    apexcheck show exec_fails (the scenario as shipped)\n") {
		t.Errorf("the failure does not say how to see the scenario:\n%s", stdout)
	}
}

// TestKeepWorkTranscriptReplay: --keep-work keeps, beside the failed
// scenario's files, the scenario as shipped and a transcript of its
// protocol messages, both directions, labelled; apexcheck replay sends
// the transcript's requests to an implementation again and prints what
// it answers in the same form.
func TestKeepWorkTranscriptReplay(t *testing.T) {
	useSuite(t, map[string]string{"call_ok": passing, "exec_fails": failing})
	t.Setenv("TMPDIR", t.TempDir())
	_, stdout, _ := run(t, "--impl", ref, "--progress", "off", "--keep-work")
	m := regexp.MustCompile(`work directory kept: (\S+)`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no work directory printed:\n%s", stdout)
	}
	dir := m[1]
	if data, err := os.ReadFile(filepath.Join(dir, conformance.KeptScenario)); err != nil || string(data) != failing {
		t.Errorf("kept scenario %q, %v; want the scenario as shipped", data, err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), "*"+script.TranscriptSuffix)); len(left) > 0 {
		t.Errorf("transcripts left beside the work directories: %v", left)
	}
	file := filepath.Join(dir, conformance.KeptTranscript)
	recorded, err := readTranscript(file)
	if err != nil {
		t.Fatal(err)
	}
	// The scenario: hello, call, text (no message), then the runner's
	// shutdown at the end.
	var kinds []string
	for _, e := range recorded {
		kind := e.Dir
		if e.Msg != nil {
			var m struct{ Type string }
			json.Unmarshal(e.Msg, &m)
			kind += " " + m.Type
		}
		kinds = append(kinds, kind)
	}
	if got := strings.Join(kinds, ", "); !strings.HasPrefix(got, "start, send hello, recv hello, send call, recv result") {
		t.Errorf("transcript entries: %s", got)
	}
	if recorded[0].Impl != 1 || len(recorded[0].Argv) == 0 || !strings.Contains(strings.Join(recorded[0].Env, "\n"), "HOME="+dir) {
		t.Errorf("first entry %+v, want the start of implementation 1, with the scenario's environment", recorded[0])
	}

	code, out, stderr := run(t, "replay", "--impl", ref, file)
	if code != ExitConformant || !strings.Contains(stderr, "apexcheck replay: implementation 1: sent ") {
		t.Fatalf("replay: exit %d\n%s\n%s", code, out, stderr)
	}
	replayed, err := readTranscript(writeTemp(t, out))
	if err != nil {
		t.Fatal(err)
	}
	sawHi := false
	for _, e := range replayed {
		if e.Dir == client.TranscriptRecv && strings.Contains(string(e.Msg), `"text":"hi\n"`) {
			sawHi = true
		}
	}
	if !sawHi || countDir(replayed, 1, client.TranscriptSend) != countDir(recorded, 1, client.TranscriptSend) {
		t.Errorf("the replay did not send the same requests and get the call's result:\n%s", out)
	}

	for _, tt := range []struct {
		name, text string
	}{
		{"not JSON", "nope\n"},
		{"unknown member", `{"impl":1,"dir":"send","msg":{},"extra":1}` + "\n"},
		{"unknown direction", `{"impl":1,"dir":"sideways"}` + "\n"},
		{"empty", ""},
	} {
		if code, _, stderr := run(t, "replay", writeTemp(t, tt.text)); code != ExitUsage || !strings.Contains(stderr, "read transcript") {
			t.Errorf("replay of a transcript %s: exit %d, %s", tt.name, code, stderr)
		}
	}
}

// writeTemp writes text to a temporary file and returns its name.
func writeTemp(t *testing.T, text string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}
